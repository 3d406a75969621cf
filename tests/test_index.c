/* test_index.c — GPU streams, correlation, call trees, steps, flows and
 * alignment on hand-built traces with hand-computed answers.            */
#include "test.h"
#include "fixture.h"
#include "model/radix.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CPU_PID 100

/* The call tree, built on first use (kt_index_call_tree). */
static const uint32_t *parents(const kt_rank *r)
{
    CHECK_INT(kt_index_call_tree(r), KT_OK);
    return r->idx->parent;
}
#define X(cat, name, ts, dur, tid, stream, corr) \
    fx_event(t, r, 'X', cat, name, ts, dur, CPU_PID, tid, stream, corr)
#define GPU(cat, name, ts, dur, dev, stream, corr) \
    fx_event(t, r, 'X', cat, name, ts, dur, dev, stream, stream, corr)

static void free_trace(kt_trace *t) { kt_trace_free(t); }

TEST(radix_sort_is_stable_and_signed)
{
    uint64_t k[] = { kt_radix_key_i64(5), kt_radix_key_i64(-3), kt_radix_key_i64(5),
                     kt_radix_key_i64(1LL << 40), kt_radix_key_i64(-3) };
    uint32_t id[] = { 0, 1, 2, 3, 4 };
    CHECK(kt_radix_sort(k, id, 5));
    uint32_t want[] = { 1, 4, 0, 2, 3 };
    for (int i = 0; i < 5; i++) CHECK_INT(id[i], want[i]);
}

/* Keys as a few ascending runs (as events gathered stream by stream come)
 * take the merge path: ties across runs keep the earlier run first, and
 * sorted keys stay as they are.                                          */
TEST(radix_sort_merges_a_few_runs_stably)
{
    enum { N = 900 };
    uint64_t k[N], ref_k[N];
    uint32_t id[N], ref_id[N];
    for (uint32_t i = 0; i < N; i++) { /* three runs of 300, wide keys (many varying bytes) */
        k[i] = ref_k[i] = kt_radix_key_i64((int64_t)(i % 300) * 3 / (1 + i / 300) * 0x0101010101 - 7);
        id[i] = ref_id[i] = i;
    }
    CHECK(kt_radix_sort(k, id, N));
    for (size_t i = 1; i < N; i++) /* insertion sort: stable */
        for (size_t j = i; j > 0 && ref_k[j - 1] > ref_k[j]; j--) {
            uint64_t x = ref_k[j];
            uint32_t y = ref_id[j];
            ref_k[j] = ref_k[j - 1], ref_id[j] = ref_id[j - 1];
            ref_k[j - 1] = x, ref_id[j - 1] = y;
        }
    for (size_t i = 0; i < N; i++) CHECK(k[i] == ref_k[i] && id[i] == ref_id[i]);
    CHECK(kt_radix_sort(k, id, N)); /* sorted already: unchanged */
    for (size_t i = 0; i < N; i++) CHECK(k[i] == ref_k[i] && id[i] == ref_id[i]);
}

/* kt_sort_doubles against a plain comparison sort, below and above its
 * insertion-sort size: negatives, zeros of both signs, infinities,
 * subnormals, duplicates.                                                 */
TEST(sort_doubles_orders_like_a_comparison_sort)
{
    const double pick[] = { 3.5, -2.0, 0.0, -0.0, 1e300, -1e300, 4.9e-324, -4.9e-324,
                            1.0 / 0.0, -1.0 / 0.0, 7.25, 3.5, -2.0, 123456.789 };
    const size_t npick = sizeof pick / sizeof pick[0];
    for (size_t n = 0; n < 200; n += 7) {
        double v[200], w[200];
        for (size_t i = 0; i < n; i++) v[i] = w[i] = pick[(i * 7 + n) % npick] * (double)(1 + i % 3);
        kt_sort_doubles(v, n);
        for (size_t i = 1; i < n; i++) /* insertion sort as the reference */
            for (size_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
                double x = w[j];
                w[j] = w[j - 1];
                w[j - 1] = x;
            }
        for (size_t i = 0; i < n; i++) CHECK(v[i] == w[i]); /* -0 == +0 */
        for (size_t i = 1; i < n; i++) CHECK(!(v[i] < v[i - 1]));
    }
    double nan_last[] = { 2.0, 0.0 / 0.0, -1.0, -(0.0 / 0.0) }; /* NaNs of both signs */
    kt_sort_doubles(nan_last, 4);
    CHECK(nan_last[0] == -1.0 && nan_last[1] == 2.0 && nan_last[2] != nan_last[2] && nan_last[3] != nan_last[3]);
    double many[100]; /* the radix path too */
    for (size_t i = 0; i < 100; i++) many[i] = i % 10 == 3 ? 0.0 / 0.0 : (double)(100 - i);
    kt_sort_doubles(many, 100);
    for (size_t i = 0; i < 90; i++) CHECK(many[i] == many[i] && (i == 0 || many[i] > many[i - 1]));
    for (size_t i = 90; i < 100; i++) CHECK(many[i] != many[i]);
}

TEST(sort_i64_orders_negatives_and_extremes)
{
    int64_t v[300], w[300];
    for (size_t i = 0; i < 300; i++) v[i] = w[i] = (int64_t)((i * 2654435761u) % 1000) - 500;
    v[7] = w[7] = INT64_MIN;
    v[8] = w[8] = INT64_MAX;
    CHECK(kt_sort_i64(v, 300));
    for (size_t i = 1; i < 300; i++) /* insertion sort as the reference */
        for (size_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            int64_t x = w[j];
            w[j] = w[j - 1];
            w[j - 1] = x;
        }
    for (size_t i = 0; i < 300; i++) CHECK_INT(v[i], w[i]);
}

