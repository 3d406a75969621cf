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

/* Two ranks: each rank's rows come from its own events only (HTA's shared
 * accumulator would repeat rank 0's rows in rank 1's table); rank 0's
 * rows are the oracle's.                                                 */
TEST(ops_per_rank_not_accumulated)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("trace_filter_2ranks"), true);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_ops(t, NULL, &ts), KT_OK);
    const kt_table *o = kt_tables_find(ts, "ops");
    long rc = o ? kt_table_col_index(o, "rank") : -1, cc = o ? kt_table_col_index(o, "occurrence_count") : -1;
    CHECK(rc >= 0 && cc >= 0);
    size_t n0 = 0, n1 = 0;
    int64_t count1 = 0;
    for (size_t i = 0; rc >= 0 && cc >= 0 && i < kt_table_nrows(o); i++) {
        if (kt_table_int(o, i, (size_t)rc) == 0) n0++;
        else n1++, count1 += kt_table_int(o, i, (size_t)cc);
    }
    CHECK_INT(n0, 179);
    /* rank 1 alone gives the same rows: nothing of rank 0 leaked into them */
    kt_tables *one;
    kt_rank_sel sel = { (int[]){ 1 }, 1 };
    CHECK_INT(kt_ops(t, &sel, &one), KT_OK);
    const kt_table *o1 = kt_tables_find(one, "ops");
    int64_t alone = 0;
    for (size_t i = 0; o1 && cc >= 0 && i < kt_table_nrows(o1); i++) alone += kt_table_int(o1, i, (size_t)cc);
    CHECK(n1 > 0);
    CHECK_INT(kt_table_nrows(o1), n1);
    CHECK_INT(alone, count1);
    kt_tables_free(one);
    kt_tables_free(ts);
}
