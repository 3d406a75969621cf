/* test_intervals.c — unions, touching merges, intersections; kernel types. */
#include "test.h"
#include "analysis/common/intervals.h"
#include "analysis/common/kernel_type.h"
#include "model/model.h"

#include <string.h>

TEST(intervals_merge_touching_and_nested)
{
    kt_interval iv[] = { { 10, 20 }, { 0, 5 }, { 5, 7 }, { 12, 15 }, { 30, 40 } };
    size_t n = kt_intervals_merge(iv, 5);
    CHECK_INT(n, 3);
    CHECK_INT(iv[0].start, 0);
    CHECK_INT(iv[0].end, 7);
    CHECK_INT(kt_intervals_length(iv, n), 7 + 10 + 10);
}

TEST(intervals_overlap_and_intersect)
{
    kt_interval a[] = { { 0, 10 }, { 20, 30 } }, b[] = { { 5, 25 } }, out[3];
    CHECK_INT(kt_intervals_overlap(a, 2, b, 1), 10);
    CHECK_INT(kt_intervals_intersect(a, 2, b, 1, out), 2);
    CHECK_INT(out[1].start, 20);
    CHECK_INT(out[1].end, 25);
}

TEST(kernel_type_hta_rules)
{
    CHECK_INT(kt_kernel_type_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL", KT_K_KERNEL, true), KT_TYPE_COMMUNICATION);
    CHECK_INT(kt_kernel_type_of("Memcpy HtoD (Pageable -> Device)", KT_K_MEMCPY, true), KT_TYPE_MEMORY);
    CHECK_INT(kt_kernel_type_of("hipMemcpy", KT_K_MEMCPY, true), KT_TYPE_COMMUNICATION); /* HTA quirk */
    CHECK_INT(kt_kernel_type_of("hipMemcpy", KT_K_MEMCPY, false), KT_TYPE_MEMORY);
    CHECK_INT(kt_kernel_type_of("Stream Wait Event", KT_K_CUDA_SYNC, true), KT_TYPE_OTHER);
    CHECK_INT(kt_kernel_type_of("void at::native::vectorized_elementwise_kernel<4>", KT_K_KERNEL, true), KT_TYPE_COMPUTATION);
    CHECK_INT(kt_kernel_type_of("rccl_AllReduce", KT_K_KERNEL, false), KT_TYPE_COMMUNICATION);
    char buf[16];
    CHECK_STR(kt_memory_kernel_type("Memcpy DtoH (Device -> Pinned)", buf, sizeof buf), "Memcpy DtoH");
    CHECK_STR(kt_memory_kernel_type("Memset (Device)", buf, sizeof buf), "Memset");
    CHECK_STR(kt_memory_kernel_type("dma_copy", buf, sizeof buf), "Memcpy Unknown");
}

TEST(intervals_merge_runs_equals_sorted_merge)
{
    /* three streams' runs, each sorted by start, interleaving in time */
    kt_interval iv[] = { { 0, 5 }, { 10, 12 }, { 30, 31 },   /* run 1 */
                         { 4, 11 }, { 20, 25 },              /* run 2 */
                         { 12, 13 }, { 26, 29 }, { 40, 41 } }; /* run 3 */
    kt_interval ref[8], tmp[8];
    memcpy(ref, iv, sizeof iv);
    size_t nref = kt_intervals_merge(ref, 8);
    size_t n = kt_intervals_merge_runs(iv, 8, tmp);
    CHECK_INT(n, nref);
    CHECK_INT(n, 5);
    for (size_t i = 0; i < n && i < nref; i++) {
        CHECK_INT(iv[i].start, ref[i].start);
        CHECK_INT(iv[i].end, ref[i].end);
    }
    CHECK_INT(iv[0].end, 13); /* 0–5, 4–11, 10–12, 12–13 chain */
    CHECK_INT(kt_intervals_span(iv, n), 41);
    CHECK_INT(kt_intervals_merge_runs(iv, 0, tmp), 0);
    CHECK_INT(kt_intervals_span(iv, 0), 0);
}

/* HTA rounding makes inverted intervals (dur −1 µs); HTA's group rule
 * gives them a negative length, which the merge must reproduce.            */
TEST(intervals_merge_keeps_hta_inverted_interval)
{
    kt_interval iv[] = { { 0, 10 }, { 11, 10 }, { 20, 22 } }, tmp[3];
    size_t n = kt_intervals_merge_runs(iv, 3, tmp);
    CHECK_INT(n, 3);
    CHECK_INT(kt_intervals_length(iv, n), 10 - 1 + 2);
}

/* Equal starts keep their input order (a stable sort), which decides
 * whether an inverted interval at the same start is swallowed: pinned in
 * both orders, and on 5,000 shuffled intervals against a byte-for-byte
 * insertion sort.                                                        */
TEST(intervals_merge_sorts_equal_starts_stably)
{
    kt_interval a[] = { { 7, 8 }, { 5, 10 }, { 5, 3 } };
    CHECK_INT(kt_intervals_merge(a, 3), 1); /* 5-10 first: 5-3 and 7-8 fold into it */
    CHECK_INT(a[0].end, 10);
    kt_interval b[] = { { 7, 8 }, { 5, 3 }, { 5, 10 } };
    CHECK_INT(kt_intervals_merge(b, 3), 2); /* 5-3 first: 5-10 starts after its end */
    CHECK_INT(b[0].end, 3);
    CHECK_INT(b[1].end, 10);

    enum { N = 5000 };
    static kt_interval iv[N], ref[N];
    uint64_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int64_t start = (int64_t)(x >> 40) % 300 - 100, len = (int64_t)(x >> 20) % 9 - 2; /* some inverted */
        iv[i] = ref[i] = (kt_interval){ start, start + len };
    }
    for (size_t i = 1; i < N; i++) /* stable insertion sort by start */
        for (size_t j = i; j > 0 && ref[j - 1].start > ref[j].start; j--) {
            kt_interval t = ref[j];
            ref[j] = ref[j - 1], ref[j - 1] = t;
        }
    size_t m = 0; /* HTA's merge rule over the stable order */
    for (size_t i = 1; i < N; i++) {
        if (ref[i].start <= ref[m].end) {
            if (ref[i].end > ref[m].end) ref[m].end = ref[i].end;
        } else {
            ref[++m] = ref[i];
        }
    }
    size_t n = kt_intervals_merge(iv, N);
    CHECK_INT(n, m + 1);
    for (size_t i = 0; i < n && i <= m; i++) {
        CHECK_INT(iv[i].start, ref[i].start);
        CHECK_INT(iv[i].end, ref[i].end);
    }
}

