/* test_ops_oracle.c — `kineta ops --hta-compat` against HTA's
 * aten_op_kernels_and_delay.csv on every trace HTA produced it for (HTA ran
 * it on rank 0 only; on AMD, Triton and the CUPTI trace HTA raised, so
 * there is no CSV to compare).  Rows compare in HTA's order; delays are
 * means rounded to 3 decimals and compare exactly.                        */
#include "attrib_oracle.h"
#include "model/model.h"
#include "test.h"

static const char *const traces[] = {
    "cp_alexnet", "cp_cuda_event_sync", "cp_cuda_event_sync_multi_stream", "cp_simple_add", "execution_trace",
    "nccl_parser_config", "timeline_analysis", "trace_filter_2ranks", "df_index_resolver",
    "negative_queue_length_values_check", "ns_resolution_trace", "trace_diff_control", "trace_diff_test",
    "mtia_trace_single_rank",
};

static void check_trace(const char *o)
{
    const kt_trace *t = fx_shared_trace(fx_hta_trace(o), true);
    if (!t) return;
    /* HTA ran it on the first rank only */
    kt_rank_sel sel = { &t->ranks[0]->rank, 1 };
    kt_tables *ts;
    CHECK_INT(kt_ops(t, &sel, &ts), KT_OK);
    static const char *const cols[] = { "aten_op_name", "kernel_sequence", "occurrence_count",
                                        "avg_aten_op_launch_delay", "avg_runtime_delay" };
    ao_compare(o, "aten_op_kernels_and_delay.csv", ts, "ops", cols, NULL, 5, 0);
    kt_tables_free(ts);
}

#define ORACLE_TEST(name, i) \
    TEST(name)               \
    {                        \
        NEED_SHARED();       \
        check_trace(traces[i]); \
    }

ORACLE_TEST(ops_oracle_cp_alexnet, 0)
ORACLE_TEST(ops_oracle_cp_cuda_event_sync, 1)
ORACLE_TEST(ops_oracle_cp_cuda_event_sync_multi_stream, 2)
ORACLE_TEST(ops_oracle_cp_simple_add, 3)
ORACLE_TEST(ops_oracle_execution_trace, 4)
ORACLE_TEST(ops_oracle_nccl_parser_config, 5)
ORACLE_TEST(ops_oracle_timeline_analysis, 6)
ORACLE_TEST(ops_oracle_trace_filter_2ranks, 7)
ORACLE_TEST(ops_oracle_df_index_resolver, 8)
ORACLE_TEST(ops_oracle_negative_queue_length, 9)
ORACLE_TEST(ops_oracle_ns_resolution_trace, 10)
ORACLE_TEST(ops_oracle_trace_diff_control, 11)
ORACLE_TEST(ops_oracle_trace_diff_test, 12)
ORACLE_TEST(ops_oracle_mtia, 13)
