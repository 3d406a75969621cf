/* test_hta_compat.c — HTA's load semantics (drops, ns rounding, incomplete-
 * step filtering) on hand-built traces with hand-computed answers.       */
#include "test.h"
#include "fixture.h"

#include <stdlib.h>

#define US 1000 /* ns */
#define CPU_PID 100

static uint32_t cpu(kt_trace *t, kt_rank *r, const char *cat, const char *name, int64_t ts_us,
                    int64_t dur_us, int64_t corr)
{
    return fx_event(t, r, 'X', cat, name, ts_us * US, dur_us * US, CPU_PID, 1, -1, corr);
}

static uint32_t gpu(kt_trace *t, kt_rank *r, const char *cat, const char *name, int64_t ts_us,
                    int32_t stream, int64_t corr)
{
    return fx_event(t, r, 'X', cat, name, ts_us * US, 5 * US, 0, stream, stream, corr);
}

static const char *name_at(kt_trace *t, kt_rank *r, uint32_t i)
{
    return kt_strtab_get(t->strs, r->ev.name[i]);
}

/* A2.3 on a ns rank: 100.7 µs + 0.2 → ts 101, end 100, dur -1; 100.0 + 0.5
 * → dur 0.  At epoch scale the double has 0.25 µs steps: 1712195495984501.1
 * µs reads as ...501.0 (ceil 501, not 502) and ...501.0 + 0.9 as 502.0, so
 * HTA gets ts 501, dur 1 where exact arithmetic would give 502, 0.  A µs
 * rank is not rounded.  Non-complete events and the Trace span go.        */
TEST(hta_compat_ns_rounding_and_drops)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    r->ns_resolution = true;
    fx_event(t, r, 'M', "", "process_name", 0, -1, CPU_PID, 0, -1, -1);
    fx_event(t, r, 'X', "Trace", "PyTorch Profiler (0)", 0, 10 * US, CPU_PID, 0, -1, -1);
    fx_event(t, r, 's', "ac2g", "ac2g", 100700, -1, CPU_PID, 1, -1, 1);
    fx_event(t, r, 'i', "cpu_instant_event", "[memory]", 100700, -1, CPU_PID, 1, -1, -1);
    fx_event(t, r, 'X', "cpu_op", "a", 100700, 200, CPU_PID, 1, -1, -1);
    fx_event(t, r, 'X', "cpu_op", "b", 100000, 500, CPU_PID, 1, -1, -1);
    fx_event(t, r, 'X', "kernel", "c", 1712195495984501100, 900, 0, 7, 7, -1);
    kt_rank *r1 = fx_rank(t, 1);
    fx_event(t, r1, 'X', "cpu_op", "d", 100700, 200, CPU_PID, 1, -1, -1);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);

    CHECK_INT(r->ev.n, 3);
    CHECK_STR(name_at(t, r, 0), "a");
    CHECK_INT(r->ev.ts[0], 101 * US);
    CHECK_INT(r->ev.dur[0], -1 * US);
    CHECK_INT(r->ev.ts[1], 100 * US);
    CHECK_INT(r->ev.dur[1], 0);
    CHECK_INT(r->ev.ts[2], 1712195495984501 * US);
    CHECK_INT(r->ev.dur[2], 1 * US);
    CHECK_INT(r1->ev.n, 1);
    CHECK_INT(r1->ev.ts[0], 100700);
    CHECK_INT(r1->ev.dur[0], 200);
    CHECK_INT(t->min_ts, 100 * US);
    kt_trace_free(t);
}

/* Epoch times in ns exceed 2^53, where pandas' float64 of the µs decimal
 * rounds to 0.25 µs steps, ties to even: ...501.125 reads as ...501.0
 * (ceil 501), ...501.375 as ...501.5 (ceil 502), as Python's float()
 * gives.  Checked by hand on those two, then against strtod of the same
 * decimal text (correctly rounded, as float() is) on 200000 values,
 * a quarter of them ties.                                                 */
static double ref_us(int64_t ns)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%" PRId64 "e-3", ns);
    return strtod(buf, NULL);
}