/* Records by (major, minor), ties in their original order: the order of a
 * stable comparison sort.                                                */
typedef struct rec {
    uint64_t major;
    int64_t minor;
    uint32_t pos;
} rec;

/* r against ref[0..n) put in order by a stable insertion sort. */
static void check_records_sorted(const rec *r, rec *ref, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && (ref[j - 1].major > ref[j].major ||
                                     (ref[j - 1].major == ref[j].major && ref[j - 1].minor > ref[j].minor)); j--) {
            rec x = ref[j];
            ref[j] = ref[j - 1];
            ref[j - 1] = x;
        }
    for (size_t i = 0; i < n; i++) CHECK(r[i].major == ref[i].major && r[i].minor == ref[i].minor && r[i].pos == ref[i].pos);
}

TEST(radix_sort_records_is_a_stable_two_key_sort)
{
    enum { N = 500 };
    rec r[N], ref[N];
    uint64_t major[N], minor[N];
    for (uint32_t i = 0; i < N; i++) {
        r[i] = (rec){ (i * 7919u) % 5 * ((uint64_t)1 << 40), (int64_t)((i * 104729u) % 9) - 4, i };
        major[i] = r[i].major, minor[i] = kt_radix_key_i64(r[i].minor);
        ref[i] = r[i];
    }
    CHECK(kt_radix_sort_records(r, sizeof *r, N, major, minor));
    check_records_sorted(r, ref, N);
}

/* Records already in a few (major, minor) runs are merged: the same order,
 * equal pairs of different runs in their original order.                  */
TEST(radix_sort_records_merges_a_few_runs_stably)
{
    enum { N = 600 };
    rec r[N], ref[N];
    uint64_t major[N], minor[N];
    for (uint32_t i = 0; i < N; i++) { /* four runs of 150 */
        uint32_t j = i % 150;
        r[i] = (rec){ (uint64_t)(j / 3) << (8 * (i / 150)), (int64_t)(j % 3) - 1, i };
        major[i] = r[i].major, minor[i] = kt_radix_key_i64(r[i].minor);
        ref[i] = r[i];
    }
    CHECK(kt_radix_sort_records(r, sizeof *r, N, major, minor));
    check_records_sorted(r, ref, N);
}

/* Many runs, as traces tiled or merged by tools give them: parts in
 * sequence, each of three overlapping runs with ties across them, and a
 * part inside its neighbour.  Up to 256 runs merge, more take the radix
 * passes: each sort equals a stable comparison sort at 66, 256 and 259
 * runs.                                                                   */
typedef struct keyed {
    int64_t key;
    uint32_t pos;
} keyed;

static int by_key_then_pos(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* parts x 3 runs of 20 keys, each run ending after the next one starts
 * (so every 20 keys start a run): part p's times start at p * 45 (part 7
 * at 40 * 7, inside part 6's); runs 1 and 2 of a part start 4 and 8 later. */
static int64_t tiled_key(uint32_t i)
{
    uint32_t part = i / 60, run = i % 60 / 20, k = i % 20;
    int64_t start = part == 7 ? 40 * 7 : (int64_t)part * 45;
    return (start + run * 4 + k * 2) * 1000003 - 5000000;
}

static void check_many_runs(uint32_t n)
{
    keyed *ref = malloc(n * sizeof *ref);
    int64_t *col = malloc(n * sizeof *col);
    uint64_t *keys = malloc(n * sizeof *keys), *major = malloc(n * sizeof *major), *minor = malloc(n * sizeof *minor);
    uint32_t *ids = malloc(n * sizeof *ids), *by_col = malloc(n * sizeof *by_col);
    rec *r = malloc(n * sizeof *r);
    for (uint32_t i = 0; i < n; i++) {
        col[i] = tiled_key(i);
        ref[i] = (keyed){ col[i], i };
        keys[i] = kt_radix_key_i64(col[i]), ids[i] = by_col[i] = i;
        r[i] = (rec){ kt_radix_key_i64(col[i]), 0, i };
        major[i] = r[i].major, minor[i] = kt_radix_key_i64(0);
    }
    qsort(ref, n, sizeof *ref, by_key_then_pos);
    CHECK(kt_radix_sort(keys, ids, n));
    CHECK(kt_sort_ids_by_i64(by_col, n, col));
    CHECK(kt_radix_sort_records(r, sizeof *r, n, major, minor));
    size_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += ids[i] != ref[i].pos || keys[i] != kt_radix_key_i64(ref[i].key) || by_col[i] != ref[i].pos ||
               r[i].pos != ref[i].pos;
    if (bad) kt_test_fail(__FILE__, __LINE__, "%u keys: %zu out of place", n, bad);
    free(ref), free(col), free(keys), free(major), free(minor), free(ids), free(by_col), free(r);
}

TEST(sorts_merge_many_runs_stably)
{
    check_many_runs(22 * 60);      /* 66 runs */
    check_many_runs(256 * 20);     /* 256 runs: the merge's limit */
    check_many_runs(258 * 20 + 7); /* 259 runs: radix */
}

/* One cudaGraphLaunch → three kernels on two streams, written out of time
 * order; a cudaLaunchKernel → one kernel; a cuda_sync with stream -1.     */
TEST(index_graph_launch_fans_out)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t op = X("cpu_op", "aten::graph_replay", 1000, 9000, 1, -1, -1);
    uint32_t gl = X("cuda_runtime", "cudaGraphLaunch", 2000, 500, 1, -1, 10);
    uint32_t lk = X("cuda_runtime", "cudaLaunchKernel", 3000, 300, 1, -1, 11);
    uint32_t es = X("cuda_runtime", "cudaEventSynchronize", 4000, 100, 1, -1, 12);
    uint32_t k3 = GPU("kernel", "k3", 9000, 100, 0, 8, 10);
    uint32_t k1 = GPU("kernel", "k1", 5000, 100, 0, 7, 10);
    uint32_t k2 = GPU("kernel", "k2", 6000, 100, 0, 8, 10);
    uint32_t k4 = GPU("kernel", "k4", 7000, 100, 0, 7, 11);
    uint32_t sync = GPU("cuda_sync", "Event Sync", 7500, 10, 0, -1, 12);
    fx_finish(t);

    CHECK_INT(kt_gpu_launcher(r, k1), gl);
    CHECK_INT(kt_gpu_launcher(r, k2), gl);
    CHECK_INT(kt_gpu_launcher(r, k3), gl);
    CHECK_INT(kt_gpu_launcher(r, k4), lk);
    CHECK_INT(kt_gpu_launcher(r, sync), es);
    CHECK_INT(kt_gpu_launcher(r, op), KT_NONE);
    CHECK_INT(kt_gpu_launcher(r, lk), KT_NONE); /* a call's link is its group */
    const uint32_t *evs;
    CHECK_INT(kt_launched_events(r, gl, &evs), 3);
    CHECK_INT(evs[0], k1); /* ts order across streams */
    CHECK_INT(evs[1], k2);
    CHECK_INT(evs[2], k3);
    CHECK_INT(kt_launched_events(r, lk, &evs), 1);
    CHECK_INT(evs[0], k4);
    CHECK_INT(kt_launched_events(r, op, &evs), 0);
    CHECK_INT(kt_launched_events(r, k4, &evs), 0); /* a GPU event's link is its call */
    CHECK(kt_is_graph_launch(r, t->strs, gl));
    CHECK(!kt_is_graph_launch(r, t->strs, lk));
    CHECK_INT(kt_launcher_op(r, k2), op);

    /* streams: (0,7) = k1 k4, (0,8) = k2 k3; the stream-less sync is in none */
    CHECK_INT(r->idx->nstreams, 2);
    CHECK_INT(r->idx->streams[0].stream, 7);
    CHECK_INT(r->idx->streams[0].n, 2);
    CHECK_INT(r->idx->streams[0].ev[0], k1);
    CHECK_INT(r->idx->streams[0].ev[1], k4);
    CHECK_INT(r->idx->streams[1].stream, 8);
    CHECK_INT(r->idx->streams[1].ev[0], k2);
    CHECK_INT(r->idx->streams[1].ev[1], k3);
    free_trace(t);
}

