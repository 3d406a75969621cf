/* test_attribution.c — annotations, ops and cupti on hand-built traces
 * whose answers are computed by hand in the comments (times in ns). */
#include "fixture.h"
#include "test.h"

#include <stdlib.h>

static size_t col(const kt_table *t, const char *name)
{
    long c = kt_table_col_index(t, name);
    CHECK(c >= 0);
    return c < 0 ? 0 : (size_t)c;
}

/* Stream 7 of device 0: kernels K1 [100,200) K2 [300,400) K3 [500,600).
 * GPU annotations: "outer" [50,700) with a nested "outer" [60,690),
 * "inner" [250,450) around K2 and [480,650) around K3, and "broken" that
 * ends before it starts.                                                  */
static kt_trace *annotated(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "K1", 100, 100, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "K2", 300, 100, 0, 7, 7, 2);
    fx_event(t, r, 'X', "kernel", "K3", 500, 100, 0, 7, 7, 3);
    fx_event(t, r, 'X', "gpu_user_annotation", "outer", 50, 650, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "outer", 60, 630, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "inner", 250, 200, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "inner", 480, 170, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "broken", 800, -100, 0, 7, -1, -1);
    fx_finish(t);
    return t;
}

TEST(annotations_summary_counts_nesting_once)
{
    kt_trace *t = annotated();
    kt_tables *ts;
    CHECK_INT(kt_annotations(t, NULL, NULL, &ts), KT_OK);
    const kt_table *s = fx_table(ts, "summary");
    long outer = fx_row(s, "annotation", "outer", 0), inner = fx_row(s, "annotation", "inner", 0);
    CHECK(outer >= 0 && inner >= 0);
    /* outer: all three kernels once (300 ns) although two outer spans nest;
     * exclusively only K1 (K2, K3 are inside an inner span)              */
    CHECK_INT(fx_num(s, (size_t)outer, "instances"), 2);
    CHECK_INT(fx_num(s, (size_t)outer, "kernels"), 3);
    CHECK_NEAR(fx_num(s, (size_t)outer, "inclusive_us"), 0.3, 1e-12);
    CHECK_NEAR(fx_num(s, (size_t)outer, "exclusive_us"), 0.1, 1e-12);
    CHECK_NEAR(fx_num(s, (size_t)outer, "pct_of_kernel_time"), 100, 1e-9);
    CHECK_INT(fx_num(s, (size_t)inner, "kernels"), 2);
    CHECK_NEAR(fx_num(s, (size_t)inner, "exclusive_us"), 0.2, 1e-12);
    CHECK_INT(fx_row(s, "annotation", "broken", 0), -1);
    CHECK_STR(kt_table_str(s, 0, col(s, "source")), "gpu");
    /* kernels: the innermost annotation wins */
    const kt_table *k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 3);
    size_t lab = col(k, "s_user_annotation");
    CHECK_STR(kt_table_str(k, 0, lab), "outer");
    CHECK_STR(kt_table_str(k, 1, lab), "inner");
    CHECK_STR(kt_table_str(k, 2, lab), "inner");
    /* gpu breakdown: span statistics, nested spans double count */
    const kt_table *g = fx_table(ts, "gpu");
    long o = fx_row(g, "name", "outer", 0);
    CHECK(o >= 0);
    CHECK_NEAR(fx_num(g, (size_t)o, "sum (us)"), 1.28, 1e-12);
    CHECK_INT(fx_num(g, (size_t)o, "count"), 2);
    CHECK_INT(fx_row(g, "name", "broken", 0), -1);
    /* the span that ends before it starts is reported, not used */
    const kt_table *d = fx_table(ts, "diagnostics");
    CHECK_INT(kt_table_nrows(d), 1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* HTA's folding: with num_kernels = 1 only the largest name stays; the
 * rest fold into "others" unless allow-listed.                          */
TEST(annotations_fold_and_allow)
{
    kt_trace *t = annotated();
    kt_annotations_options o = kt_annotations_defaults();
    o.num_kernels = 1;
    o.duration_ratio = 1;
    kt_tables *ts;
    CHECK_INT(kt_annotations(t, NULL, &o, &ts), KT_OK);
    const kt_table *g = fx_table(ts, "gpu");
    CHECK_INT(kt_table_nrows(g), 2); /* outer, others(inner) */
    CHECK(fx_row(g, "name", "others", 0) >= 0);
    kt_tables_free(ts);
    const char *allow[] = { "inn" };
    o.allow = allow;
    o.nallow = 1;
    CHECK_INT(kt_annotations(t, NULL, &o, &ts), KT_OK);
    g = fx_table(ts, "gpu");
    CHECK(fx_row(g, "name", "inner", 0) >= 0);
    CHECK_INT(fx_row(g, "name", "others", 0), -1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Without GPU annotations the kernels are placed at their launch calls and
 * the CPU annotations around those calls count.                          */
TEST(annotations_cpu_source)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "user_annotation", "fwd", 0, 1000, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 100, 10, 1, 1, -1, 5);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 2000, 10, 1, 1, -1, 6);
    fx_event(t, r, 'X', "kernel", "K", 1500, 400, 0, 7, 7, 5);
    fx_event(t, r, 'X', "kernel", "K", 2100, 100, 0, 7, 7, 6);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_annotations(t, NULL, NULL, &ts), KT_OK);
    const kt_table *s = fx_table(ts, "summary");
    CHECK_INT(kt_table_nrows(s), 1);
    CHECK_STR(kt_table_str(s, 0, col(s, "source")), "cpu");
    CHECK_NEAR(fx_num(s, 0, "inclusive_us"), 0.4, 1e-12); /* the kernel launched inside "fwd" */
    CHECK_NEAR(fx_num(s, 0, "pct_of_kernel_time"), 80, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Thread 1: aten::mm [0,1000) launches K1 at 100 (kernel at 300) and K2
 * at 400 (kernel at 900).  Thread 2: aten::add [50,5000) wraps a launch
 * at 2000 on thread 2, and on thread 1 a bare launch at 3000 has no op
 * of its own.  HTA's any-thread rule gives every thread-1 launch to
 * thread 2's aten::add (it encloses them and starts later than aten::mm). */
static kt_trace *ops_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cpu_op", "aten::mm", 0, 1000, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 100, 10, 1, 1, -1, 1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 400, 10, 1, 1, -1, 2);
    fx_event(t, r, 'X', "cpu_op", "aten::add", 50, 4950, 1, 2, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 2000, 10, 1, 2, -1, 3);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 3000, 10, 1, 1, -1, 4);
    fx_event(t, r, 'X', "cuda_runtime", "hipLaunchKernel", 3500, 10, 1, 2, -1, 5);
    fx_event(t, r, 'X', "kernel", "K1", 300, 50, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "K2", 900, 50, 0, 7, 7, 2);
    fx_event(t, r, 'X', "kernel", "KA", 2500, 50, 0, 7, 7, 3);
    fx_event(t, r, 'X', "kernel", "KB", 3100, 50, 0, 7, 7, 4);
    fx_event(t, r, 'X', "kernel", "KH", 3600, 50, 0, 7, 7, 5);
    fx_finish(t);
    return t;
}

