/* test_queue_oracle.c — launch, queue and memcpy-bw under --hta-compat
 * against HTA's own outputs (../shared/oracle/hta), and our defaults on
 * the AMD and Triton traces HTA leaves empty.
 *
 * HTA's rows are reproduced in HTA's order, so series compare row by row
 * (numpy's quicksort order at equal timestamps included) and integer µs
 * values exactly; describe() statistics are sums of doubles added in a
 * different order than pandas does, so they compare with a 1e-9 relative
 * tolerance.                                                               */
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every trace HTA produced these outputs for (oracle dir names). */
static const char *const traces[] = {
    "amd_trace", "cp_alexnet", "cp_cuda_event_sync", "cp_cuda_event_sync_multi_stream", "cp_simple_add",
    "cupti_profiler", "execution_trace", "nccl_parser_config", "timeline_analysis", "trace_filter_2ranks",
    "triton_example",
    /* large: */
    "df_index_resolver", "negative_queue_length_values_check", "ns_resolution_trace", "trace_diff_control",
    "trace_diff_test", "mtia_trace_single_rank",
};

static fx_csv *oracle(const char *dir, const char *file)
{
    char rel[512];
    snprintf(rel, sizeof rel, "oracle/hta/%s/%s.csv", dir, file);
    return fx_csv_read(rel);
}

static bool close_to(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void cell_text(const kt_table *t, size_t i, size_t j, char *buf, size_t cap)
{
    if (kt_table_col_type(t, j) == KT_COL_STR) snprintf(buf, cap, "%s", kt_table_str(t, i, j));
    else snprintf(buf, cap, "%.17g", kt_table_float(t, i, j));
}

/* Table `name` has the CSV's rows, column by column (the CSV's columns,
 * minus pandas' index): strings and, unless approx, numbers exactly equal.
 * No CSV (HTA returned None) means no rows.                               */
static void compare(const char *what, const kt_tables *ts, const char *name, const fx_csv *c, bool approx)
{
    const kt_table *t = kt_tables_find(ts, name);
    size_t want = c && c->nrows ? c->nrows - 1 : 0, bad = 0;
    if (!t || kt_table_nrows(t) != want) {
        kt_test_fail(__FILE__, __LINE__, "%s %s: %zu rows, HTA %zu", what, name, t ? kt_table_nrows(t) : 0, want);
        return;
    }
    for (size_t k = 0; c && c->nrows && k < c->ncols[0]; k++) {
        const char *col = c->row[0][k];
        if (!strcmp(col, "index")) continue;
        long j = kt_table_col_index(t, col);
        if (j < 0) {
            kt_test_fail(__FILE__, __LINE__, "%s %s: no column %s", what, name, col);
            return;
        }
        for (size_t i = 0; i < want; i++) {
            const char *theirs = fx_csv_get(c, i + 1, col);
            bool ok;
            if (kt_table_col_type(t, (size_t)j) == KT_COL_STR) {
                ok = !strcmp(kt_table_str(t, i, (size_t)j), theirs);
            } else {
                double a = kt_table_float(t, i, (size_t)j), b = *theirs ? strtod(theirs, NULL) : NAN;
                ok = approx ? close_to(a, b) : (a == b || (isnan(a) && isnan(b)));
            }
            char ours[64];
            cell_text(t, i, (size_t)j, ours, sizeof ours);
            if (!ok && bad++ < 3)
                kt_test_fail(__FILE__, __LINE__, "%s %s row %zu %s: ours %s, HTA %s", what, name, i, col, ours,
                             theirs);
        }
    }
}

static void compare_with(const char *o, const kt_tables *ts, const char *table, const char *file, bool approx)
{
    fx_csv *c = oracle(o, file);
    compare(o, ts, table, c, approx);
    fx_csv_free(c);
}

static void check_trace(const char *o)
{
    kt_trace *t = fx_load_shared(fx_hta_trace(o), true);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_launch(t, NULL, NULL, &ts), KT_OK);
    compare_with(o, ts, "launches", "cuda_kernel_launch_stats", false);
    kt_tables_free(ts);

    kt_queue_options q = { .size = sizeof q, .max_queue_length = 4 };
    CHECK_INT(kt_queue(t, NULL, &q, &ts), KT_OK);
    compare_with(o, ts, "series", "queue_length_time_series", false);
    compare_with(o, ts, "summary", "queue_length_summary", true);
    compare_with(o, ts, "blocked", "time_blocked_on_queue_ge_4", true);
    kt_tables_free(ts);
    q.max_queue_length = 1024;
    CHECK_INT(kt_queue(t, NULL, &q, &ts), KT_OK);
    compare_with(o, ts, "blocked", "time_blocked_on_full_queue", true);
    kt_tables_free(ts);

    CHECK_INT(kt_memcpy_bw(t, NULL, &ts), KT_OK);
    compare_with(o, ts, "series", "memory_bw_time_series", false);
    compare_with(o, ts, "summary", "memory_bw_summary", true);
    kt_tables_free(ts);
    kt_trace_free(t);
}

