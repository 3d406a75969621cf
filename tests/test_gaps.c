/* test_gaps.c — stream gaps, device idle, histogram, kernel-pair transitions. */
#include "fixture.h"
#include "table/table.h"
#include "test.h"
#include "../programs/cli.h"

#include <stdlib.h>

#define US 1000

/* Device 0 stream 7 (µs): kA<float> 0–10, kB 15–20 (gap 5), kA<double>
 * 30–40 (gap 10), kB 42–45 (gap 2), kB 45–50 (back to back).  Device 0
 * stream 8: kC 5–25.  Device 1 stream 7: kD 100–110.  GPU steps: #1 0–28,
 * #2 28–60 (device 0).                                                      */
static kt_trace *gaps_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#1", 0, 28 * US, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#2", 28 * US, 32 * US, 0, 7, -1, -1);
    static const struct { const char *name; int64_t ts, dur, dev, stream; } k[] = {
        { "void kA<float>(float*)", 0, 10, 0, 7 },  { "void kB<float>(float*)", 15, 5, 0, 7 },
        { "void kA<double>(double*)", 30, 10, 0, 7 }, { "void kB<float>(float*)", 42, 3, 0, 7 },
        { "void kB<float>(float*)", 45, 5, 0, 7 },  { "kC", 5, 20, 0, 8 },
        { "kD", 100, 10, 1, 7 },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        fx_event(t, r, 'X', "kernel", k[i].name, k[i].ts * US, k[i].dur * US, k[i].dev, k[i].stream,
                 (int32_t)k[i].stream, -1);
    fx_finish(t);
    return t;
}