TEST(intervals_union_of_merged_sets)
{
    kt_interval a[] = { { 0, 10 }, { 20, 30 } }, b[] = { { 5, 15 }, { 30, 35 }, { 50, 60 } }, out[5];
    size_t n = kt_intervals_union(a, 2, b, 3, out);
    CHECK_INT(n, 3);
    CHECK_INT(out[0].end, 15);
    CHECK_INT(out[1].start, 20);
    CHECK_INT(out[1].end, 35);
    CHECK_INT(kt_intervals_length(out, n), 15 + 15 + 10);
}

TEST(kernel_type_cache_by_event)
{
    kt_strtab *s = kt_strtab_new();
    kt_rank *r = kt_rank_new();
    const char *names[] = { "ncclKernel_AllReduce", "Memcpy HtoD", "gemm", "Stream Wait Event" };
    const uint8_t kinds[] = { KT_K_KERNEL, KT_K_MEMCPY, KT_K_KERNEL, KT_K_CUDA_SYNC };
    for (int i = 0; i < 4; i++) {
        uint32_t e = kt_events_push(&r->ev);
        r->ev.name[e] = kt_strtab_intern(s, names[i], strlen(names[i]));
        r->ev.kind[e] = kinds[i];
    }
    kt_type_cache *c = kt_type_cache_new(s, false);
    for (int pass = 0; pass < 2; pass++) { /* second pass: memoized */
        CHECK_INT(kt_event_kernel_type(c, r, 0), KT_TYPE_COMMUNICATION);
        CHECK_INT(kt_event_kernel_type(c, r, 1), KT_TYPE_MEMORY);
        CHECK_INT(kt_event_kernel_type(c, r, 2), KT_TYPE_COMPUTATION);
        CHECK_INT(kt_event_kernel_type(c, r, 3), KT_TYPE_OTHER);
    }
    kt_type_cache_free(c);
    kt_rank_free(r);
    kt_strtab_free(s);
}

TEST(shorten_name_as_hta)
{
    char buf[256];
    CHECK_STR(kt_shorten_name("void at::native::vectorized_elementwise_kernel<4, at::native::Foo<float> >(int, float*)",
                              buf, sizeof buf),
              "at::native::vectorized_elementwise_kernel");
    CHECK_STR(kt_shorten_name("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", buf, sizeof buf),
              "ncclDevKernel_SendRecv");
    CHECK_STR(kt_shorten_name("Memcpy HtoD (Pageable -> Device)", buf, sizeof buf),
              "Memcpy HtoD (Pageable -> Device)");
    CHECK_STR(kt_shorten_name("aten::add", buf, sizeof buf), "aten::add");
    CHECK_STR(kt_shorten_name("void f<a->b>()", buf, sizeof buf), "f");
}
