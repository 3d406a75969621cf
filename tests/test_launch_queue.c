/* test_launch_queue.c — launch statistics, queue length and memcpy
 * bandwidth on hand-built traces (default and --hta-compat rules). */
#include "analysis/common/launch_api.h"
#include "analysis/common/np_sort.h"
#include "analysis/launch/queue.h"
#include "fixture.h"
#include "table/table.h"
#include "test.h"

#define US 1000

static const kt_table *table(const kt_tables *ts, const char *name)
{
    const kt_table *tb = kt_tables_find(ts, name);
    CHECK(tb != NULL);
    return tb;
}

static double num(const kt_table *tb, size_t row, const char *col)
{
    long c = kt_table_col_index(tb, col);
    return c < 0 || row >= kt_table_nrows(tb) ? -12345 : kt_table_float(tb, row, (size_t)c);
}

static void launch(kt_trace *t, kt_rank *r, const char *cat, const char *api, int64_t ts, int64_t dur,
                   int64_t corr)
{
    fx_event(t, r, 'X', cat, api, ts * US, dur * US, 100, 100, -1, corr);
}

static void kernel(kt_trace *t, kt_rank *r, const char *cat, const char *name, int64_t ts, int64_t dur,
                   int32_t stream, int64_t corr)
{
    fx_event(t, r, 'X', cat, name, ts * US, dur * US, 0, stream, stream, corr);
}

/* Launches (µs): cudaLaunchKernel 100+5 → kernel 110+20 (a driver call
 * with the same correlation nested in it); hipLaunchKernel 200+60 →
 * 230+10; cuLaunchKernel 300+10 → 450+3; cudaGraphLaunch 500+8 → 510+2,
 * 520+4; cudaMemcpyAsync 600+4 → 606+2; cudaMemcpy (sync) 700+30 → 705+20;
 * cudaStreamWaitEvent → Stream Wait Event.                                 */
static kt_trace *launch_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 3);
    launch(t, r, "cuda_runtime", "cudaLaunchKernel", 100, 5, 1);
    launch(t, r, "cuda_driver", "cuLaunchKernel", 101, 3, 1);
    kernel(t, r, "kernel", "k1", 110, 20, 7, 1);
    launch(t, r, "cuda_runtime", "hipLaunchKernel", 200, 60, 2);
    kernel(t, r, "kernel", "k2", 230, 10, 0, 2);
    launch(t, r, "cuda_driver", "cuLaunchKernel", 300, 10, 3);
    kernel(t, r, "kernel", "triton_k3", 450, 3, 7, 3);
    launch(t, r, "cuda_runtime", "cudaGraphLaunch", 500, 8, 4);
    kernel(t, r, "kernel", "g1", 510, 2, 7, 4);
    kernel(t, r, "kernel", "g2", 520, 4, 7, 4);
    launch(t, r, "cuda_runtime", "cudaMemcpyAsync", 600, 4, 5);
    kernel(t, r, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 606, 2, 7, 5);
    launch(t, r, "cuda_runtime", "cudaMemcpy", 700, 30, 6);
    kernel(t, r, "gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 705, 20, 7, 6);
    launch(t, r, "cuda_runtime", "cudaStreamWaitEvent", 800, 1, 7);
    kernel(t, r, "cuda_sync", "Stream Wait Event", 801, 0, 7, 7);
    fx_finish(t);
    return t;
}

TEST(launch_api_names)
{
    CHECK(kt_is_launch_api("cudaLaunchKernelExC"));
    CHECK(kt_is_launch_api("cuLaunchKernelEx"));
    CHECK(kt_is_launch_api("hipExtModuleLaunchKernel"));
    CHECK(kt_is_launch_api("hipModuleLaunchKernel"));
    CHECK(kt_is_launch_api("cudaGraphLaunch_v10000"));
    CHECK(kt_is_launch_api("cuMemcpyHtoDAsync_v2"));
    CHECK(kt_is_launch_api("hipMemcpyWithStream"));
    CHECK(kt_is_launch_api("runFunction - job_prep_and_submit_for_execution"));
    CHECK(!kt_is_launch_api("cudaMemcpy"));
    CHECK(!kt_is_launch_api("cudaStreamWaitEvent"));
    CHECK(!kt_is_launch_api("cudaLaunchHostFunc"));
    CHECK(kt_is_hta_launch_stats_api("cudaMemsetAsync"));
    CHECK(!kt_is_hta_launch_stats_api("cuLaunchKernel"));
    CHECK(kt_is_hta_runtime_launch_api("cuLaunchKernel"));
    CHECK(!kt_is_hta_runtime_launch_api("cudaGraphLaunch"));
}