TEST(gaps_device_idle_is_union_holes_not_sum_of_stream_gaps)
{
    kt_trace *t = gaps_trace();
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, NULL, &ts), KT_OK);
    const kt_table *d = fx_table(ts, "device_idle");
    CHECK_INT(kt_table_nrows(d), 2);
    CHECK_NEAR(fx_num(d, 0, "span_us"), 50, 1e-9);
    CHECK_NEAR(fx_num(d, 0, "busy_us"), 43, 1e-9);
    CHECK_NEAR(fx_num(d, 0, "idle_us"), 7, 1e-9);
    CHECK_NEAR(fx_num(d, 0, "idle_intervals"), 2, 0);
    CHECK_NEAR(fx_num(d, 0, "max_idle_us"), 5, 1e-9);
    CHECK_NEAR(fx_num(d, 1, "device"), 1, 0);
    CHECK_NEAR(fx_num(d, 1, "idle_us"), 0, 0);

    const kt_table *s = fx_table(ts, "stream_gaps");
    CHECK_INT(kt_table_nrows(s), 3);
    CHECK_NEAR(fx_num(s, 0, "events"), 5, 0);
    CHECK_NEAR(fx_num(s, 0, "gaps"), 3, 0);
    CHECK_NEAR(fx_num(s, 0, "gap_total_us"), 17, 1e-9); /* not the device's 7 µs idle */
    CHECK_NEAR(fx_num(s, 0, "gap_mean_us"), 17.0 / 3, 1e-9);
    CHECK_NEAR(fx_num(s, 0, "gap_max_us"), 10, 1e-9);
    CHECK_NEAR(fx_num(s, 1, "gaps"), 0, 0);
    CHECK(kt_table_is_null(s, 1, 6));
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(gaps_transitions_full_and_short_names)
{
    kt_trace *t = gaps_trace();
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, NULL, &ts), KT_OK);
    const kt_table *p = fx_table(ts, "transitions");
    CHECK_INT(kt_table_nrows(p), 3); /* full names: kA<float>→kB, kB→kA<double>, kA<double>→kB */
    CHECK_STR(kt_table_str(p, 0, 1), "void kB<float>(float*) \xe2\x86\x92 void kA<double>(double*)");
    CHECK_NEAR(fx_num(p, 0, "total_gap_us"), 10, 1e-9);
    kt_tables_free(ts);

    /* short names stay distinct (kA<float> vs kA<double>), so no merging */
    kt_gaps_options o = kt_gaps_defaults();
    o.short_names = 1;
    o.sort = KT_GAP_SORT_AVG;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK);
    p = fx_table(ts, "transitions");
    CHECK_INT(kt_table_nrows(p), 3);
    CHECK_STR(kt_table_str(p, 0, 1), "kB \xe2\x86\x92 kA<double>");
    CHECK_STR(kt_table_str(p, 1, 1), "kA<float> \xe2\x86\x92 kB");
    CHECK_NEAR(fx_num(p, 2, "avg_gap_us"), 2, 1e-9);
    CHECK_NEAR(fx_num(p, 2, "std_gap_us"), 0, 0); /* one gap */
    kt_tables_free(ts);

    o.top = 1;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "transitions")), 1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(gaps_histogram_bins_and_range)
{
    kt_trace *t = gaps_trace();
    kt_gaps_options o = kt_gaps_defaults();
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK); /* log bins over 2..10 µs */
    const kt_table *h = fx_table(ts, "gap_histogram");
    CHECK_INT(kt_table_nrows(h), 20);
    CHECK_NEAR(fx_num(h, 0, "bin_start_us"), 2, 1e-9);
    CHECK_NEAR(fx_num(h, 0, "count"), 1, 0);
    CHECK_NEAR(fx_num(h, 10, "bin_start_us"), sqrt(20), 1e-9); /* geometric middle */
    CHECK_NEAR(fx_num(h, 19, "bin_end_us"), 10, 1e-9);
    CHECK_NEAR(fx_num(h, 19, "count"), 1, 0);
    kt_tables_free(ts);

    o.linear = 1;
    o.bins = 2;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK);
    h = fx_table(ts, "gap_histogram");
    CHECK_INT(kt_table_nrows(h), 2);
    CHECK_NEAR(fx_num(h, 0, "bin_end_us"), 6, 1e-9);
    CHECK_NEAR(fx_num(h, 0, "count"), 2, 0);
    CHECK_NEAR(fx_num(h, 1, "count"), 1, 0);
    kt_tables_free(ts);

    o.bins = 1;
    o.hist_min_us = 3;
    o.hist_max_us = 8;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK);
    h = fx_table(ts, "gap_histogram");
    CHECK_INT(kt_table_nrows(h), 3); /* below, [3, 8], above */
    CHECK(kt_table_is_null(h, 0, 0));
    CHECK_NEAR(fx_num(h, 1, "count"), 1, 0);
    CHECK(kt_table_is_null(h, 2, 1));
    CHECK_NEAR(fx_num(h, 2, "percent"), 100.0 / 3, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(gaps_one_profiler_step)
{
    kt_trace *t = gaps_trace();
    kt_gaps_options o = kt_gaps_defaults();
    o.step = 2;
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, &o, &ts), KT_OK);
    const kt_table *d = fx_table(ts, "device_idle");
    CHECK_INT(kt_table_nrows(d), 1);
    CHECK_NEAR(fx_num(d, 0, "idle_us"), 2, 1e-9);
    const kt_table *s = fx_table(ts, "stream_gaps");
    CHECK_INT(kt_table_nrows(s), 1);
    CHECK_NEAR(fx_num(s, 0, "events"), 3, 0);
    CHECK_NEAR(fx_num(s, 0, "gap_total_us"), 2, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(gaps_transition_statistics)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    static const struct { const char *name; int64_t ts; } k[] = { { "A", 0 }, { "B", 3 }, { "A", 10 }, { "B", 16 } };
    for (size_t i = 0; i < 4; i++) fx_event(t, r, 'X', "kernel", k[i].name, k[i].ts * US, US, 0, 7, 7, -1);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, NULL, &ts), KT_OK);
    const kt_table *p = fx_table(ts, "transitions");
    CHECK_INT(kt_table_nrows(p), 2);
    CHECK_STR(kt_table_str(p, 0, 1), "A \xe2\x86\x92 B"); /* total 2 + 5 beats B → A's 6 */
    CHECK_NEAR(fx_num(p, 0, "count"), 2, 0);
    CHECK_NEAR(fx_num(p, 0, "avg_gap_us"), 3.5, 1e-9);
    CHECK_NEAR(fx_num(p, 0, "min_gap_us"), 2, 1e-9);
    CHECK_NEAR(fx_num(p, 0, "max_gap_us"), 5, 1e-9);
    CHECK_NEAR(fx_num(p, 0, "std_gap_us"), 3 / sqrt(2), 1e-9); /* sample std */
    CHECK_NEAR(fx_num(p, 0, "total_gap_us"), 7, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

extern const cli_command cmd_gaps;

static char *print_gaps(const kt_tables *ts, const cli_ctx *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(cmd_gaps.print(ctx, ts, f), 0);
    fclose(f);
    return buf;
}

/* -o FILE without --format: a text report of every table, histogram drawn. */
TEST(gaps_report_prints_every_table)
{
    kt_trace *t = gaps_trace();
    kt_tables *ts;
    CHECK_INT(kt_gaps(t, NULL, NULL, &ts), KT_OK);
    cli_ctx report = { .format = FMT_CSV, .out_path = "report.txt" };
    char *s = print_gaps(ts, &report);
    CHECK(strstr(s, "== device_idle (2 rows)") && strstr(s, "== stream_gaps (3 rows)"));
    CHECK(strstr(s, "== gap_histogram (20 bins") && strstr(s, "\xe2\x96\x88| 1 (33.3%)"));
    CHECK(strstr(s, "== transitions (3 rows)") != NULL);
    free(s);
    cli_ctx csv = { .format = FMT_CSV, .format_given = true, .table = "stream_gaps" };
    s = print_gaps(ts, &csv);
    static const char head[] = "rank,device,stream,events,gaps,gap_total_us,gap_mean_us,gap_max_us\n0,0,7,5,3,17,";
    CHECK(!strncmp(s, head, sizeof head - 1));
    free(s);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The reduce of two ranks mapped apart (the same trace twice): per-rank
 * rows concatenated, the histogram over both ranks' gaps (2, 5, 10 µs each). */
TEST(gaps_reduce_bins_the_gaps_of_every_partial)
{
    kt_trace *t = gaps_trace();
    kt_tables *p[2], *ts;
    CHECK_INT(kt_gaps_map(t, NULL, NULL, &p[0]), KT_OK);
    CHECK_INT(kt_gaps_map(t, NULL, NULL, &p[1]), KT_OK);
    CHECK(kt_tables_find(p[0], "gap_histogram") == NULL); /* made by the reduce */
    CHECK_INT(kt_gaps_reduce((const kt_tables *const *)p, 2, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "stream_gaps")), 6);
    const kt_table *h = fx_table(ts, "gap_histogram");
    CHECK_INT(kt_table_nrows(h), 20);
    CHECK_NEAR(fx_num(h, 0, "bin_start_us"), 2, 1e-12);
    CHECK_NEAR(fx_num(h, 19, "bin_end_us"), 10, 1e-12);
    CHECK_NEAR(fx_num(h, 0, "count"), 2, 0);
    CHECK_NEAR(fx_num(h, 0, "percent"), 100.0 / 3, 1e-9);
    CHECK_NEAR(fx_num(h, 19, "count"), 2, 0);
    kt_tables_free(ts);
    kt_tables *one;
    CHECK_INT(kt_gaps(t, NULL, NULL, &one), KT_OK); /* one rank: half of each count */
    CHECK_NEAR(fx_num(fx_table(one, "gap_histogram"), 0, "count"), 1, 0);
    /* final tables are no partial: no gap_values */
    CHECK_INT(kt_gaps_reduce((const kt_tables *const *)&one, 1, NULL, &ts), KT_EINPUT);
    kt_tables_free(one);
    kt_tables_free(p[0]);
    kt_tables_free(p[1]);
    kt_trace_free(t);
}