/* ROCm: kernels and memcpy on stream 0 of device 2 are GPU work like any
 * other; a stream-carrying cuda_sync joins its stream; ties keep file order. */
TEST(index_rocm_stream_zero_and_devices)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t op = X("cpu_op", "aten::mm", 0, 10000, 1, -1, -1);
    uint32_t hl = X("cuda_runtime", "hipLaunchKernel", 100, 200, 1, -1, 5);
    uint32_t hm = X("cuda_runtime", "hipMemcpyAsync", 400, 200, 1, -1, 6);
    uint32_t mc = GPU("gpu_memcpy", "Memcpy HtoD", 3000, 50, 2, 0, 6);
    uint32_t kr = GPU("kernel", "Cijk_gemm", 1000, 500, 2, 0, 5);
    uint32_t kr2 = GPU("kernel", "other_dev", 1000, 500, 3, 0, -1);
    uint32_t sw = GPU("cuda_sync", "Stream Wait Event", 3000, 0, 2, 0, -1);
    fx_finish(t);

    CHECK_INT(kt_gpu_launcher(r, kr), hl);
    CHECK_INT(kt_gpu_launcher(r, mc), hm);
    CHECK_INT(kt_launcher_op(r, kr), op);
    CHECK_INT(kt_gpu_launcher(r, kr2), KT_NONE); /* orphan: no correlation */
    CHECK_INT(kt_launcher_op(r, kr2), KT_NONE);
    CHECK_INT(r->idx->nstreams, 2);
    const kt_gpu_stream *s = &r->idx->streams[0];
    CHECK_INT(s->device, 2);
    CHECK_INT(s->stream, 0);
    CHECK_INT(s->n, 3);
    CHECK_INT(s->ev[0], kr);
    CHECK_INT(s->ev[1], mc); /* ts tie with sw: file order */
    CHECK_INT(s->ev[2], sw);
    CHECK_INT(r->idx->streams[1].device, 3);
    CHECK_INT(r->idx->streams[1].ev[0], kr2);
    free_trace(t);
}

/* Call tree on one thread (times in ns; tolerance 1000 ns):
 *   A [0,100000) ⊃ B [10000,20000); C [19500,25000) bleeds 500 ns out of B
 *   → B is a sibling: parent(C) = A.  D [30000,40000); E [39000,50000)
 *   bleeds exactly 1000 ns → left out; F [41000,42000) → A.
 *   G [200000,210000) is a root; H [209800,215000) bleeds out of a root →
 *   left out.  J [300000,305000) written before I [300000,310000): the
 *   longer one is the parent.  K on another thread is a root.             */