#define ORACLE_TEST(name, i)          \
    TEST(name)                        \
    {                                 \
        NEED_SHARED();                \
        check_trace(traces[i]);      \
    }

ORACLE_TEST(queue_oracle_amd_trace, 0)
ORACLE_TEST(queue_oracle_cp_alexnet, 1)
ORACLE_TEST(queue_oracle_cp_cuda_event_sync, 2)
ORACLE_TEST(queue_oracle_cp_cuda_event_sync_multi_stream, 3)
ORACLE_TEST(queue_oracle_cp_simple_add, 4)
ORACLE_TEST(queue_oracle_cupti_profiler, 5)
ORACLE_TEST(queue_oracle_execution_trace, 6)
ORACLE_TEST(queue_oracle_nccl_parser_config, 7)
ORACLE_TEST(queue_oracle_timeline_analysis, 8)
ORACLE_TEST(queue_oracle_trace_filter_2ranks, 9)
ORACLE_TEST(queue_oracle_triton_example, 10)
ORACLE_TEST(queue_oracle_df_index_resolver, 11)
ORACLE_TEST(queue_oracle_negative_queue_length, 12)
ORACLE_TEST(queue_oracle_ns_resolution_trace, 13)
ORACLE_TEST(queue_oracle_trace_diff_control, 14)
ORACLE_TEST(queue_oracle_trace_diff_test, 15)
ORACLE_TEST(queue_oracle_mtia, 16)

static double cell(const kt_tables *ts, const char *table, size_t row, const char *col)
{
    const kt_table *t = kt_tables_find(ts, table);
    long c = t ? kt_table_col_index(t, col) : -1;
    return c < 0 || row >= kt_table_nrows(t) ? -12345 : kt_table_float(t, row, (size_t)c);
}

/* HTA's launch list has no hip* names: empty on ROCm.  Ours: 14 kernels
 * and 2 copies, values checked by hand against the JSON (µs).             */
TEST(launch_amd_trace_not_empty_by_default)
{
    NEED_SHARED();
    kt_trace *t = fx_load_shared(fx_hta_trace("amd_trace"), false);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_launch(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(kt_tables_find(ts, "launches")), 16);
    /* hipMemcpyWithStream 603438.301+60.204 → copy 603454.206+22.441 */
    CHECK_NEAR(cell(ts, "launches", 0, "correlation"), 117, 0);
    CHECK_NEAR(cell(ts, "launches", 0, "cpu_duration"), 60.204, 1e-9);
    CHECK_NEAR(cell(ts, "launches", 0, "gpu_duration"), 22.441, 1e-9);
    CHECK_NEAR(cell(ts, "launches", 0, "launch_delay"), 0, 0);
    /* hipLaunchKernel 603752.847+11.502 → kernel at 603771.648 */
    CHECK_NEAR(cell(ts, "launches", 1, "launch_delay"), 7.299, 1e-9);
    /* hipExtModuleLaunchKernel 603834.612+5.18 → kernel at 603847.969 */
    CHECK_NEAR(cell(ts, "launches", 2, "correlation"), 121, 0);
    CHECK_NEAR(cell(ts, "launches", 2, "launch_delay"), 8.177, 1e-9);
    CHECK_NEAR(cell(ts, "runtime_outliers", 0, "cpu_duration_max"), 6543.109, 1e-9);
    kt_tables_free(ts);
    /* the copies' bytes are the hipMemcpyWithStream "size" arg: 2560 B in
     * 22.441 µs                                                           */
    CHECK_INT(kt_memcpy_bw(t, NULL, &ts), KT_OK);
    CHECK_NEAR(cell(ts, "series", 0, "memory_bw_gbps"), 2560 / 22441.0, 1e-15);
    CHECK_NEAR(cell(ts, "summary", 0, "memory_bw_gbps_count"), 2, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Triton launches through the driver API (cuLaunchKernel), not in HTA's
 * launch-stats list.                                                       */
TEST(launch_triton_not_empty_by_default)
{
    NEED_SHARED();
    kt_trace *t = fx_load_shared(fx_hta_trace("triton_example"), false);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_launch(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(kt_tables_find(ts, "launches")), 1);
    CHECK_NEAR(cell(ts, "launches", 0, "correlation"), 35, 0);
    CHECK_NEAR(cell(ts, "launches", 0, "cpu_duration"), 47.768, 1e-9);
    CHECK_NEAR(cell(ts, "launches", 0, "gpu_duration"), 1.76, 1e-9);
    CHECK_NEAR(cell(ts, "launches", 0, "launch_delay"), 0, 0); /* kernel starts before the call returns */
    kt_tables_free(ts);
    kt_trace_free(t);
}
