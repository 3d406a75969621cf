/* test_idle.c — idle time breakdown per stream (host/kernel wait, other). */
#include "fixture.h"
#include "table/table.h"
#include "test.h"

#define US 1000

/* Stream 7 of device 0 (µs, launch time in brackets): k1 100–110 [90],
 * k2 112–120 [95] kernel_wait 2, k3 200–210 [150] host_wait 80, k4 260–270
 * [100] other 50, k5 265–275 [100] overlaps k4 by 5, a Stream Wait Event
 * 276–279 (not a kernel), memcpy 280–290 (no launch) kernel_wait 5.
 * Stream 8 of device 1: one kernel.                                         */
static kt_trace *idle_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 2);
    static const struct { int64_t launch, ts, dur; } k[] = {
        { 90, 100, 10 }, { 95, 112, 8 }, { 150, 200, 10 }, { 100, 260, 10 }, { 100, 265, 10 },
    };
    for (int i = 0; i < 5; i++) {
        fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", k[i].launch * US, 1 * US, 1, 1, -1, 100 + i);
        fx_event(t, r, 'X', "kernel", i == 3 ? "other_kernel" : "some_kernel", k[i].ts * US, k[i].dur * US, 0,
                 7, 7, 100 + i);
    }
    fx_event(t, r, 'X', "cuda_sync", "Stream Wait Event", 276 * US, 3 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 280 * US, 10 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "kernel", "lonely", 50 * US, 10 * US, 1, 8, 8, -1);
    fx_finish(t);
    return t;
}

TEST(idle_default_categories_and_clamped_overlap)
{
    kt_trace *t = idle_trace();
    kt_tables *ts;
    CHECK_INT(kt_idle(t, NULL, NULL, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "idle_time");
    CHECK_INT(kt_table_nrows(tb), 6); /* 3 categories × 2 streams */
    CHECK_STR(kt_table_col_name(tb, 5), "device");
    CHECK_STR(kt_table_str(tb, 0, 2), "host_wait");
    CHECK_NEAR(fx_num(tb, 0, "idle_time"), 80, 1e-9);
    CHECK_NEAR(fx_num(tb, 1, "idle_time"), 7, 1e-9);   /* 2 + 0 (overlap) + 5 */
    CHECK_NEAR(fx_num(tb, 2, "idle_time"), 50, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "idle_time_ratio"), 80.0 / 137, 1e-12);
    CHECK_INT(kt_table_int(tb, 3, 1), 8);
    CHECK_INT(kt_table_int(tb, 3, 5), 1);
    CHECK_NEAR(fx_num(tb, 5, "idle_time"), 0, 0);
    CHECK(kt_table_is_null(tb, 5, 4)); /* 0/0 */

    const kt_table *st = fx_table(ts, "interval_stats");
    CHECK_INT(kt_table_nrows(st), 6);
    CHECK_STR(kt_table_str(st, 1, 0), "kernel_wait");
    CHECK_INT(kt_table_int(st, 1, 3), 3);
    CHECK_NEAR(fx_num(st, 1, "mean"), 7.0 / 3, 1e-12);
    CHECK_NEAR(fx_num(st, 1, "std"), sqrt(19.0 / 3), 1e-12);
    CHECK_NEAR(fx_num(st, 1, "min"), 0, 0);
    CHECK_NEAR(fx_num(st, 1, "25%"), 1, 1e-12);
    CHECK_NEAR(fx_num(st, 1, "50%"), 2, 1e-12);
    CHECK_NEAR(fx_num(st, 1, "75%"), 3.5, 1e-12);
    CHECK_NEAR(fx_num(st, 1, "max"), 5, 0);
    CHECK(kt_table_is_null(st, 0, 5)); /* one host_wait gap: no std */
    CHECK_INT(kt_table_int(st, 5, 3), 0);
    CHECK(kt_table_is_null(st, 5, 4));
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* HTA measures from the previous event's end (negative gaps stay) and
 * lists a category only when it has gaps, except "other".                 */
TEST(idle_hta_compat_negative_gap_and_sparse_rows)
{
    kt_trace *t = idle_trace();
    t->hta_compat = true;
    kt_tables *ts;
    CHECK_INT(kt_idle(t, NULL, NULL, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "idle_time");
    CHECK_INT(kt_table_ncols(tb), 5);
    CHECK_INT(kt_table_nrows(tb), 4); /* stream 8: only "other" */
    CHECK_NEAR(fx_num(tb, 1, "idle_time"), 2, 1e-9); /* 2 − 5 + 5 */
    CHECK_NEAR(fx_num(tb, 0, "idle_time_ratio"), 0.61, 1e-12); /* round(80/132, 2) */
    CHECK_STR(kt_table_str(tb, 3, 2), "other");
    CHECK(kt_table_is_null(tb, 3, 4));
    const kt_table *st = fx_table(ts, "interval_stats");
    CHECK_NEAR(fx_num(st, 1, "mean"), 0.67, 1e-12);
    CHECK_NEAR(fx_num(st, 1, "min"), -5, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(idle_delay_and_stream_options)
{
    kt_trace *t = idle_trace();
    int64_t only7 = 7;
    kt_idle_options o = { .size = sizeof o, .consecutive_kernel_delay_us = 60, .streams = &only7, .nstreams = 1 };
    kt_tables *ts;
    CHECK_INT(kt_idle(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "idle_time");
    CHECK_INT(kt_table_nrows(tb), 3);
    CHECK_NEAR(fx_num(tb, 1, "idle_time"), 57, 1e-9); /* the 50 µs gap is now kernel_wait */
    CHECK_NEAR(fx_num(tb, 2, "idle_time"), 0, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}