TEST(index_call_tree_bleed)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t A = X("cpu_op", "A", 0, 100000, 1, -1, -1);
    uint32_t C = X("cuda_runtime", "C", 19500, 5500, 1, -1, -1);
    uint32_t B = X("cpu_op", "B", 10000, 10000, 1, -1, -1);
    uint32_t D = X("cpu_op", "D", 30000, 10000, 1, -1, -1);
    uint32_t E = X("python_function", "E", 39000, 11000, 1, -1, -1);
    uint32_t F = X("cuda_runtime", "F", 41000, 1000, 1, -1, -1);
    uint32_t G = X("cpu_op", "G", 200000, 10000, 1, -1, -1);
    uint32_t H = X("cuda_runtime", "H", 209800, 5200, 1, -1, -1);
    uint32_t J = X("cpu_op", "J", 300000, 5000, 1, -1, -1);
    uint32_t I = X("cpu_op", "I", 300000, 10000, 1, -1, -1);
    uint32_t K = X("cpu_op", "K", 15000, 1000, 2, -1, -1);
    uint32_t kern = GPU("kernel", "k", 50000, 10, 0, 7, -1);
    fx_finish(t);

    CHECK(r->idx->parent == NULL); /* built on first use */
    const uint32_t *p = parents(r);
    CHECK(parents(r) == p); /* once */
    CHECK_INT(p[A], KT_NONE);
    CHECK_INT(p[B], A);
    CHECK_INT(p[C], A);
    CHECK_INT(p[D], A);
    CHECK_INT(p[E], KT_NONE);
    CHECK_INT(p[F], A);
    CHECK_INT(p[G], KT_NONE);
    CHECK_INT(p[H], KT_NONE);
    CHECK_INT(p[I], KT_NONE);
    CHECK_INT(p[J], I);
    CHECK_INT(p[K], KT_NONE);
    CHECK_INT(p[kern], KT_NONE);
    free_trace(t);
}

/* The launcher op skips python_function and annotations; a launch with
 * only an annotation above it has no launcher op.                        */
TEST(index_launcher_op_skips_python_and_annotations)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t L = X("cpu_op", "aten::linear", 0, 100000, 1, -1, -1);
    X("python_function", "torch/nn/functional.py(12): linear", 1000, 90000, 1, -1, -1);
    X("user_annotation", "my_region", 2000, 80000, 1, -1, -1);
    X("cuda_runtime", "cudaLaunchKernel", 3000, 1000, 1, -1, 21);
    X("user_annotation", "other_region", 200000, 10000, 1, -1, -1);
    X("cuda_runtime", "cudaLaunchKernel", 201000, 1000, 1, -1, 22);
    uint32_t k1 = GPU("kernel", "gemm", 5000, 100, 0, 7, 21);
    uint32_t k2 = GPU("kernel", "relu", 205000, 100, 0, 7, 22);
    fx_finish(t);

    CHECK_INT(kt_launcher_op(r, k1), L);
    CHECK(kt_gpu_launcher(r, k2) != KT_NONE);
    CHECK_INT(kt_launcher_op(r, k2), KT_NONE);
    free_trace(t);
}

/* CPU steps 3 [0,1e6) and 4 [1e6,2e6); GPU step 3 on device 0 [50000,1.1e6).
 * k1 runs at 1.05e6 inside GPU step 3 although launched in CPU step 4;
 * k2 (device 0) runs outside every GPU step → its launch's CPU step;
 * k3 on device 1 has no GPU steps there → launch's CPU step (3).          */
TEST(index_steps_cpu_and_gpu)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    X("user_annotation", "ProfilerStep#4", 1000000, 1000000, 1, -1, -1);
    uint32_t s3 = X("user_annotation", "ProfilerStep#3", 0, 1000000, 1, -1, -1);
    X("user_annotation", "ProfilerStepX", 0, 3000000, 1, -1, -1);
    uint32_t l1 = X("cuda_runtime", "cudaLaunchKernel", 1010000, 100, 1, -1, 1);
    X("cuda_runtime", "cudaLaunchKernel", 1500000, 100, 1, -1, 2);
    X("cuda_runtime", "cudaLaunchKernel", 500000, 100, 1, -1, 3);
    uint32_t late = X("cpu_op", "aten::add", 2500000, 100, 1, -1, -1);
    uint32_t g3 = GPU("gpu_user_annotation", "ProfilerStep#3", 50000, 1050000, 0, 7, -1);
    uint32_t k1 = GPU("kernel", "k1", 1050000, 100, 0, 7, 1);
    uint32_t k2 = GPU("kernel", "k2", 1600000, 100, 0, 7, 2);
    uint32_t k3 = GPU("kernel", "k3", 600000, 100, 1, 7, 3);
    uint32_t orphan = GPU("kernel", "k4", 1900000, 100, 0, 9, -1);
    fx_finish(t);

    CHECK_INT(r->idx->ncpu_steps, 2);
    CHECK_INT(r->idx->cpu_steps[0].num, 3);
    CHECK_INT(r->idx->cpu_steps[0].ev, s3);
    CHECK_INT(r->idx->cpu_steps[1].num, 4);
    CHECK_INT(r->idx->cpu_steps[1].dur, 1000000);
    CHECK_INT(r->idx->ngpu_steps, 1);
    CHECK_INT(r->idx->gpu_steps[0].ev, g3);
    CHECK_INT(kt_event_step(r, l1), 4);
    CHECK_INT(kt_event_step(r, s3), 3);
    CHECK_INT(kt_event_step(r, late), -1);
    CHECK_INT(kt_event_step(r, k1), 3);
    CHECK_INT(kt_event_step(r, k2), 4);
    CHECK_INT(kt_event_step(r, k3), 3);
    CHECK_INT(kt_event_step(r, orphan), -1);
    CHECK_INT(kt_profiler_step_number("ProfilerStep # 12"), 12);
    CHECK_INT(kt_profiler_step_number("ProfilerStep#"), -1);
    CHECK_INT(kt_profiler_step_number("xProfilerStep#1"), -1);
    free_trace(t);
}

/* One cursor over kernels in time order, then backwards, then alternating
 * devices: GPU steps 1 [0,1000) and 2 [1000,2000) on device 0, step 9
 * [500,1500) on device 1 written last, overlapping both; CPU step 5
 * [0,5000) for the launches of the kernels no GPU step holds.  Every
 * answer by hand, and each equal to kt_event_step's.                      */
