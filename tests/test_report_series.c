/*
 * test_report_series.c — rp_group_series, which cuts the long time-series
 * tables into the report's line-chart series: the groups, their order and
 * labels, points in row order then by x, with rows of one key in one run
 * or interleaved with other keys; and rp_group_points and
 * rp_group_memory, the same series from what the queue and memory
 * analyses keep for the report.
 */
#include "analysis/launch/queue.h"
#include "analysis/memory/memory.h"
#include "fixture.h"
#include "oracle.h"
#include "report/report_sections.h"
#include "table/table.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct point {
    int rank;
    const char *device;
    int stream;
    double ts;
    int a, b;
} point;

/* Columns rank, device (a string), stream (a number), ts, a, b. */
static kt_table *series_table(const point *p, size_t n)
{
    static const char *const names[] = { "rank", "device", "stream", "ts", "a", "b" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_STR, KT_COL_INT, KT_COL_FLOAT, KT_COL_INT, KT_COL_INT };
    kt_table *t = kt_table_new("series");
    for (size_t c = 0; c < 6; c++) kt_table_add_col(t, names[c], types[c], types[c] == KT_COL_FLOAT ? 3 : 0);
    for (size_t i = 0; i < n; i++) {
        kt_table_add_row(t);
        int64_t ints[] = { p[i].rank, 0, p[i].stream, 0, p[i].a, p[i].b };
        for (size_t c = 0; c < 6; c++)
            if (types[c] == KT_COL_INT) kt_table_set_int(t, c, ints[c]);
        kt_table_set_str(t, 1, p[i].device);
        kt_table_set_float(t, 3, p[i].ts);
    }
    return t;
}

static void check_points(const rp_series *s, const double *x, const double *y, size_t n)
{
    CHECK_INT(s->n, n);
    for (size_t i = 0; i < n && i < s->n; i++) {
        CHECK_NEAR(s->x[i], x[i], 0);
        CHECK_NEAR(s->y[i], y[i], 0);
    }
}

TEST(report_series_one_run_per_group)
{
    static const point p[] = { { 0, "cuda:0", 7, 1, 10, 100 }, { 0, "cuda:0", 7, 2, 11, 101 },
                               { 0, "cuda:1", 7, 1, 20, 200 }, { 1, "cuda:0", 7, 5, 30, 300 },
                               { 1, "cuda:0", 7, 4, 31, 301 } }; /* the last out of time order: sorted */
    kt_table *t = series_table(p, 5);
    rp_groups g[2];
    CHECK_INT(rp_group_series(t, 0, 0, 1, "a ", 3, 4, &g[0]), KT_OK);
    CHECK_INT(rp_group_series(t, 0, 0, 1, "b ", 3, 5, &g[1]), KT_OK);
    CHECK_INT(g[0].n, 3);
    CHECK_INT(g[1].n, 3);
    CHECK_STR(g[0].s[0].label, "a cuda:0");
    CHECK_STR(g[0].s[1].label, "a cuda:1");
    CHECK_STR(g[1].s[2].label, "b cuda:0");
    CHECK_INT(g[0].rank[1], 0);
    CHECK_INT(g[1].rank[2], 1);
    check_points(&g[0].s[0], (const double[]){ 1, 2 }, (const double[]){ 10, 11 }, 2);
    check_points(&g[1].s[1], (const double[]){ 1 }, (const double[]){ 200 }, 1);
    check_points(&g[0].s[2], (const double[]){ 4, 5 }, (const double[]){ 31, 30 }, 2);
    check_points(&g[1].s[2], (const double[]){ 4, 5 }, (const double[]){ 301, 300 }, 2);
    rp_groups_free(&g[0]);
    rp_groups_free(&g[1]);
    kt_table_free(t);
}

TEST(report_series_interleaved_keys_and_absent_columns)
{
    static const point p[] = { { 0, "x", 3, 1, 1, 0 }, { 0, "x", 9, 1, 2, 0 }, { 0, "x", 3, 2, 3, 0 },
                               { 0, "x", 9, 3, 4, 0 }, { 0, "x", 3, 0.5, 5, 0 } };
    kt_table *t = series_table(p, 5);
    rp_groups g;
    /* no k1 column: a NaN key equal on every row */
    CHECK_INT(rp_group_series(t, 0, -1, 2, "stream ", 3, 4, &g), KT_OK);
    CHECK_INT(g.n, 2);
    CHECK_STR(g.s[0].label, "stream 3");
    CHECK_STR(g.s[1].label, "stream 9");
    check_points(&g.s[0], (const double[]){ 0.5, 1, 2 }, (const double[]){ 5, 1, 3 }, 3);
    check_points(&g.s[1], (const double[]){ 1, 3 }, (const double[]){ 2, 4 }, 2);
    rp_groups_free(&g);
    kt_table_free(t);
}