TEST(ops_own_thread_and_every_launch_api)
{
    kt_trace *t = ops_trace();
    kt_tables *ts;
    CHECK_INT(kt_ops(t, NULL, &ts), KT_OK);
    const kt_table *o = fx_table(ts, "ops");
    long mm = fx_row(o, "aten_op_name", "aten::mm", -1), add = fx_row(o, "aten_op_name", "aten::add", -1);
    CHECK(mm >= 0 && add >= 0);
    CHECK_STR(kt_table_str(o, (size_t)mm, col(o, "kernel_sequence")), "K1 -> K2");
    CHECK_NEAR(fx_num(o, (size_t)mm, "avg_aten_op_launch_delay"), 0.1, 1e-12); /* 100 - 0 ns */
    CHECK_NEAR(fx_num(o, (size_t)mm, "avg_runtime_delay"), 0.2, 1e-12);        /* 300 - 100 */
    /* aten::add: its own thread's launches, the HIP one included */
    CHECK_STR(kt_table_str(o, (size_t)add, col(o, "kernel_sequence")), "KA -> KH");
    const kt_table *u = fx_table(ts, "unmatched");
    CHECK_INT(fx_num(u, 0, "launches"), 5);
    CHECK_INT(fx_num(u, 0, "without_aten_op"), 1); /* the bare launch on thread 1 */
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(ops_hta_rule_any_thread)
{
    kt_trace *t = ops_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_ops(t, NULL, &ts), KT_OK);
    const kt_table *o = fx_table(ts, "ops");
    long add = fx_row(o, "aten_op_name", "aten::add", -1);
    CHECK(add >= 0);
    CHECK_INT(fx_row(o, "aten_op_name", "aten::mm", -1), -1);
    /* HTA: all four CUDA launches go to aten::add; hipLaunchKernel is no launch */
    CHECK_STR(kt_table_str(o, (size_t)add, col(o, "kernel_sequence")), "K1 -> K2 -> KA -> KB");
    CHECK_INT(fx_num(fx_table(ts, "unmatched"), 0, "launches"), 4);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* CUPTI: three ranges, two launches; the first range carries launch 11's
 * correlation, the others none: one pairs by correlation, and the other
 * two cannot pair by position with a single launch left.                 */
TEST(cupti_correlation_and_mismatched_counts)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t ffma = kt_strtab_intern(t->strs, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 51);
    uint32_t fadd = kt_strtab_intern(t->strs, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 51);
    fx_event(t, r, 'X', "cpu_op", "aten::mm", 0, 100, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 10, 5, 1, 1, -1, 11);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 200, 5, 1, 1, -1, 12);
    fx_event(t, r, 'X', "cuda_profiler_range", "gemm", 1000, 1000, 0, 0, -1, 11);
    fx_arg_int(r, KT_ARG_DYNAMIC + ffma, 1000);
    fx_arg_int(r, KT_ARG_DYNAMIC + fadd, 10);
    fx_event(t, r, 'X', "cuda_profiler_range", "b", 2000, 1000, 0, 0, -1, -1);
    fx_event(t, r, 'X', "cuda_profiler_range", "c", 3000, 1000, 0, 0, -1, -1);
    fx_finish(t);
    kt_tables *ts;
    kt_cupti_options o = { .size = sizeof o, .peak_tflops = 1 };
    CHECK_INT(kt_cupti(t, NULL, &o, &ts), KT_OK);
    const kt_table *m = fx_table(ts, "match"), *c = fx_table(ts, "counters");
    CHECK_INT(fx_num(m, 0, "matched_by_correlation"), 1);
    CHECK_INT(fx_num(m, 0, "matched_by_position"), 0);
    CHECK_INT(fx_num(m, 0, "unmatched"), 2);
    CHECK_STR(kt_table_str(c, 0, col(c, "match")), "correlation");
    CHECK_STR(kt_table_str(c, 0, col(c, "bottom_level_op")), "aten::mm");
    CHECK_STR(kt_table_str(c, 1, col(c, "match")), "none");
    CHECK_NEAR(fx_num(c, 0, "flops"), 2010, 0);            /* 2 × 1000 ffma + 10 fadd */
    CHECK_NEAR(fx_num(c, 0, "tflops_per_s"), 2010e-6, 1e-15); /* 2010 flops in 1 µs = 2.01 GFLOP/s */
    CHECK_NEAR(fx_num(c, 0, "pct_of_peak"), 0.201, 1e-12);
    kt_tables_free(ts);
    /* HTA: counts differ (3 ranges, 2 launches) → no rows for the rank */
    t->hta_compat = true;
    CHECK_INT(kt_cupti(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "counters")), 0);
    CHECK_INT(fx_num(fx_table(ts, "match"), 0, "ranges"), 3);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Ranges without any launch: reported, not paired, no crash. */