TEST(index_step_cursor_equals_fresh_lookups)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    X("user_annotation", "ProfilerStep#5", 0, 5000, 1, -1, -1);
    GPU("gpu_user_annotation", "ProfilerStep#1", 0, 1000, 0, 7, -1);
    GPU("gpu_user_annotation", "ProfilerStep#2", 1000, 1000, 0, 7, -1);
    GPU("gpu_user_annotation", "ProfilerStep#9", 500, 1000, 1, 7, -1);
    static const struct { int64_t ts, device, step; } k[] = {
        { 0, 0, 1 },    { 400, 0, 1 },  { 999, 0, 1 },  { 1000, 0, 2 },  { 1999, 0, 2 },
        { 2000, 0, 5 }, { 2500, 0, 5 }, { 100, 1, 5 },  { 500, 1, 9 },   { 1400, 1, 9 },
        { 1500, 1, 5 }, { 4000, 1, 5 },
    };
    enum { N = sizeof k / sizeof *k };
    uint32_t ev[N];
    for (int i = 0; i < N; i++) {
        X("cuda_runtime", "cudaLaunchKernel", 10 + i, 5, 1, -1, 100 + i);
        ev[i] = GPU("kernel", "k", k[i].ts, 10, k[i].device, 7, 100 + i);
    }
    fx_finish(t);
    static const int orders[][N] = {
        { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 },
        { 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
        { 0, 7, 1, 8, 2, 9, 3, 10, 4, 11, 5, 6 },
    };
    for (size_t o = 0; o < sizeof orders / sizeof *orders; o++) {
        kt_step_cursor c = { 0 };
        for (int j = 0; j < N; j++) {
            int i = orders[o][j];
            int64_t got = kt_event_step_at(r, ev[i], &c);
            if (got != k[i].step || kt_event_step(r, ev[i]) != k[i].step)
                kt_test_fail(__FILE__, __LINE__, "order %zu: kernel at %" PRId64 " on device %" PRId64
                             ": step %" PRId64 ", expected %" PRId64, o, k[i].ts, k[i].device, got, k[i].step);
        }
    }
    free_trace(t);
}

/* ac2g id 10: s then f; an f without s (id 11); fwdbwd reusing id 10 pairs
 * separately; a repeated ac2g id pairs first-with-first.                   */
TEST(index_flows_pair_by_cat_and_id)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t s1 = fx_event(t, r, 's', "ac2g", "ac2g", 100, -1, CPU_PID, 1, -1, 10);
    uint32_t fb_s = fx_event(t, r, 's', "fwdbwd", "fwdbwd", 150, -1, CPU_PID, 1, -1, 10);
    fx_event(t, r, 'f', "ac2g", "ac2g", 300, -1, 0, 7, -1, 11);
    uint32_t f1 = fx_event(t, r, 'f', "ac2g", "ac2g", 200, -1, 0, 7, -1, 10);
    uint32_t fb_f = fx_event(t, r, 'f', "fwdbwd", "fwdbwd", 900, -1, CPU_PID, 2, -1, 10);
    uint32_t s2 = fx_event(t, r, 's', "ac2g", "ac2g", 1000, -1, CPU_PID, 1, -1, 10);
    uint32_t f2 = fx_event(t, r, 'f', "ac2g", "ac2g", 1100, -1, 0, 7, -1, 10);
    fx_finish(t);

    CHECK_INT(kt_index_flows(r), KT_OK);
    CHECK_INT(r->idx->nflows, 3);
    CHECK_INT(r->idx->flows[0].start, s1);
    CHECK_INT(r->idx->flows[0].end, f1);
    CHECK_INT(r->idx->flows[1].start, fb_s);
    CHECK_INT(r->idx->flows[1].end, fb_f);
    CHECK_INT(r->idx->flows[2].start, s2);
    CHECK_INT(r->idx->flows[2].end, f2);
    free_trace(t);
}

/* Kineto often writes a flow's end (ph f) before its start: they still
 * pair (the H100 traces have every ac2g flow in that order).              */
TEST(index_flows_pair_end_before_start)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t f1 = fx_event(t, r, 'f', "ac2g", "ac2g", 200, -1, 0, 7, -1, 10);
    uint32_t f2 = fx_event(t, r, 'f', "ac2g", "ac2g", 300, -1, 0, 7, -1, 11);
    uint32_t s1 = fx_event(t, r, 's', "ac2g", "ac2g", 100, -1, CPU_PID, 1, -1, 10);
    uint32_t s2 = fx_event(t, r, 's', "ac2g", "ac2g", 150, -1, CPU_PID, 1, -1, 11);
    fx_finish(t);
    CHECK_INT(kt_index_flows(r), KT_OK);
    CHECK_INT(r->idx->nflows, 2);
    CHECK_INT(r->idx->flows[0].start, s1);
    CHECK_INT(r->idx->flows[0].end, f1);
    CHECK_INT(r->idx->flows[1].start, s2);
    CHECK_INT(r->idx->flows[1].end, f2);
    free_trace(t);
}

/* 40 starts share id 5 (20 ac2g, 20 fwdbwd interleaved: more than the
 * insertion limit for ordering shared ids by category); ends in the
 * opposite category order still pair k-th with k-th within each category. */