TEST(report_series_empty_table)
{
    kt_table *t = series_table(NULL, 0);
    rp_groups g;
    CHECK_INT(rp_group_series(t, 0, 2, 1, "", 3, 4, &g), KT_OK);
    CHECK_INT(g.n, 0);
    rp_groups_free(&g);
    kt_table_free(t);
}

/* A line chart drawn from series marked sorted (its x range read at the
 * ends) is the one drawn scanning every x: first x, ties and ±0 at the
 * ends, several series; a NaN x is never marked sorted.                  */
static char *lines_svg(const rp_series *s, size_t ns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rp_html h = { .f = f };
    rp_lines(&h, "t", "x", RP_US, "y", RP_COUNT, s, ns, 1, 400);
    fclose(f);
    return buf;
}

TEST(report_series_sorted_range_as_scanned)
{
    static const double x1[] = { 0.0, -0.0, 3, 5, 5 }, y1[] = { 1, 2, 3, 4, 5 };
    static const double x2[] = { -0.0, 0.0, 9, 9, 9 }, y2[] = { 7, 1, 0, 2, 2 };
    rp_series s[2] = { { "a", x1, y1, 5, false }, { "b", x2, y2, 5, false } };
    char *scanned = lines_svg(s, 2);
    s[0].x_sorted = s[1].x_sorted = true;
    char *ends = lines_svg(s, 2);
    CHECK(scanned && ends);
    if (scanned && ends) CHECK_STR(ends, scanned);
    free(scanned), free(ends);
    static const point p[] = { { 0, "x", 1, NAN, 1, 0 } };
    kt_table *t = series_table(p, 1);
    rp_groups g;
    CHECK_INT(rp_group_series(t, 0, -1, 2, "", 3, 4, &g), KT_OK);
    CHECK_INT(g.n, 1);
    if (g.n) CHECK(!g.s[0].x_sorted);
    rp_groups_free(&g);
    kt_table_free(t);
}

static bool keep_points(void *ctx, const kt_rank *r, kt_step_point *p, size_t n)
{
    rp_kept_points *kept = ctx;
    size_t i = 0;
    while (kept[i].p) i++;
    kept[i] = (rp_kept_points){ r, p, n };
    return true;
}

/* The queue section draws kept points (rp_group_points) where it drew
 * the series table (rp_group_series): the same series, labels, ranks and
 * values, on two ranks of two devices' streams (rank 1: both devices have
 * stream 7), launches overlapping.                                        */
TEST(report_series_points_split_as_their_table)
{
    kt_trace *t = fx_trace();
    for (int rank = 0; rank < 2; rank++) {
        kt_rank *r = fx_rank(t, rank);
        for (int i = 0; i < 40; i++) {
            int64_t ts = 1000 * i, corr = 100 * rank + i, stream = rank ? 7 : 7 + i % 3, pid = i % 2;
            fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", ts, 20, 10, 11, -1, corr);
            fx_event(t, r, 'X', "kernel", "k", ts + 1500 + 137 * (i % 5), 900, pid, stream, stream, corr);
        }
    }
    fx_finish(t);
    kt_tables *tables = NULL, *weighted = NULL;
    rp_kept_points kept[3] = { 0 };
    CHECK_INT(kt_queue_tables(t, NULL, NULL, KT_QUEUE_SERIES, &tables), KT_OK);
    CHECK_INT(kt_queue_tables_keep(t, NULL, NULL, KT_QUEUE_WEIGHTED, keep_points, kept, &weighted), KT_OK);
    const kt_table *s = kt_tables_find(tables, "series");
    rp_groups from_table, from_points;
    CHECK_INT(rp_group_series(s, kt_table_col_index(s, "rank"), kt_table_col_index(s, "pid"),
                              kt_table_col_index(s, "stream"), "stream ", kt_table_col_index(s, "ts"),
                              kt_table_col_index(s, "queue_length"), &from_table),
              KT_OK);
    CHECK_INT(rp_group_points(t, kept, 2, "stream ", &from_points), KT_OK);
    CHECK_INT(from_points.n, from_table.n);
    CHECK(from_table.n == 8); /* rank 0: 2 devices x 3 streams; rank 1: one stream on each */
    for (size_t g = 0; g < from_table.n && g < from_points.n; g++) {
        CHECK_STR(from_points.s[g].label, from_table.s[g].label);
        CHECK_INT(from_points.rank[g], from_table.rank[g]);
        CHECK_INT(from_points.s[g].x_sorted, from_table.s[g].x_sorted);
        check_points(&from_points.s[g], from_table.s[g].x, from_table.s[g].y, from_table.s[g].n);
    }
    rp_groups_free(&from_table);
    rp_groups_free(&from_points);
    for (size_t i = 0; i < 2; i++) free(kept[i].p);
    kt_tables_free(tables);
    kt_tables_free(weighted);
    kt_trace_free(t);
}