TEST(cupti_ranges_without_launches)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cuda_profiler_range", "a", 1000, 1000, 0, 0, -1, -1);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_cupti(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(fx_num(fx_table(ts, "match"), 0, "unmatched"), 1);
    const kt_table *c = fx_table(ts, "counters");
    CHECK_INT(kt_table_nrows(c), 1);
    CHECK(kt_table_is_null(c, 0, col(c, "flops")));
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* An empty trace and a trace of CPU ops only: every table empty, no error. */
TEST(attribution_empty_traces)
{
    kt_trace *t = fx_trace();
    fx_rank(t, 0);
    fx_finish(t);
    kt_trace *c = fx_trace();
    kt_rank *r = fx_rank(c, 0);
    fx_event(c, r, 'X', "cpu_op", "aten::mm", 0, 10, 1, 1, -1, -1);
    fx_event(c, r, 'i', "cpu_instant_event", "[memory]", 5, -1, 1, 1, -1, -1); /* no args at all */
    fx_finish(c);
    kt_trace *all[] = { t, c };
    for (int i = 0; i < 2; i++) {
        kt_tables *ts;
        CHECK_INT(kt_annotations(all[i], NULL, NULL, &ts), KT_OK);
        CHECK_INT(kt_table_nrows(fx_table(ts, "summary")), 0);
        kt_tables_free(ts);
        CHECK_INT(kt_ops(all[i], NULL, &ts), KT_OK);
        CHECK_INT(kt_table_nrows(fx_table(ts, "ops")), 0);
        kt_tables_free(ts);
        CHECK_INT(kt_cupti(all[i], NULL, NULL, &ts), KT_OK);
        CHECK_INT(kt_table_nrows(fx_table(ts, "counters")), 0);
        kt_tables_free(ts);
        CHECK_INT(kt_memory(all[i], NULL, NULL, &ts, NULL), KT_OK);
        /* the argument-less [memory] event: an unknown device, no peak */
        CHECK_INT(kt_table_nrows(fx_table(ts, "peak_ops")), 0);
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    kt_trace_free(c);
}