TEST(index_flows_pair_many_sharing_an_id)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t s_ac[20], s_fb[20], f_ac[20], f_fb[20];
    for (int k = 0; k < 20; k++) {
        s_ac[k] = fx_event(t, r, 's', "ac2g", "ac2g", 100 + k, -1, CPU_PID, 1, -1, 5);
        s_fb[k] = fx_event(t, r, 's', "fwdbwd", "fwdbwd", 100 + k, -1, CPU_PID, 1, -1, 5);
    }
    for (int k = 0; k < 20; k++) {
        f_fb[k] = fx_event(t, r, 'f', "fwdbwd", "fwdbwd", 500 + k, -1, CPU_PID, 2, -1, 5);
        f_ac[k] = fx_event(t, r, 'f', "ac2g", "ac2g", 500 + k, -1, 0, 7, -1, 5);
    }
    fx_finish(t);
    CHECK_INT(kt_index_flows(r), KT_OK);
    CHECK_INT(r->idx->nflows, 40);
    for (int k = 0; k < 20; k++) {
        CHECK_INT(r->idx->flows[2 * k].start, s_ac[k]);
        CHECK_INT(r->idx->flows[2 * k].end, f_ac[k]);
        CHECK_INT(r->idx->flows[2 * k + 1].start, s_fb[k]);
        CHECK_INT(r->idx->flows[2 * k + 1].end, f_fb[k]);
    }
    free_trace(t);
}

/* The origin is the earliest complete event over all ranks, ignoring
 * metadata (ts 0) and the profiler's Trace span.                         */
TEST(index_trace_align_origin)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'M', "", "process_name", 0, -1, CPU_PID, 0, -1, -1);
    fx_event(t, r, 'X', "Trace", "PyTorch Profiler (0)", 500, 100000, CPU_PID, 0, -1, -1);
    X("cpu_op", "aten::mm", 7000, 10, 1, -1, -1);
    kt_rank *r1 = fx_rank(t, 1);
    fx_event(t, r1, 'X', "cpu_op", "aten::mm", 5000, 10, CPU_PID, 1, -1, -1);
    fx_event(t, r1, 'i', "cpu_instant_event", "[memory]", 10, -1, CPU_PID, 1, -1, -1);
    fx_finish(t);
    CHECK_INT(t->min_ts, 5000);
    free_trace(t);
}

TEST(index_empty_rank)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_finish(t);
    CHECK_INT(r->idx->nstreams, 0);
    CHECK_INT(r->idx->ncpu_steps, 0);
    CHECK_INT(r->idx->nflows, 0);
    CHECK_INT(t->min_ts, 0);
    free_trace(t);
}

/* 20 events sharing one start (more than the insertion-sort run limit),
 * written shortest first: the longer encloses the shorter.               */
TEST(index_call_tree_long_equal_start_run)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t ev[20];
    for (int k = 0; k < 20; k++) ev[k] = X("cpu_op", "op", 5000, 100 * (k + 1), 1, -1, -1);
    fx_finish(t);
    for (int k = 0; k < 19; k++) CHECK_INT(parents(r)[ev[k]], ev[k + 1]);
    CHECK_INT(parents(r)[ev[19]], KT_NONE);
    free_trace(t);
}

/* Few ascending runs take the merge path, many the radix path: both
 * stable and equal to a reference insertion sort.                         */
TEST(sort_ids_merge_and_radix_paths)
{
    for (int runs = 1; runs <= 200; runs *= 7) {
        size_t n = 1000;
        int64_t *col = malloc(n * sizeof *col);
        uint32_t *ids = malloc(n * sizeof *ids), *ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) {
            col[i] = (int64_t)((i * (size_t)runs) % n) / 3 - 100; /* runs ascending runs, ties */
            ids[i] = ref[i] = (uint32_t)i;
        }
        for (size_t k = 1; k < n; k++) { /* stable insertion sort */
            uint32_t v = ref[k];
            size_t j = k;
            for (; j > 0 && col[ref[j - 1]] > col[v]; j--) ref[j] = ref[j - 1];
            ref[j] = v;
        }
        CHECK(kt_sort_ids_by_i64(ids, n, col));
        for (size_t i = 0; i < n; i++) CHECK_INT(ids[i], ref[i]);
        free(col);
        free(ids);
        free(ref);
    }
}

/* Threads are told apart by (pid, tid), however many and however
 * interleaved; each thread's events may come out of start order.          */
TEST(index_call_tree_many_interleaved_threads)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    enum { NT = 100 };
    uint32_t child[NT], parent[NT], other_pid[NT];
    for (int k = 0; k < NT; k++) /* children first: out of start order */
        child[k] = X("cuda_runtime", "c", 2000 + k, 10, k, -1, -1);
    for (int k = 0; k < NT; k++) {
        parent[k] = X("cpu_op", "p", 1000, 5000, k, -1, -1);
        other_pid[k] = fx_event(t, r, 'X', "cpu_op", "q", 1500, 10000, CPU_PID + 1, k, -1, -1);
    }
    fx_finish(t);
    for (int k = 0; k < NT; k++) {
        CHECK_INT(parents(r)[child[k]], parent[k]);
        CHECK_INT(parents(r)[parent[k]], KT_NONE);
        CHECK_INT(parents(r)[other_pid[k]], KT_NONE);
    }
    free_trace(t);
}

static uint32_t *copy_u32(const uint32_t *a, size_t n)
{
    uint32_t *c = malloc(n * sizeof *c);
    for (size_t i = 0; i < n; i++) c[i] = a[i];
    return c;
}

/* A rank large enough for the two-thread build gets the same index. */
TEST(index_two_threads_same_as_one)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    for (int k = 0; k < 70000; k++) {
        int64_t ts = 1000 * (int64_t)k;
        X("cpu_op", "op", ts, 900, k % 3, -1, -1);
        X("cuda_runtime", "cudaLaunchKernel", ts + 100, 200, k % 3, -1, k);
        GPU("kernel", "k", ts + 500, 300, 0, 7 + k % 2, k);
    }
    fx_finish(t);
    size_t n = r->ev.n;
    CHECK_INT(kt_index_build_threads(r, t->strs, 1), KT_OK);
    uint32_t *parent = copy_u32(parents(r), n), *link = copy_u32(r->idx->link, n);
    CHECK_INT(kt_index_build_threads(r, t->strs, 2), KT_OK);
    size_t diff = 0;
    for (size_t i = 0; i < n; i++)
        diff += parent[i] != parents(r)[i] || link[i] != r->idx->link[i];
    CHECK_INT(diff, 0);
    CHECK_INT(parents(r)[1], 0);   /* the first launch sits in the first op */
    CHECK_INT(kt_gpu_launcher(r, 2), 1); /* and launched the first kernel */
    CHECK_INT(r->idx->nstreams, 2);
    free(parent);
    free(link);
    free_trace(t);
}

