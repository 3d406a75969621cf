/* test_annotations_oracle.c — `kineta annotations` under --hta-compat
 * against HTA's user-annotation outputs (../shared/oracle/hta): the gpu and
 * cpu breakdowns and the kernels with their innermost GPU annotation, on
 * every trace HTA produced them for (no CSV = HTA returned None = no rows).
 * Sums, minima and maxima of whole µs are exact; std and mean are
 * compared to 1e-9 relative (pandas adds in another order).               */
#include "attrib_oracle.h"
#include "test.h"

static const char *const traces[] = {
    "amd_trace", "cp_alexnet", "cp_cuda_event_sync", "cp_cuda_event_sync_multi_stream", "cp_simple_add",
    "cupti_profiler", "execution_trace", "nccl_parser_config", "timeline_analysis", "trace_filter_2ranks",
    "triton_example", "df_index_resolver", "negative_queue_length_values_check", "ns_resolution_trace",
    "trace_diff_control", "trace_diff_test", "mtia_trace_single_rank",
};

static void check_trace(const char *o)
{
    const kt_trace *t = fx_shared_trace(fx_hta_trace(o), true);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_annotations(t, NULL, NULL, &ts), KT_OK);
    static const char *const exact[] = { "name", "sum (us)", "max (us)", "min (us)", "rank" };
    static const char *const approx[] = { "stddev", "mean (us)" };
    static const char *const kern[] = { "ts", "dur", "stream", "correlation", "s_name", "s_user_annotation" };
    ao_compare(o, "gpu_user_annotation_breakdown.csv", ts, "gpu", exact, NULL, 5, 0);
    ao_compare(o, "gpu_user_annotation_breakdown.csv", ts, "gpu", approx, NULL, 2, 1e-9);
    ao_compare(o, "cpu_user_annotation_breakdown.csv", ts, "cpu", exact, NULL, 5, 0);
    ao_compare(o, "cpu_user_annotation_breakdown.csv", ts, "cpu", approx, NULL, 2, 1e-9);
    ao_compare(o, "gpu_kernels_with_user_annotations.csv", ts, "kernels", kern, NULL, 6, 0);
    kt_tables_free(ts);
}

#define ORACLE_TEST(name, i) \
    TEST(name)               \
    {                        \
        NEED_SHARED();       \
        check_trace(traces[i]); \
    }

ORACLE_TEST(annotations_oracle_amd_trace, 0)
ORACLE_TEST(annotations_oracle_cp_alexnet, 1)
ORACLE_TEST(annotations_oracle_cp_cuda_event_sync, 2)
ORACLE_TEST(annotations_oracle_cp_cuda_event_sync_multi_stream, 3)
ORACLE_TEST(annotations_oracle_cp_simple_add, 4)
ORACLE_TEST(annotations_oracle_cupti_profiler, 5)
ORACLE_TEST(annotations_oracle_execution_trace, 6)
ORACLE_TEST(annotations_oracle_nccl_parser_config, 7)
ORACLE_TEST(annotations_oracle_timeline_analysis, 8)
ORACLE_TEST(annotations_oracle_trace_filter_2ranks, 9)
ORACLE_TEST(annotations_oracle_triton_example, 10)
ORACLE_TEST(annotations_oracle_df_index_resolver, 11)
ORACLE_TEST(annotations_oracle_negative_queue_length, 12)
ORACLE_TEST(annotations_oracle_ns_resolution_trace, 13)
ORACLE_TEST(annotations_oracle_trace_diff_control, 14)
ORACLE_TEST(annotations_oracle_trace_diff_test, 15)
ORACLE_TEST(annotations_oracle_mtia, 16)