TEST(launch_default_every_api)
{
    kt_trace *t = launch_trace();
    kt_tables *ts;
    CHECK_INT(kt_launch(t, NULL, NULL, &ts), KT_OK);
    const kt_table *l = table(ts, "launches");
    CHECK_INT(kt_table_nrows(l), 6);
    static const double want[6][4] = { { 1, 5, 20, 5 },  { 2, 60, 10, 0 }, { 3, 10, 3, 140 },
                                       { 4, 8, 2, 2 },   { 4, 8, 4, 12 },  { 5, 4, 2, 2 } };
    for (size_t i = 0; i < 6; i++) {
        CHECK_NEAR(num(l, i, "correlation"), want[i][0], 0);
        CHECK_NEAR(num(l, i, "cpu_duration"), want[i][1], 1e-9);
        CHECK_NEAR(num(l, i, "gpu_duration"), want[i][2], 1e-9);
        CHECK_NEAR(num(l, i, "launch_delay"), want[i][3], 1e-9);
        CHECK_NEAR(num(l, i, "rank"), 3, 0);
    }
    const kt_table *s = table(ts, "short_gpu_kernels"); /* cpu 10, 8, 8, 4 */
    CHECK_INT(kt_table_nrows(s), 1);
    CHECK_NEAR(num(s, 0, "launches"), 6, 0);
    CHECK_NEAR(num(s, 0, "cpu_duration_count"), 4, 0);
    CHECK_NEAR(num(s, 0, "pct_of_launches"), 400.0 / 6, 1e-9);
    CHECK_NEAR(num(s, 0, "cpu_duration_mean"), 7.5, 1e-12);
    CHECK_NEAR(num(s, 0, "cpu_duration_50%"), 8, 1e-12);
    CHECK_NEAR(num(s, 0, "cpu_duration_25%"), 7, 1e-12);
    const kt_table *ro = table(ts, "runtime_outliers");
    CHECK_NEAR(num(ro, 0, "cpu_duration_count"), 1, 0);
    CHECK_NEAR(num(ro, 0, "cpu_duration_max"), 60, 1e-12);
    const kt_table *lo = table(ts, "launch_delay_outliers");
    CHECK_NEAR(num(lo, 0, "launch_delay_count"), 1, 0);
    CHECK_NEAR(num(lo, 0, "launch_delay_mean"), 140, 1e-12);
    CHECK(kt_table_is_null(lo, 0, (size_t)kt_table_col_index(lo, "launch_delay_std")));
    kt_tables_free(ts);

    kt_launch_options o = { .size = sizeof o, .runtime_cutoff_us = 5, .launch_delay_cutoff_us = 1 };
    CHECK_INT(kt_launch(t, NULL, &o, &ts), KT_OK);
    CHECK_NEAR(num(table(ts, "runtime_outliers"), 0, "cpu_duration_count"), 4, 0);
    CHECK_NEAR(num(table(ts, "launch_delay_outliers"), 0, "launch_delay_count"), 5, 0);
    kt_tables_free(ts);
    kt_rank_sel other = { (const int[]){ 0 }, 1 };
    CHECK_INT(kt_launch(t, &other, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(table(ts, "launches")), 0);
    CHECK_INT(kt_table_nrows(table(ts, "short_gpu_kernels")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* HTA: only its CUDA runtime names; every stream -1 row sharing a launch's
 * correlation joins (the nested driver call doubles kernel k1).           */
TEST(launch_hta_compat_join)
{
    kt_trace *t = launch_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_launch(t, NULL, NULL, &ts), KT_OK);
    const kt_table *l = table(ts, "launches");
    CHECK_INT(kt_table_nrows(l), 3);
    CHECK_NEAR(num(l, 0, "cpu_duration"), 5, 1e-9);
    CHECK_NEAR(num(l, 1, "correlation"), 1, 0);
    CHECK_NEAR(num(l, 1, "cpu_duration"), 3, 1e-9);
    CHECK_NEAR(num(l, 1, "launch_delay"), 6, 1e-9);
    CHECK_NEAR(num(l, 2, "correlation"), 5, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Queue fixture (µs).  Stream 7: launches at 0, 10, 20, 30 start kernels
 * at 15, 30, 40, 50 (the launch at 30 ties with a kernel start); a
 * cudaGraphLaunch at 60 starts g1 at 70 on stream 7 and g2 at 72 on
 * stream 8; stream 9: launch 80 → kernel 90.                               */
static kt_trace *queue_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    static const int64_t at[][2] = { { 0, 15 }, { 10, 30 }, { 20, 40 }, { 30, 50 } };
    for (int i = 0; i < 4; i++) launch(t, r, "cuda_runtime", "cudaLaunchKernel", at[i][0], 2, 1 + i);
    for (int i = 0; i < 4; i++) kernel(t, r, "kernel", "k", at[i][1], 5, 7, 1 + i);
    launch(t, r, "cuda_runtime", "cudaGraphLaunch", 60, 5, 9);
    kernel(t, r, "kernel", "g1", 70, 1, 7, 9);
    kernel(t, r, "kernel", "g2", 72, 3, 8, 9);
    launch(t, r, "cuda_runtime", "cudaLaunchKernel", 80, 2, 10);
    kernel(t, r, "kernel", "k9", 90, 5, 9, 10);
    fx_finish(t);
    return t;
}

static void check_series(const kt_table *s, size_t first, int stream, const double (*want)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        CHECK_NEAR(num(s, first + i, "stream"), stream, 0);
        CHECK_NEAR(num(s, first + i, "ts"), want[i][0], 1e-9);
        CHECK_NEAR(num(s, first + i, "queue_length"), want[i][1], 0);
    }
}

TEST(queue_default_step_function_with_graph_launches)
{
    kt_trace *t = queue_trace();
    kt_tables *ts;
    kt_queue_options o = { .size = sizeof o, .max_queue_length = 2 };
    CHECK_INT(kt_queue(t, NULL, &o, &ts), KT_OK);
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 12);
    static const double s7[][2] = { { 0, 1 }, { 10, 2 }, { 15, 1 }, { 20, 2 },
                                    { 40, 1 }, { 50, 0 }, { 60, 1 }, { 70, 0 } };
    static const double s8[][2] = { { 60, 1 }, { 72, 0 } };
    check_series(s, 0, 7, s7, 8);
    check_series(s, 8, 8, s8, 2);
    CHECK_NEAR(num(s, 0, "pid"), 0, 0);
    CHECK_NEAR(num(s, 0, "tid"), 7, 0);
    const kt_table *sum = table(ts, "summary");
    CHECK_INT(kt_table_nrows(sum), 3);
    CHECK_NEAR(num(sum, 0, "queue_length_count"), 8, 0);
    CHECK_NEAR(num(sum, 0, "queue_length_mean"), 1, 1e-12);
    CHECK_NEAR(num(sum, 0, "queue_length_max"), 2, 0);
    const kt_table *w = table(ts, "weighted");
    CHECK_NEAR(num(w, 0, "duration"), 70, 1e-9);
    CHECK_NEAR(num(w, 0, "time_weighted_mean"), 85.0 / 70, 1e-12);
    CHECK_NEAR(num(w, 0, "time_weighted_50%"), 1, 0);
    CHECK_NEAR(num(w, 0, "time_weighted_90%"), 2, 0);
    CHECK_NEAR(num(w, 0, "pct_time_empty"), 100.0 / 7, 1e-9);
    const kt_table *b = table(ts, "blocked"); /* every stream; span 0–95 */
    CHECK_INT(kt_table_nrows(b), 3);
    CHECK_NEAR(num(b, 0, "duration_at_max_queue_length"), 25, 1e-9);
    CHECK_NEAR(num(b, 0, "relative_duration_at_max_queue_length"), 25.0 / 95, 1e-12);
    CHECK_NEAR(num(b, 1, "duration_at_max_queue_length"), 0, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The tables asked for, the same as kt_queue's, in its order; no others. */
TEST(queue_tables_only_those_asked_for)
{
    kt_trace *t = queue_trace();
    kt_queue_options o = { .size = sizeof o, .max_queue_length = 2 };
    for (int hta = 0; hta < 2; hta++) {
        t->hta_compat = hta;
        kt_tables *all, *some;
        CHECK_INT(kt_queue(t, NULL, &o, &all), KT_OK);
        CHECK_INT(kt_queue_tables(t, NULL, &o, KT_QUEUE_SERIES | KT_QUEUE_WEIGHTED | KT_QUEUE_BLOCKED, &some), KT_OK);
        CHECK_INT(kt_tables_count(some), 3);
        static const char *const names[] = { "series", "blocked", "weighted" };
        for (size_t i = 0; i < 3 && i < kt_tables_count(some); i++) {
            CHECK_STR(kt_table_name(kt_tables_get(some, i)), names[i]);
            fx_check_same_table(kt_tables_get(some, i), table(all, names[i]));
        }
        kt_tables_free(some);
        CHECK_INT(kt_queue_tables(t, NULL, &o, KT_QUEUE_SUMMARY, &some), KT_OK);
        CHECK_INT(kt_tables_count(some), 1);
        if (kt_tables_count(some)) fx_check_same_table(kt_tables_get(some, 0), table(all, "summary"));
        kt_tables_free(some);
        kt_tables_free(all);
    }
    kt_trace_free(t);
}

/* Two GPUs of one rank both use stream 7: two queues, told apart by the
 * trailing "device" column (HTA's columns, under --hta-compat, lack it).   */
TEST(queue_same_stream_on_two_devices)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    launch(t, r, "cuda_runtime", "cudaLaunchKernel", 0, 2, 1);
    fx_event(t, r, 'X', "kernel", "k", 10 * US, 5 * US, 0, 7, 7, 1);
    launch(t, r, "cuda_runtime", "cudaLaunchKernel", 1, 2, 2);
    fx_event(t, r, 'X', "kernel", "k", 20 * US, 5 * US, 1, 7, 7, 2);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    static const char *const per_queue[] = { "summary", "blocked", "weighted" };
    for (size_t i = 0; i < 3; i++) {
        const kt_table *tb = table(ts, per_queue[i]);
        CHECK_INT(kt_table_nrows(tb), 2);
        CHECK_NEAR(num(tb, 0, "stream"), 7, 0);
        CHECK_NEAR(num(tb, 1, "stream"), 7, 0);
        CHECK_NEAR(num(tb, 0, "device"), 0, 0);
        CHECK_NEAR(num(tb, 1, "device"), 1, 0);
    }
    kt_tables_free(ts);
    t->hta_compat = true;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_col_index(table(ts, "summary"), "device"), -1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* One launch per stream on streams n-1 .. 0 (file order), two devices
 * alternating: the series lists each (device, stream) queue in order,
 * whether the queues are few (grouped by counting) or more than that
 * takes (radix-sorted), under both rules.                                 */
static void check_many_streams(int n, bool hta)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    for (int s = n - 1, k = 0; s >= 0; s--, k++) {
        launch(t, r, "cuda_runtime", "cudaLaunchKernel", k, 1, 1 + k);
        fx_event(t, r, 'X', "kernel", "k", (1000 + k) * US, US, s % 2, s, s, 1 + k);
    }
    fx_finish(t);
    t->hta_compat = hta;
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    const kt_table *sr = table(ts, "series");
    CHECK_INT(kt_table_nrows(sr), 2 * n);
    for (int q = 0; q < n && (size_t)(2 * q + 1) < kt_table_nrows(sr); q++) {
        int stream = hta ? q : (q < (n + 1) / 2 ? 2 * q : 2 * (q - (n + 1) / 2) + 1); /* device 0: even streams */
        CHECK_NEAR(num(sr, 2 * (size_t)q, "stream"), stream, 0);
        CHECK_NEAR(num(sr, 2 * (size_t)q, "queue_length"), 1, 0);
        CHECK_NEAR(num(sr, 2 * (size_t)q + 1, "stream"), stream, 0);
        CHECK_NEAR(num(sr, 2 * (size_t)q + 1, "queue_length"), 0, 0);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(queue_few_and_many_streams_in_device_stream_order)
{
    check_many_streams(9, false);
    check_many_streams(9, true);
    check_many_streams(70, false);
    check_many_streams(70, true);
}

/* HTA: no graph launches, one row per change (insertion-sort order at the
 * tie: the launch, concatenated first, before the kernel), and "blocked"
 * keeps only the last stream of the rank.                                 */
TEST(queue_hta_compat_rows_and_last_stream_only)
{
    kt_trace *t = queue_trace();
    t->hta_compat = true;
    kt_tables *ts;
    kt_queue_options o = { .size = sizeof o, .max_queue_length = 2 };
    CHECK_INT(kt_queue(t, NULL, &o, &ts), KT_OK);
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 10);
    static const double s7[][2] = { { 0, 1 }, { 10, 2 }, { 15, 1 }, { 20, 2 },
                                    { 30, 3 }, { 30, 2 }, { 40, 1 }, { 50, 0 } };
    check_series(s, 0, 7, s7, 8);
    CHECK_NEAR(num(table(ts, "summary"), 0, "queue_length_mean"), 1.5, 1e-12);
    const kt_table *b = table(ts, "blocked");
    CHECK_INT(kt_table_nrows(b), 1);
    CHECK_NEAR(num(b, 0, "stream"), 7, 0);
    CHECK_NEAR(num(b, 0, "duration_at_max_queue_length"), 25, 1e-9);
    CHECK_NEAR(num(b, 0, "relative_duration_at_max_queue_length"), 25.0 / 90, 1e-12); /* max ts − min ts */
    kt_tables_free(ts);
    o.max_queue_length = 1;
    CHECK_INT(kt_queue(t, NULL, &o, &ts), KT_OK);
    b = table(ts, "blocked");
    CHECK_INT(kt_table_nrows(b), 1);
    CHECK_NEAR(num(b, 0, "stream"), 9, 0);
    CHECK_NEAR(num(b, 0, "duration_at_max_queue_length"), 10, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Stream 7 (µs): launch 10 → kernel kA at 5 (5 µs before its call), 20 →
 * 30, 40 → kC at 38 (2 µs early), 41 → 50; origin 5.  Default: kA and kC
 * leave the queue when their call starts: 10: +1 −1 = 0, 20: 1, 30: 0,
 * 40: +1 −1 (0, repeats), 41: 1, 50: 0.  HTA: as written, 5: −1, 10: 0,
 * 20: 1, 30: 0, 38: −1, 40: 0, 41: 1, 50: 0.  Both report 2 early events,
 * the first kA (corr 1, 5 µs early).                                     */
static kt_trace *early_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    static const int64_t at[][2] = { { 10, 5 }, { 20, 30 }, { 40, 38 }, { 41, 50 } };
    static const char *const names[] = { "kA", "kB", "kC", "kD" };
    for (int i = 0; i < 4; i++) launch(t, r, "cuda_runtime", "cudaLaunchKernel", at[i][0], 2, 1 + i);
    for (int i = 0; i < 4; i++) kernel(t, r, "kernel", names[i], at[i][1], 1, 7, 1 + i);
    fx_finish(t);
    return t;
}

static void check_early_row(const kt_tables *ts, bool hta)
{
    const kt_table *d = table(ts, "diagnostics");
    CHECK_INT(kt_table_nrows(d), 1);
    CHECK_NEAR(num(d, 0, "rank"), 0, 0);
    CHECK_NEAR(num(d, 0, "early_gpu_events"), 2, 0);
    CHECK_STR(kt_table_str(d, 0, (size_t)kt_table_col_index(d, "first_name")), "kA");
    CHECK_NEAR(num(d, 0, "first_ts"), 0, 1e-9);
    CHECK_NEAR(num(d, 0, "first_correlation"), 1, 0);
    CHECK_NEAR(num(d, 0, "first_early_by"), 5, 1e-9);
    const char *msg = kt_table_str(d, 0, (size_t)kt_table_col_index(d, "message"));
    CHECK(strstr(msg, "2 GPU events start before the call") != NULL);
    CHECK(strstr(msg, hta ? "negative" : "stay >= 0") != NULL);
}

TEST(queue_early_gpu_events_clamped_and_reported)
{
    kt_trace *t = early_trace();
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    static const double want[][2] = { { 5, 0 }, { 15, 1 }, { 25, 0 }, { 36, 1 }, { 45, 0 } };
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 5);
    check_series(s, 0, 7, want, 5);
    CHECK_NEAR(num(table(ts, "summary"), 0, "queue_length_min"), 0, 0);
    check_early_row(ts, false);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(queue_early_gpu_events_hta_compat_negative)
{
    kt_trace *t = early_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    static const double want[][2] = { { 0, -1 }, { 5, 0 }, { 15, 1 }, { 25, 0 },
                                      { 33, -1 }, { 35, 0 }, { 36, 1 }, { 45, 0 } };
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 8);
    check_series(s, 0, 7, want, 8);
    CHECK_NEAR(num(table(ts, "summary"), 0, "queue_length_min"), -1, 0);
    check_early_row(ts, true);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* A trace without early GPU events has an empty diagnostics table. */
TEST(queue_no_early_gpu_events_no_diagnostics)
{
    kt_trace *t = queue_trace();
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(table(ts, "diagnostics")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* numpy 1.24 argsort(kind="quicksort") on 20 keys with ties: permutation
 * produced by numpy's algorithm (validated against HTA's queue series on
 * 104k rows of the oracle); a stable sort would order the 1s 3, 9, 14.   */
TEST(np_argsort_matches_numpy_quicksort)
{
    static const int64_t v[20] = { 5, 3, 5, 1, 9, 5, 3, 7, 5, 1, 3, 8, 5, 2, 1, 6, 5, 3, 0, 5 };
    static const uint32_t want[20] = { 18, 9, 3, 14, 13, 1, 17, 6, 10, 16, 12, 0, 8, 5, 2, 19, 15, 7, 11, 4 };
    uint32_t idx[20];
    for (uint32_t i = 0; i < 20; i++) idx[i] = i;
    kt_np_argsort_i64(v, idx, 20);
    for (int i = 0; i < 20; i++) CHECK_INT(idx[i], want[i]);
}

static void copy(kt_trace *t, kt_rank *r, const char *name, int64_t ts, int64_t dur, double gbps)
{
    fx_event(t, r, 'X', strncmp(name, "Memset", 6) ? "gpu_memcpy" : "gpu_memset", name, ts * US, dur * US, 0,
             7, 7, -1);
    if (gbps >= 0) fx_arg_float(r, KT_ARG_MEMORY_BW_GBPS, gbps);
}

/* Copies (µs, GB/s): HtoD 100+10 @2 and 105+10 @3 overlap; a 0-length
 * Memset; an AMD-style DtoH without bandwidth whose 2000 bytes are on the
 * launching hipMemcpyWithStream (1 µs → 2 GB/s); back-to-back DtoD 400+10
 * and 410+10 @1; PtoP 500+10 @0.1 and 503+10 @0.2 (float residue).       */
static kt_trace *copy_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    copy(t, r, "Memcpy HtoD (Pinned -> Device)", 100, 10, 2);
    copy(t, r, "Memcpy HtoD (Pinned -> Device)", 105, 10, 3);
    copy(t, r, "Memset (Device)", 200, 0, 1);
    fx_event(t, r, 'X', "cuda_runtime", "hipMemcpyWithStream", 290 * US, 5 * US, 100, 100, -1, 50);
    fx_arg_int(r, KT_ARG_BYTES, 2000);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy DtoH (Device -> Host)", 300 * US, 1 * US, 0, 7, 7, 50);
    copy(t, r, "Memcpy DtoD (Device -> Device)", 400, 10, 1);
    copy(t, r, "Memcpy DtoD (Device -> Device)", 410, 10, 1);
    copy(t, r, "Memcpy PtoP (Device -> Device)", 500, 10, 0.1);
    copy(t, r, "Memcpy PtoP (Device -> Device)", 503, 10, 0.2);
    fx_finish(t);
    return t;
}

static void check_bw(const kt_table *s, size_t first, const char *name, const double (*want)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        CHECK_STR(kt_table_str(s, first + i, 2), name);
        CHECK_NEAR(num(s, first + i, "ts"), want[i][0] - 100, 1e-9); /* origin: first copy */
        CHECK_NEAR(num(s, first + i, "memory_bw_gbps"), want[i][1], 1e-15);
    }
}

TEST(memcpy_bw_default_steps_bytes_and_exact_zero)
{
    kt_trace *t = copy_trace();
    kt_tables *ts;
    CHECK_INT(kt_memcpy_bw(t, NULL, &ts), KT_OK);
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 12);
    static const double dtod[][2] = { { 400, 1 }, { 420, 0 } };
    static const double dtoh[][2] = { { 300, 2 }, { 301, 0 } };
    static const double htod[][2] = { { 100, 2 }, { 105, 5 }, { 110, 3 }, { 115, 0 } };
    static const double ptop[][2] = { { 500, 0.1 }, { 503, 0.1 + 0.2 }, { 510, 0.1 + 0.2 - 0.1 }, { 513, 0 } };
    check_bw(s, 0, "Memcpy DtoD", dtod, 2);
    check_bw(s, 2, "Memcpy DtoH", dtoh, 2);
    check_bw(s, 4, "Memcpy HtoD", htod, 4);
    check_bw(s, 8, "Memcpy PtoP", ptop, 4);
    CHECK(kt_table_float(s, 11, 3) == 0.0);
    const kt_table *sum = table(ts, "summary");
    CHECK_INT(kt_table_nrows(sum), 4);
    CHECK_STR(kt_table_str(sum, 2, 1), "Memcpy HtoD");
    CHECK_NEAR(num(sum, 2, "memory_bw_gbps_count"), 3, 0);
    CHECK_NEAR(num(sum, 2, "memory_bw_gbps_mean"), 10.0 / 3, 1e-12);
    CHECK_NEAR(num(sum, 3, "memory_bw_gbps_count"), 3, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* HTA: a 0-length copy lasts 1 µs, no bandwidth arg means 0, one row per
 * start/end (back-to-back copies peak at 2), float residues stay > 0.     */
TEST(memcpy_bw_hta_compat)
{
    kt_trace *t = copy_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_memcpy_bw(t, NULL, &ts), KT_OK);
    const kt_table *s = table(ts, "series");
    CHECK_INT(kt_table_nrows(s), 16);
    static const double dtod[][2] = { { 400, 1 }, { 410, 2 }, { 410, 1 }, { 420, 0 } };
    static const double dtoh[][2] = { { 300, 0 }, { 301, 0 } };
    static const double mset[][2] = { { 200, 1 }, { 201, 0 } };
    check_bw(s, 0, "Memcpy DtoD", dtod, 4);
    check_bw(s, 4, "Memcpy DtoH", dtoh, 2);
    check_bw(s, 14, "Memset", mset, 2);
    CHECK(kt_table_float(s, 13, 3) > 0 && kt_table_float(s, 13, 3) < 1e-15); /* PtoP residue */
    const kt_table *sum = table(ts, "summary");
    CHECK_INT(kt_table_nrows(sum), 4); /* DtoD, HtoD, PtoP, Memset: DtoH is all 0 */
    CHECK_NEAR(num(sum, 0, "memory_bw_gbps_mean"), 4.0 / 3, 1e-12);
    CHECK_NEAR(num(sum, 2, "memory_bw_gbps_count"), 4, 0);
    CHECK_STR(kt_table_str(sum, 3, 1), "Memset");
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The default summary counts step-function points, HTA one row per change:
 * a footnote says how many changes were merged (the launch at 30 ties with
 * a kernel start: 14 changes, 12 points); under HTA's rules none.        */
TEST(queue_summary_notes_merged_changes)
{
    kt_trace *t = queue_trace();
    kt_tables *ts;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    const kt_table *sum = table(ts, "summary");
    CHECK_INT(kt_table_nnotes(sum), 1);
    CHECK(kt_table_nnotes(sum) && strstr(kt_table_note(sum, 0), ": 2 launch and GPU-start changes were merged") != NULL);
    kt_tables_free(ts);
    t->hta_compat = true;
    CHECK_INT(kt_queue(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nnotes(table(ts, "summary")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}
