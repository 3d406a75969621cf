/* test_temporal.c — temporal breakdown and TraceLens GPU timeline. */
#include "fixture.h"
#include "table/table.h"
#include "test.h"

#include <stdlib.h>

/* One rank, two streams (µs): gemm 1–5 (s7), nccl 3–8 (s8), memcpy 10–12
 * (s7), Stream Wait Event 12–15 (s8, a cuda_sync), elementwise 20–21 (s7,
 * no launch).  A memset (s7, 16–17) has a launch but no ac2g flow, as ROCm
 * writes hipMemsetAsync: TraceLens cannot attach it.                       */
static kt_trace *two_stream_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 500, 100, 1, 1, -1, 11);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 600, 100, 1, 1, -1, 12);
    fx_event(t, r, 'X', "cuda_runtime", "cudaMemcpyAsync", 700, 100, 1, 1, -1, 13);
    fx_event(t, r, 'X', "cuda_runtime", "cudaMemsetAsync", 800, 100, 1, 1, -1, 14);
    fx_event(t, r, 'X', "kernel", "void gemm_kernel<float>(float*)", 1000, 4000, 0, 7, 7, 11);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 3000, 5000, 0, 8, 8, 12);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 10000, 2000, 0, 7, 7, 13);
    fx_event(t, r, 'X', "cuda_sync", "Stream Wait Event", 12000, 3000, 0, 8, 8, -1);
    fx_event(t, r, 'X', "gpu_memset", "Memset (Device)", 16000, 1000, 0, 7, 7, 14);
    fx_event(t, r, 'X', "kernel", "elementwise_kernel", 20000, 1000, 0, 7, 7, 99);
    for (int64_t corr = 11; corr <= 13; corr++) { /* launch → GPU flows, as Kineto writes them */
        fx_event(t, r, 's', "ac2g", "", 500 + 100 * (corr - 11), -1, 1, 1, -1, corr);
        fx_event(t, r, 'f', "ac2g", "", corr == 12 ? 3000 : corr == 11 ? 1000 : 10000, -1, 0, corr == 12 ? 8 : 7, -1, corr);
    }
    fx_finish(t);
    return t;
}

TEST(temporal_default_counts_only_kernels_memcpy_memset)
{
    kt_trace *t = two_stream_trace();
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(kt_tables_find(ts, "temporal_breakdown")), 1);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "kernel_time(us)"), 20, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "idle_time(us)"), 9, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "compute_time(us)"), 5, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "non_compute_time(us)"), 6, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "idle_time_pctg"), 45, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "compute_time_pctg"), 25, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* HTA counts every event that carries a stream as GPU activity, so the
 * Stream Wait Event (12–15) fills 3 µs of what is really idle time.        */
TEST(temporal_hta_compat_counts_stream_sync_events_as_busy)
{
    kt_trace *t = two_stream_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "idle_time(us)"), 6, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "non_compute_time(us)"), 9, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "idle_time_pctg"), 30, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(temporal_tracelens_linked_kernels_only)
{
    kt_trace *t = two_stream_trace();
    kt_temporal_options o = { .size = sizeof o, .tracelens = 1 };
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = kt_tables_find(ts, "gpu_timeline");
    CHECK(tb && kt_table_nrows(tb) == 8 && kt_table_ncols(tb) == 3);
    static const char *const rows[] = { "computation_time", "exposed_comm_time", "exposed_memcpy_time",
                                        "busy_time", "idle_time", "total_time", "total_comm_time",
                                        "total_memcpy_time" };
    static const double us[] = { 4, 3, 2, 9, 2, 11, 5, 2 };
    for (size_t i = 0; tb && i < 8; i++) {
        CHECK_STR(kt_table_str(tb, i, 0), rows[i]);
        CHECK_NEAR(kt_table_float(tb, i, 1), us[i] / 1000, 1e-12);
        CHECK_NEAR(kt_table_float(tb, i, 2), 100 * us[i] / 11, 1e-9);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(temporal_by_device_and_step_split_rows)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 3);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#5", 0, 10000, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#6", 10000, 10000, 0, 7, -1, -1);
    fx_event(t, r, 'X', "kernel", "k1", 1000, 2000, 0, 7, 7, -1);   /* step 5, dev 0: 1–3 */
    fx_event(t, r, 'X', "kernel", "k2", 6000, 1000, 0, 7, 7, -1);   /* step 5, dev 0: 6–7 */
    fx_event(t, r, 'X', "kernel", "k3", 12000, 4000, 0, 7, 7, -1);  /* step 6, dev 0 */
    fx_event(t, r, 'X', "kernel", "k4", 2000, 4000, 1, 7, 7, -1);   /* step 5, dev 1 */
    fx_finish(t);
    kt_temporal_options o = { .size = sizeof o, .by_step = 1, .by_device = 1 };
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = kt_tables_find(ts, "temporal_breakdown");
    CHECK_INT(kt_table_nrows(tb), 3);
    CHECK_STR(kt_table_col_name(tb, 1), "device");
    CHECK_STR(kt_table_col_name(tb, 2), "step");
    CHECK_INT(kt_table_int(tb, 0, 0), 3);
    CHECK_INT(kt_table_int(tb, 0, 1), 0);
    CHECK_INT(kt_table_int(tb, 0, 2), 5);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "kernel_time(us)"), 6, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "idle_time(us)"), 3, 1e-9);
    CHECK_INT(kt_table_int(tb, 1, 2), 6);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 1, "idle_time(us)"), 0, 1e-9);
    CHECK_INT(kt_table_int(tb, 2, 1), 1);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 2, "compute_time(us)"), 4, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(temporal_rank_without_gpu_events_has_null_percentages)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cpu_op", "aten::add", 0, 100, 1, 1, -1, -1);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    const kt_table *tb = kt_tables_find(ts, "temporal_breakdown");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK_NEAR(kt_table_float(tb, 0, 4), 0, 0);
    CHECK(kt_table_is_null(tb, 0, 5));
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* CUDA writes "stream": 4294967295 on device-wide syncs; HTA's stream != -1
 * test counts such a Context Sync as GPU activity, we do not.             */
TEST(temporal_hta_compat_counts_unsigned_minus_one_stream)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "gemm", 0, 1000, 0, 7, 7, -1);
    fx_event(t, r, 'X', "cuda_sync", "Context Sync", 5000, 1000, 0, 7, -1, -1);
    fx_arg_int(r, KT_ARG_RAW_STREAM, 4294967295);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "kernel_time(us)"), 1, 1e-9);
    kt_tables_free(ts);
    t->hta_compat = true;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "kernel_time(us)"), 6, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "temporal_breakdown"), 0, "non_compute_time(us)"), 1, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}