TEST(hta_compat_ns_rounding_past_2_53_matches_float_text)
{
    int64_t ts = 1712195495984501125, dur = 0;
    kt_hta_round_us(&ts, &dur);
    CHECK_INT(ts, 1712195495984501 * US);
    ts = 1712195495984501375, dur = 250;
    kt_hta_round_us(&ts, &dur);
    CHECK_INT(ts, 1712195495984502 * US);
    CHECK_INT(dur, -1 * US); /* end ...501.625 reads as ...501.5: floor 501 */
    uint64_t x = 88172645463325252u;
    int bad = 0;
    for (int k = 0; k < 200000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t t0 = ((int64_t)1 << 53) + (int64_t)(x % ((uint64_t)1 << 62)), d0 = (int64_t)(x >> 44);
        if (k % 4 == 0) t0 -= t0 % 125;
        int64_t t = t0, d = d0;
        kt_hta_round_us(&t, &d);
        double start = ref_us(t0);
        int64_t want_ts = (int64_t)ceil(start), want_end = (int64_t)floor(start + ref_us(d0));
        bad += t != want_ts * US || d != (want_end - want_ts) * US;
    }
    CHECK_INT(bad, 0);
}

/* Steps #1 [10,1000) and #2 [1000,2000) µs.  Kept CPU rows start before
 * 1000.  GPU rows (stream >= 0 and corr >= 0, or Event Sync) stay once per
 * kept CPU row with their correlation: corr 5 has two launches → twice.
 * A kernel with corr -1 counts as a CPU row.  The orphan at ts 0 is
 * dropped but still set the origin.  Rank 1 has no step: it loses all.   */
TEST(hta_compat_drops_last_step_and_unlaunched_gpu_work)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    cpu(t, r, "user_annotation", "ProfilerStep#1", 10, 990, -1);
    cpu(t, r, "user_annotation", "ProfilerStep#2", 1000, 1000, -1);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 100, 5, 1);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 200, 5, 5);
    cpu(t, r, "cuda_driver", "cuLaunchKernel", 201, 2, 5);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 1500, 5, 2);
    gpu(t, r, "kernel", "k1", 300, 7, 1);
    gpu(t, r, "kernel", "k5", 400, 7, 5);
    gpu(t, r, "kernel", "k2", 1600, 7, 2);
    gpu(t, r, "kernel", "orphan", 0, 7, 3);
    gpu(t, r, "kernel", "nocorr", 500, 7, -1);
    gpu(t, r, "kernel", "nocorr_late", 1700, 7, -1);
    fx_event(t, r, 'X', "cuda_sync", "Event Sync", 600 * US, US, 0, 7, -1, 1);
    kt_rank *r1 = fx_rank(t, 1);
    cpu(t, r1, "cpu_op", "aten::mm", 50, 10, -1);
    cpu(t, r1, "cuda_runtime", "cudaLaunchKernel", 55, 1, 9);
    gpu(t, r1, "kernel", "k9", 60, 7, 9);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);

    const char *want[] = { "ProfilerStep#1", "cudaLaunchKernel", "cudaLaunchKernel", "cuLaunchKernel",
                           "k1", "k5", "k5", "nocorr", "Event Sync" };
    CHECK_INT(r->ev.n, 9);
    for (size_t i = 0; i < 9 && i < r->ev.n; i++) CHECK_STR(name_at(t, r, (uint32_t)i), want[i]);
    CHECK_INT(t->min_ts, 0);
    CHECK_INT(r->idx->ncpu_steps, 1);
    CHECK_INT(kt_gpu_launcher(r, 4), 1); /* indexes rebuilt on the new rows */
    CHECK_INT(r1->ev.n, 0);
    kt_trace_free(t);
}

/* A device sync without a correlation (stream -1, corr -1) joins every
 * kept CPU row without one, as pandas merges -1 with -1: here the step #1
 * annotation and the kernel with corr -1 (a CPU row to HTA's filter), but
 * not step #2, which starts at the cut.                                   */
TEST(hta_compat_sync_without_correlation_joins_each_uncorrelated_row)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    cpu(t, r, "user_annotation", "ProfilerStep#1", 10, 990, -1);
    cpu(t, r, "user_annotation", "ProfilerStep#2", 1000, 1000, -1);
    gpu(t, r, "kernel", "nocorr", 500, 7, -1);
    fx_event(t, r, 'X', "cuda_sync", "Context Sync", 600 * US, US, 0, -1, -1, -1);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 700, 5, 4);
    gpu(t, r, "kernel", "k4", 800, 7, 4);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);

    const char *want[] = { "ProfilerStep#1", "nocorr", "Context Sync", "Context Sync", "cudaLaunchKernel", "k4" };
    CHECK_INT(r->ev.n, 6);
    for (size_t i = 0; i < 6 && i < r->ev.n; i++) CHECK_STR(name_at(t, r, (uint32_t)i), want[i]);
    CHECK_INT(r->summary.first_ts, 10 * US);
    CHECK_INT(r->summary.last_end, 1000 * US);
    kt_trace_free(t);
}

/* A GPU row repeated before any row was dropped: the rows that stay
 * outnumber those read so far, and none of the later rows may be lost.   */