/* The call tree is built once even when several threads ask at once. */
static void *ask_call_tree(void *arg)
{
    return (void *)(intptr_t)kt_index_call_tree(arg);
}

TEST(index_call_tree_built_once_for_concurrent_askers)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t outer = fx_event(t, r, 'X', "cpu_op", "outer", 0, 100, CPU_PID, 1, -1, -1);
    uint32_t inner = fx_event(t, r, 'X', "cpu_op", "inner", 10, 50, CPU_PID, 1, -1, -1);
    fx_finish(t);
    CHECK(r->idx->parent == NULL);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) CHECK_INT(pthread_create(&th[i], NULL, ask_call_tree, r), 0);
    for (int i = 0; i < 4; i++) {
        void *st;
        pthread_join(th[i], &st);
        CHECK_INT((intptr_t)st, KT_OK);
    }
    CHECK_INT(r->idx->parent[inner], outer);
    CHECK_INT(r->idx->parent[outer], KT_NONE);
    free_trace(t);
}

/* kt_alloc_written hands back memory whose pages are already in (what
 * makes the analyses' arrays cheaper to fill, lib/model/prefault.c): every
 * page of a 4 MiB block is resident before it is written; 0 bytes is a
 * valid block too.  Where MADV_POPULATE_WRITE is missing nothing is
 * faulted in ahead, and only the sizes are checked.                       */
TEST(alloc_written_pages_are_in_before_the_first_write)
{
    void *none = kt_alloc_written(0);
    CHECK(none != NULL);
    free(none);
    size_t n = (size_t)4 << 20, page = 4096;
    char *p = kt_alloc_written(n);
    CHECK(p != NULL);
    if (!p) return;
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1), to = ((uintptr_t)p + n) & ~(page - 1);
    size_t pages = (to - from) / page;
    unsigned char *in = malloc(pages);
    CHECK(in != NULL && mincore((void *)from, to - from, in) == 0);
#ifdef MADV_POPULATE_WRITE
    size_t resident = 0;
    for (size_t i = 0; in && i < pages; i++) resident += in[i] & 1;
    CHECK_INT(resident, (long long)pages);
#endif
    memset(p, 7, n);
    CHECK_INT(p[n - 1], 7);
    free(in);
    free(p);
}

/* Ids of one ts ordered longer first, stably, both ways (insertion sort
 * for up to 16, radix above): negative durations after every other as
 * written, or as 0 (ties with 0, file order kept) under clamp.  By hand:
 * durs 5, -2, 0, 5, -7, 3 -> as written 0 3 5 2 1 4; clamped 0 3 5 1 2 4. */
TEST(sort_ids_longer_first_as_written_and_clamped)
{
    const int64_t dur[] = { 5, -2, 0, 5, -7, 3 };
    const uint32_t written[] = { 0, 3, 5, 2, 1, 4 }, clamped[] = { 0, 3, 5, 1, 2, 4 };
    for (int big = 0; big < 2; big++) { /* big: each id 4 times (24 > 16) */
        uint32_t ids[24], want_w[24], want_c[24];
        size_t n = big ? 24 : 6, reps = n / 6;
        for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)(i / reps);
        for (size_t i = 0; i < n; i++) want_w[i] = written[i / reps], want_c[i] = clamped[i / reps];
        uint32_t c[24];
        memcpy(c, ids, sizeof c);
        CHECK(kt_sort_ids_longer_first(ids, n, dur, false));
        CHECK(kt_sort_ids_longer_first(c, n, dur, true));
        CHECK(memcmp(ids, want_w, n * sizeof *ids) == 0);
        CHECK(memcmp(c, want_c, n * sizeof *c) == 0);
    }
}

/* Queues are (device, stream) in the devices' and streams' value order,
 * whatever order their events came in: devices beyond the id columns'
 * inline range (kept in the side table, out of value order there), two
 * threads on one stream (one queue), stream -1; each queue in ts order,
 * ties in file order; a stream-less cuda_sync on none.                   */
TEST(index_streams_by_device_then_stream)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    const int64_t big = 5000000000, neg = -3000000000;
    uint32_t b7a = fx_event(t, r, 'X', "kernel", "k", 500, 10, big, 7, 7, -1);
    uint32_t n2 = fx_event(t, r, 'X', "kernel", "k", 400, 10, neg, 2, 2, -1);
    uint32_t b7b = fx_event(t, r, 'X', "kernel", "k", 300, 10, big, 8, 7, -1); /* other thread, same stream */
    uint32_t o3 = fx_event(t, r, 'X', "kernel", "k", 200, 10, 1, 3, 3, -1);
    uint32_t o1 = fx_event(t, r, 'X', "gpu_memcpy", "m", 200, 10, 1, 1, 1, -1);
    uint32_t om = fx_event(t, r, 'X', "kernel", "k", 100, 10, 1, 9, -1, -1);
    uint32_t sync = fx_event(t, r, 'X', "cuda_sync", "Context Sync", 50, 10, 1, 1, -1, -1);
    uint32_t b7c = fx_event(t, r, 'X', "kernel", "k", 500, 10, big, 8, 7, -1); /* ts tie with b7a */
    uint32_t o3b = fx_event(t, r, 'X', "kernel", "k", 150, 10, 1, 3, 3, -1);
    fx_finish(t);
    (void)sync;
    struct { int64_t device; int32_t stream; size_t n; uint32_t ev[3]; } want[] = {
        { neg, 2, 1, { n2 } },     { 1, -1, 1, { om } },          { 1, 1, 1, { o1 } },
        { 1, 3, 2, { o3b, o3 } }, { big, 7, 3, { b7b, b7a, b7c } },
    };
    CHECK_INT(r->idx->nstreams, 5);
    for (size_t q = 0; q < 5 && q < r->idx->nstreams; q++) {
        const kt_gpu_stream *s = &r->idx->streams[q];
        CHECK_INT(s->device, want[q].device);
        CHECK_INT(s->stream, want[q].stream);
        CHECK_INT(s->n, want[q].n);
        for (size_t i = 0; i < want[q].n && i < s->n; i++) CHECK_INT(s->ev[i], want[q].ev[i]);
    }
    free_trace(t);
}

