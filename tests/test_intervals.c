/* test_intervals.c — unions, touching merges, intersections; kernel types. */
#include "test.h"
#include "analysis/intervals.h"
#include "analysis/kernel_type.h"
#include "model/model.h"

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