TEST(hta_compat_repeats_before_any_drop_keep_later_rows)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 100, 5, 5);
    cpu(t, r, "cuda_driver", "cuLaunchKernel", 101, 2, 5);
    gpu(t, r, "kernel", "k5", 200, 7, 5);
    cpu(t, r, "user_annotation", "ProfilerStep#1", 300, 700, -1);
    cpu(t, r, "cpu_op", "aten::mm", 400, 10, -1);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 410, 5, 6);
    gpu(t, r, "kernel", "k6", 500, 7, 6);
    cpu(t, r, "user_annotation", "ProfilerStep#2", 1000, 1000, -1);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);

    const char *want[] = { "cudaLaunchKernel", "cuLaunchKernel", "k5", "k5", "ProfilerStep#1",
                           "aten::mm", "cudaLaunchKernel", "k6" };
    CHECK_INT(r->ev.n, 8);
    for (size_t i = 0; i < 8 && i < r->ev.n; i++) CHECK_STR(name_at(t, r, (uint32_t)i), want[i]);
    CHECK_INT(r->ev.ts[3], 200 * US);
    kt_trace_free(t);
}

/* One distinct ProfilerStep name in the whole job: HTA keeps everything. */
TEST(hta_compat_single_step_keeps_all)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    cpu(t, r, "user_annotation", "ProfilerStep#7", 10, 100, -1);
    cpu(t, r, "cuda_runtime", "cudaLaunchKernel", 50, 5, 1);
    gpu(t, r, "kernel", "orphan", 60, 7, 3);
    kt_rank *r1 = fx_rank(t, 1);
    cpu(t, r1, "user_annotation", "ProfilerStep#7", 10, 100, -1);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);
    CHECK_INT(r->ev.n, 3);
    CHECK_INT(r1->ev.n, 1);
    kt_trace_free(t);
}

/* MTIA (backend mtia:hccl): CPU-category rows inside [first step start,
 * last step end] = [0, 2000] µs, kernels launched from them, and memory
 * kernels starting inside a step (stream -1 patched to the tid).          */
TEST(hta_compat_mtia_variant)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    r->backend = kt_strtab_intern(t->strs, "mtia:hccl", 9);
    cpu(t, r, "user_annotation", "ProfilerStep#1", 0, 1000, -1);
    cpu(t, r, "user_annotation", "ProfilerStep#2", 1000, 1000, -1);
    cpu(t, r, "cpu_op", "aten::mm", 100, 100, -1);
    cpu(t, r, "mtia_runtime", "runFunction - job_prep_and_submit_for_execution", 300, 100, 7);
    cpu(t, r, "mtia_runtime", "runFunction - job_prep_and_submit_for_execution", 1900, 200, 8);
    cpu(t, r, "cpu_op", "aten::add", 2500, 10, -1);
    gpu(t, r, "mtia_ccp_events", "k7", 500, 3, 7);
    gpu(t, r, "mtia_ccp_events", "k8", 2200, 3, 8);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy DtoD", 1500 * US, US, 0, 3, -1, -1);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy DtoD", 2500 * US, US, 0, 3, -1, -1);
    fx_finish(t);
    CHECK_INT(kt_apply_hta_compat(t), KT_OK);

    const char *want[] = { "ProfilerStep#1", "ProfilerStep#2", "aten::mm",
                           "runFunction - job_prep_and_submit_for_execution", "k7", "Memcpy DtoD" };
    CHECK_INT(r->ev.n, 6);
    for (size_t i = 0; i < 6 && i < r->ev.n; i++) CHECK_STR(name_at(t, r, (uint32_t)i), want[i]);
    CHECK_INT(kt_ev_stream(&r->ev, 5), 3);
    kt_trace_free(t);
}

/* A rank big enough for every pass to run on two threads (the rows read,
 * the step filter, the columns moved): the last step starts past the
 * middle, so the first half's rows depend on the other half's cut and
 * launches.  1 thread and 2 give the same rows, times and summary: step
 * #1, the launches before step #2 and their kernels; every 1000th kernel
 * has no launch and goes, so each half keeps fewer rows than it read;
 * rounding moves each ts +300 ns up to the next µs.  With dups, launches
 * 10 and 110000 (one in each half of the rows) have a second launch row
 * with their correlation, so their kernels come twice (pandas' merge).   */
#define BIG_LAUNCHES 200000
#define BIG_STEP2 120000
#define BIG_KEPT (1 + 2 * (BIG_STEP2 - BIG_STEP2 / 1000)) /* step #1, launches, kernels */