static bool keep_memory(void *ctx, const kt_rank *r, kt_mem_rank *m)
{
    rp_kept_memory *kept = ctx;
    size_t i = 0;
    while (kept[i].r) i++;
    kept[i] = (rp_kept_memory){ r, *m };
    return true;
}

#define MEM(ts, dev, total, reserved)                                                                   \
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, " \
    "\"tid\": 1, \"ts\": " #ts ", \"args\": {\"Device Type\": 1, \"Device Id\": " #dev ", \"Addr\": 1, " \
    "\"Bytes\": 8, \"Total Allocated\": " #total ", \"Total Reserved\": " #reserved "}},\n"

/* The memory section draws the [memory] events kt_memory keeps
 * (rp_group_memory) where it drew its series table: the same series for
 * two devices, out of time order in the file, a negative total left out. */
TEST(report_series_memory_split_as_its_table)
{
    static const char *const trace =
        "{\"traceEvents\": [\n" MEM(30, 1, 300, 1000) MEM(10, 0, 100, 500) MEM(20, 1, 200, 1000)
            MEM(25, 0, -5, 500) MEM(40, 0, 150, 600) MEM(15, 0, 120, 500)
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 50}\n"
        "]}\n";
    char dir[] = "/tmp/kt_rseries_XXXXXX", in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/mem.json", dir);
    FILE *f = fopen(in, "w");
    CHECK(f && fputs(trace, f) >= 0 && fclose(f) == 0);
    kt_trace *t = fx_load_path(in, false);
    remove(in);
    rmdir(dir);
    if (!t) return;
    kt_memory_options o = kt_memory_defaults();
    kt_tables *tables = NULL, *kept_tables = NULL;
    rp_kept_memory kept[2] = { 0 };
    CHECK_INT(kt_memory(t, NULL, &o, &tables, NULL), KT_OK);
    o.no_series = 1;
    CHECK_INT(kt_memory_keeping(t, NULL, &o, NULL, keep_memory, kept, &kept_tables, NULL), KT_OK);
    const kt_table *s = kt_tables_find(tables, "series");
    rp_groups from_table[2], from_events[2];
    static const char *const ys[2] = { "allocated", "reserved" }, *const prefixes[2] = { "allocated ", "reserved " };
    long rank = kt_table_col_index(s, "rank"), device = kt_table_col_index(s, "device");
    long ts = kt_table_col_index(s, "ts");
    for (size_t k = 0; k < 2; k++)
        CHECK_INT(rp_group_series(s, rank, rank, device, prefixes[k], ts, kt_table_col_index(s, ys[k]), &from_table[k]),
                  KT_OK);
    CHECK_INT(rp_group_memory(t, kept, 1, from_events), KT_OK);
    for (size_t k = 0; k < 2; k++) {
        CHECK_INT(from_table[k].n, 2);
        CHECK_INT(from_events[k].n, from_table[k].n);
        for (size_t g = 0; g < from_table[k].n && g < from_events[k].n; g++) {
            CHECK_STR(from_events[k].s[g].label, from_table[k].s[g].label);
            CHECK_INT(from_events[k].rank[g], from_table[k].rank[g]);
            check_points(&from_events[k].s[g], from_table[k].s[g].x, from_table[k].s[g].y, from_table[k].s[g].n);
        }
        rp_groups_free(&from_table[k]);
        rp_groups_free(&from_events[k]);
    }
    kt_mem_rank_free(&kept[0].m);
    kt_tables_free(tables);
    kt_tables_free(kept_tables);
    kt_trace_free(t);
}
