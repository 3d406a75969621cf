/* test_cupti_oracle.c — `kineta cupti --hta-compat` against HTA's
 * cupti_counter_data_with_operators.csv (the one trace HTA produced it
 * for): every range in ts order with its counters and op stack.          */
#include "attrib_oracle.h"
#include "fixture.h"
#include "test.h"

TEST(cupti_oracle_cupti_profiler)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("cupti_profiler"), true);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_cupti(t, NULL, NULL, &ts), KT_OK);
    static const char *const cols[] = {
        "name", "cat", "pid", "tid", "ts", "dur",
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "op_stack", "top_level_op", "bottom_level_op",
    };
    ao_compare("cupti_profiler", "cupti_counter_data_with_operators.csv", ts, "counters", cols, NULL,
               sizeof cols / sizeof cols[0], 0);
    kt_tables_free(ts);
}

/* Our default on the same trace: the ranges carry no correlation, so all
 * 77 pair by position (77 ranges, 77 cudaLaunchKernel calls), and FLOPs
 * follow from the SASS counters: the conv2d range at row 1 has 9119334400
 * ffma and 24780800 fmul instructions → 2 × 9119334400 + 24780800.        */
TEST(cupti_default_flops_and_match)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("cupti_profiler"), false);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_cupti(t, NULL, NULL, &ts), KT_OK);
    const kt_table *m = fx_table(ts, "match"), *c = fx_table(ts, "counters");
    CHECK_INT(fx_num(m, 0, "ranges"), 77);
    CHECK_INT(fx_num(m, 0, "matched_by_position"), 77);
    CHECK_INT(fx_num(m, 0, "matched_by_correlation"), 0);
    CHECK_NEAR(fx_num(c, 1, "flops"), 2.0 * 9119334400.0 + 24780800.0, 0);
    CHECK_STR(kt_table_str(c, 1, (size_t)kt_table_col_index(c, "match")), "position");
    CHECK_STR(kt_table_str(c, 1, (size_t)kt_table_col_index(c, "op_stack")),
              "aten::conv2d > aten::convolution > aten::_convolution > aten::cudnn_convolution");
    /* A100: FP32 peak 19.5 TFLOP/s from deviceProperties' name */
    double tf = fx_num(c, 1, "tflops_per_s");
    CHECK_NEAR(fx_num(c, 1, "pct_of_peak"), 100.0 * tf / 19.5, 1e-9);
    kt_tables_free(ts);
}

/* kineta info says when a trace holds profiler ranges instead of kernels. */
TEST(cupti_info_counts_profiler_ranges)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("cupti_profiler"), false);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    CHECK_INT(fx_num(fx_table(ts, "ranks"), 0, "profiler_ranges"), 77);
    kt_tables_free(ts);
}