static kt_trace *big_rank(bool dups)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    r->ns_resolution = true;
    fx_event(t, r, 'X', "user_annotation", "ProfilerStep#1", 300, 1000 * US, CPU_PID, 1, -1, -1);
    for (int64_t g = 0; g < BIG_LAUNCHES; g++) {
        if (g == BIG_STEP2)
            fx_event(t, r, 'X', "user_annotation", "ProfilerStep#2", g * 10 * US + 300, 1000 * US, CPU_PID,
                     1, -1, -1);
        if (g % 1000 != 999)
            fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", g * 10 * US + 300, 2 * US, CPU_PID, 1, -1, g);
        if (dups && (g == 10 || g == 110000))
            fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", g * 10 * US + 400, 2 * US, CPU_PID, 1, -1, g);
        fx_event(t, r, 'i', "cpu_instant_event", "[memory]", g * 10 * US, -1, CPU_PID, 1, -1, -1);
        fx_event(t, r, 'X', "kernel", "k", (g * 10 + 5) * US + 300, 3 * US, 0, 7, 7, g);
    }
    fx_finish(t);
    return t;
}

/* The rows of one and two, column by column: how many differ. */
static size_t rows_differ(const kt_trace *one, const kt_trace *two)
{
    const kt_events *a = &one->ranks[0]->ev, *b = &two->ranks[0]->ev;
    size_t diff = a->n != b->n;
    for (size_t i = 0; i < a->n && i < b->n; i++)
        diff += a->ts[i] != b->ts[i] || a->dur[i] != b->dur[i] || a->name[i] != b->name[i] ||
                a->cat[i] != b->cat[i] || a->ph[i] != b->ph[i] || a->kind[i] != b->kind[i] ||
                a->thread[i] != b->thread[i] || a->corr[i] != b->corr[i] || a->ext_id[i] != b->ext_id[i] ||
                a->argi[i] != b->argi[i] || a->nargs[i] != b->nargs[i] || a->args_at[i] != b->args_at[i];
    const kt_event_summary *x = &one->ranks[0]->summary, *y = &two->ranks[0]->summary;
    diff += x->first_ts != y->first_ts || x->last_end != y->last_end || x->origin != y->origin ||
            x->gpu_work != y->gpu_work || x->cuda_calls != y->cuda_calls;
    return diff + (one->min_ts != two->min_ts);
}

TEST(hta_compat_two_halves_match_one_thread)
{
    kt_trace *one = big_rank(false), *two = big_rank(false);
    CHECK_INT(kt_apply_hta_compat_threads(one, 1), KT_OK);
    CHECK_INT(kt_apply_hta_compat_threads(two, 2), KT_OK);
    const kt_events *a = &one->ranks[0]->ev;
    CHECK_INT(a->n, BIG_KEPT);
    CHECK_INT(a->ts[1], 1 * US);
    CHECK_INT(a->dur[1], 1 * US); /* ceil(0.3) = 1, floor(2.3) = 2 */
    CHECK_STR(kt_strtab_get(one->strs, a->name[a->n - 1]), "k");
    CHECK_INT(a->corr[a->n - 1], BIG_STEP2 - 2);
    /* the last kernel kept: 1199985.3 µs + 3 ends at floor(1199988.3) */
    CHECK_INT(one->ranks[0]->summary.last_end, ((BIG_STEP2 - 2) * 10 + 8) * US);
    CHECK_INT(rows_differ(one, two), 0);
    kt_trace_free(one);
    kt_trace_free(two);
}

/* Repeated rows in both halves: each half's rows outgrow its place in the
 * kept ids, and the two join in file order all the same.                 */
TEST(hta_compat_two_halves_with_repeats_match_one_thread)
{
    kt_trace *one = big_rank(true), *two = big_rank(true);
    CHECK_INT(kt_apply_hta_compat_threads(one, 1), KT_OK);
    CHECK_INT(kt_apply_hta_compat_threads(two, 2), KT_OK);
    const kt_events *a = &one->ranks[0]->ev;
    CHECK_INT(a->n, BIG_KEPT + 4);
    /* launch 10, its second launch, then kernel 10 twice */
    size_t at = 1 + 2 * 10;
    CHECK_INT(a->corr[at], 10);
    CHECK_INT(a->corr[at + 1], 10);
    CHECK_INT(a->kind[at + 2], a->kind[at + 3]);
    CHECK_STR(kt_strtab_get(one->strs, a->name[at + 2]), "k");
    CHECK_STR(kt_strtab_get(one->strs, a->name[at + 3]), "k");
    CHECK_INT(a->ts[at + 3], a->ts[at + 2]);
    CHECK_INT(rows_differ(one, two), 0);
    kt_trace_free(one);
    kt_trace_free(two);
}