/* Stable reference order of n keys: by key, then by first position. */
static void reference_order(const int64_t *col, uint32_t n, keyed *ref)
{
    for (uint32_t i = 0; i < n; i++) ref[i] = (keyed){ col[i], i };
    qsort(ref, n, sizeof *ref, by_key_then_pos);
}

/* col[] sorted by every entry point (ids by a column, keys with ids, keys
 * alone) equals the stable reference.                                    */
static void check_sorts_agree(const int64_t *col, uint32_t n, const char *what)
{
    keyed *ref = malloc(n * sizeof *ref);
    uint64_t *keys = malloc(n * sizeof *keys), *alone = malloc(n * sizeof *alone);
    uint32_t *ids = malloc(n * sizeof *ids), *by_col = malloc(n * sizeof *by_col);
    reference_order(col, n, ref);
    for (uint32_t i = 0; i < n; i++) keys[i] = alone[i] = kt_radix_key_i64(col[i]), ids[i] = by_col[i] = i;
    CHECK(kt_radix_sort(keys, ids, n));
    CHECK(kt_radix_sort(alone, NULL, n));
    CHECK(kt_sort_ids_by_i64(by_col, n, col));
    size_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += ids[i] != ref[i].pos || keys[i] != kt_radix_key_i64(ref[i].key) || alone[i] != keys[i] ||
               by_col[i] != ref[i].pos;
    if (bad) kt_test_fail(__FILE__, __LINE__, "%s: %zu of %u out of place", what, bad, n);
    free(ref), free(keys), free(alone), free(ids), free(by_col);
}

/* Starts of records written in end order: each record's start a few
 * places after its place in start order (many descents, few moves).
 * Durations from a small LCG, some records sharing a start.              */
static void completion_order_starts(int64_t *col, uint32_t n, uint32_t queues)
{
    uint64_t x = 12345;
    int64_t end = 1700000000000000000;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        end += (int64_t)(x >> 60) * 5;                           /* ends ascending, some equal */
        int64_t dur = (int64_t)((x >> 33) % (40u * queues)) * 5; /* up to ~8 queues' worth back */
        col[i] = end - dur;
    }
}

/* Ids by a column in completion order (many descents, each a few places
 * out of order) take the insertion path; disordered inputs give up on it
 * (at once, or after a nearly sorted first part) and take the radix
 * passes: every sort (the keys' ones as well) equals the stable reference
 * on each, with ties.                                                    */
TEST(sorts_nearly_sorted_and_disordered_keys_stably)
{
    enum { N = 40000 };
    int64_t *col = malloc(N * sizeof *col);
    completion_order_starts(col, N, 8);
    size_t descents = 0;
    for (uint32_t i = 1; i < N; i++) descents += col[i] < col[i - 1];
    CHECK(descents > 1000); /* beyond the merge's 256 runs */
    check_sorts_agree(col, N, "completion order");
    for (uint32_t i = N / 2; i < N; i++) col[i] = (int64_t)((i * 2654435761u) % 1000); /* then disorder */
    check_sorts_agree(col, N, "nearly sorted, then disordered");
    for (uint32_t i = 0; i < N; i++) col[i] = (int64_t)((i * 2654435761u) % 997) - 500; /* random, tied */
    check_sorts_agree(col, N, "random with ties");
    for (uint32_t i = 0; i < N; i++) col[i] = (int64_t)(N - i) / 3; /* reversed, tied in threes */
    check_sorts_agree(col, N, "reversed");
    for (uint32_t i = 0; i < N; i++) col[i] = (int64_t)i / 3 + ((i % 2) ? 1 : 0); /* pairs swapped, ties */
    check_sorts_agree(col, N, "neighbours swapped");
    for (uint32_t i = 0; i < N; i++) col[i] = (int64_t)i * 7 - 100;
    check_sorts_agree(col, N, "sorted");
    free(col);
}

/* GPU work without any launch call (a kernel trace alone): no links either
 * way, no launched groups; a runtime call without a correlation id is no
 * launch call.                                                          */
TEST(index_gpu_work_without_launch_calls)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t rt = X("cuda_runtime", "hipDeviceSynchronize", 50, 10, 1, -1, -1);
    uint32_t k1 = GPU("kernel", "a", 300, 10, 0, 0, 7);
    uint32_t k2 = GPU("kernel", "b", 100, 10, 0, 1, 8);
    fx_finish(t);
    const uint32_t *evs;
    CHECK_INT(kt_gpu_launcher(r, k1), KT_NONE);
    CHECK_INT(kt_gpu_launcher(r, k2), KT_NONE);
    CHECK_INT(kt_launched_events(r, rt, &evs), 0);
    CHECK_INT(r->idx->launched_len, 0);
    CHECK_INT(r->idx->nstreams, 2);
    free_trace(t);
}
