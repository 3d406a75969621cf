/*
 * report_sec_timeline.c — the report's timeline sections: temporal
 * breakdown (per rank and per step), idle time per stream, gaps and
 * kernel-pair transitions, comm/compute overlap; drawn from the tables of
 * kt_temporal, kt_idle, kt_gaps, kt_overlap and kt_breakdown.
 */
#include "analysis/common/kernel_names.h"
#include "report/report_sections.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS 48

static const char *const temporal_cols[] = { "idle_time(us)", "compute_time(us)", "non_compute_time(us)" };
static const char *const temporal_segs[] = { "idle", "compute", "non-compute" };

/* Bars of rows[0..n) of a temporal table, one per row, three segments. */
static kt_status temporal_bars(rp_html *h, const char *title, const char *x_label, const kt_table *t,
                               const size_t *rows, size_t n, const char *const *labels)
{
    double *v = calloc(3 * n + 1, sizeof *v);
    if (!v) return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 3; k++) v[3 * i + k] = rp_num(t, rows[i], rp_col(t, temporal_cols[k]));
    rp_stacked_bars(h, title, x_label, labels, n, temporal_segs, 3, v, RP_US);
    free(v);
    return KT_OK;
}

static void temporal_table(rp_html *h, const kt_table *t)
{
    static const char *const head[] = { "rank", "idle", "compute", "non-compute", "GPU span", "idle %",
                                        "compute %", "non-compute %" };
    static const char *const cols[] = { "rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                        "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
                                        "non_compute_time_pctg" };
    rp_table_begin(h, "Temporal breakdown (kineta temporal)", head, 8);
    for (size_t i = 0; i < kt_table_nrows(t); i++) {
        rp_row_begin(h);
        for (size_t k = 0; k < 8; k++)
            rp_cell_from(h, t, i, rp_col(t, cols[k]), k == 0 ? RP_PLAIN : k < 5 ? RP_US : RP_PCT);
        rp_row_end(h);
    }
    rp_table_end(h);
}

/* Per rank: one bar per ProfilerStep. */
static kt_status temporal_steps(rp_ctx *c, const kt_table *t, size_t *rows)
{
    char (*text)[32] = malloc((kt_table_nrows(t) + 1) * sizeof *text);
    const char **labels = malloc((kt_table_nrows(t) + 1) * sizeof *labels);
    kt_status st = text && labels ? KT_OK : KT_ENOMEM;
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) {
        size_t n = rp_rows_of_rank(t, rp_col(t, "rank"), c->ranks[r], rows);
        rp_rank_panel_begin(c->h, c->ranks[r]);
        for (size_t i = 0; i < n; i++) {
            snprintf(text[i], sizeof text[i], "%.15g", rp_num(t, rows[i], rp_col(t, "step")));
            labels[i] = text[i];
        }
        if (n) st = temporal_bars(c->h, "GPU time per ProfilerStep", "step", t, rows, n, labels);
        else rp_note(c->h, "No ProfilerStep in this rank's trace.");
        rp_rank_panel_end(c->h);
    }
    free(text);
    free(labels);
    return st;
}

kt_status rp_sec_temporal(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_TEMPORAL, "temporal_breakdown");
    if (!t) {
        rp_missing(c, RP_TEMPORAL, "temporal breakdown");
        return KT_OK;
    }
    const kt_table *steps = rp_table(c, RP_TEMPORAL_BY_STEP, "temporal_breakdown");
    size_t cap = kt_table_nrows(t) + (steps ? kt_table_nrows(steps) : 0) + 1;
    size_t *rows = malloc(cap * sizeof *rows), n = 0;
    const char **labels = malloc(cap * sizeof *labels);
    char (*text)[32] = malloc(cap * sizeof *text);
    kt_status st = rows && labels && text ? KT_OK : KT_ENOMEM;
    for (; st == KT_OK && n < kt_table_nrows(t); n++) {
        rows[n] = n;
        snprintf(text[n], sizeof text[n], "rank %.15g", rp_num(t, n, rp_col(t, "rank")));
        labels[n] = text[n];
    }
    rp_raw(c->h, "<div class=\"charts\">");
    if (st == KT_OK) st = temporal_bars(c->h, "GPU time per rank", "rank", t, rows, n, labels);
    rp_raw(c->h, "</div>\n");
    if (st == KT_OK) temporal_table(c->h, t);
    if (st == KT_OK && steps) st = temporal_steps(c, steps, rows);
    free(rows), free(labels), free(text);
    return st;
}

kt_status rp_sec_idle(rp_ctx *c)
{
    static const char *const cats[] = { "host_wait", "kernel_wait", "other" };
    const kt_table *t = rp_table(c, RP_IDLE, "idle_time");
    if (!t) {
        rp_missing(c, RP_IDLE, "idle time");
        return KT_OK;
    }
    size_t *rows = malloc((kt_table_nrows(t) + 1) * sizeof *rows);
    if (!rows) return KT_ENOMEM;
    kt_status st = KT_OK;
    if (c->nranks > 1) {
        rp_raw(c->h, "<div class=\"charts\">");
        st = rp_pivot_bars(c->h, "Idle time per rank (all its streams)", "rank", t, NULL, 0, rp_col(t, "rank"),
                           "rank ", rp_col(t, "idle_category"), cats, 3, rp_col(t, "idle_time"), RP_US);
        rp_raw(c->h, "</div>\n");
    }
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) {
        size_t n = rp_rows_of_rank(t, rp_col(t, "rank"), c->ranks[r], rows);
        rp_rank_panel_begin(c->h, c->ranks[r]);
        if (n)
            st = rp_pivot_bars(c->h, "Idle time per GPU stream", "stream", t, rows, n, rp_col(t, "stream"),
                               "stream ", rp_col(t, "idle_category"), cats, 3, rp_col(t, "idle_time"), RP_US);
        else rp_note(c->h, "No GPU stream with idle time on this rank.");
        rp_rank_panel_end(c->h);
    }
    free(rows);
    const kt_table *s = rp_table(c, RP_IDLE, "interval_stats");
    if (st != KT_OK || !s) return st;
    static const char *const head[] = { "rank", "stream", "category", "intervals", "mean", "median", "max" };
    static const char *const cols[] = { "rank", "stream", "idle_category", "count", "mean", "50%", "max" };
    rp_table_begin(c->h, "Idle intervals (kineta idle)", head, 7);
    for (size_t i = 0; i < kt_table_nrows(s) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < 7; k++) rp_cell_from(c->h, s, i, rp_col(s, cols[k]), k < 2 ? RP_PLAIN : k == 3 ? RP_COUNT : RP_US);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
    return KT_OK;
}

/* One side of a transition: its kernel short form, cut. */
static void side(rp_html *h, const char *name, size_t n)
{
    char *full = malloc(n + 1), *shown = NULL;
    if (full) {
        memcpy(full, name, n);
        full[n] = 0;
        shown = kt_kernel_short_name(full);
    }
    rp_text_cut(h, shown ? shown : full, NAME_CHARS);
    free(shown);
    free(full);
}

/* "A → B", A and B each as short forms cut on their own, the whole pair
 * with full names on hover.                                               */
static void transition_cell(rp_html *h, const char *s)
{
    static const char arrow[] = " → ";
    const char *mid = strstr(s, arrow);
    rp_raw(h, "<td");
    rp_name_attr(h, s);
    rp_raw(h, ">");
    if (!mid) side(h, s, strlen(s));
    else {
        side(h, s, (size_t)(mid - s));
        rp_raw(h, arrow);
        side(h, mid + strlen(arrow), strlen(mid + strlen(arrow)));
    }
    rp_raw(h, "</td>");
}

static kt_status gap_histogram(rp_ctx *c, const kt_table *g)
{
    size_t n = kt_table_nrows(g);
    double *edges = malloc((n + 1) * sizeof *edges), *counts = malloc((n + 1) * sizeof *counts);
    if (!edges || !counts) {
        free(edges), free(counts);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        edges[i] = rp_num(g, i, rp_col(g, "bin_start_us"));
        edges[i + 1] = rp_num(g, i, rp_col(g, "bin_end_us"));
        counts[i] = rp_num(g, i, rp_col(g, "count"));
    }
    rp_raw(c->h, "<div class=\"charts\">");
    rp_histogram(c->h, "Gaps between consecutive GPU events of a stream (all ranks)", "gap (log scale)", edges,
                 counts, n, 1, RP_US);
    rp_raw(c->h, "</div>\n");
    free(edges), free(counts);
    return KT_OK;
}

static void transitions_table(rp_ctx *c, const kt_table *t)
{
    static const char *const head[] = { "rank", "kernel A → kernel B", "count", "mean gap", "max gap", "total gap" };
    static const char *const cols[] = { "count", "avg_gap_us", "max_gap_us", "total_gap_us" };
    rp_table_begin(c->h, "Top kernel-pair transitions by total gap (kineta gaps)", head, 6);
    for (size_t i = 0; i < kt_table_nrows(t) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, t, i, rp_col(t, "rank"), RP_PLAIN);
        transition_cell(c->h, rp_str(t, i, rp_col(t, "transition")));
        for (size_t k = 0; k < 4; k++) rp_cell_from(c->h, t, i, rp_col(t, cols[k]), k ? RP_US : RP_COUNT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

static void device_idle_table(rp_ctx *c, const kt_table *t)
{
    static const char *const head[] = { "rank", "device", "idle intervals", "GPU span", "busy", "idle",
                                        "longest idle", "idle %" };
    static const char *const cols[] = { "rank", "device", "idle_intervals", "span_us", "busy_us", "idle_us",
                                        "max_idle_us", "idle_pctg" };
    rp_table_begin(c->h, "Device idle: holes in the union of all GPU activity", head, 8);
    for (size_t i = 0; i < kt_table_nrows(t); i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < 8; k++)
            rp_cell_from(c->h, t, i, rp_col(t, cols[k]), k < 2 ? RP_PLAIN : k == 2 ? RP_COUNT : k == 7 ? RP_PCT : RP_US);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_gaps(rp_ctx *c)
{
    const kt_table *g = rp_table(c, RP_GAPS, "gap_histogram");
    if (!g) {
        rp_missing(c, RP_GAPS, "gaps");
        return KT_OK;
    }
    kt_status st = gap_histogram(c, g);
    if (st != KT_OK) return st;
    const kt_table *d = rp_table(c, RP_GAPS, "device_idle"), *t = rp_table(c, RP_GAPS, "transitions");
    if (d) device_idle_table(c, d);
    if (t) transitions_table(c, t);
    return KT_OK;
}

/* Overlap % per rank (plain bars), or a note when no rank communicates. */
static kt_status overlap_bars(rp_ctx *c, const kt_table *o)
{
    size_t n = kt_table_nrows(o), shown = 0;
    double *v = malloc((n + 1) * sizeof *v);
    const char **labels = malloc((n + 1) * sizeof *labels);
    char (*text)[32] = malloc((n + 1) * sizeof *text);
    if (!v || !labels || !text) {
        free(v), free(labels), free(text);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = rp_num(o, i, rp_col(o, "comp_comm_overlap_pctg"));
        shown += !isnan(v[i]);
        snprintf(text[i], sizeof text[i], "rank %.15g", rp_num(o, i, rp_col(o, "rank")));
        labels[i] = text[i];
    }
    if (shown)
        rp_whisker_bars(c->h, "Communication time overlapped by computation", "rank", labels, v, NULL, NULL, n, RP_PCT);
    else
        rp_note(c->h, "No communication kernels on any rank: there is nothing to overlap.");
    free(v), free(labels), free(text);
    return KT_OK;
}

static void overlap_steps_table(rp_ctx *c, const kt_table *s)
{
    static const char *const head[] = { "rank", "step", "overlap %" };
    static const char *const cols[] = { "rank", "step", "comp_comm_overlap_pctg" };
    rp_table_begin(c->h, "Overlap per ProfilerStep (kineta overlap --by-step)", head, 3);
    for (size_t i = 0; i < kt_table_nrows(s) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < 3; k++) rp_cell_from(c->h, s, i, rp_col(s, cols[k]), k < 2 ? RP_PLAIN : RP_PCT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_overlap(rp_ctx *c)
{
    static const char *const types[] = { "COMPUTATION", "COMMUNICATION", "COMPUTATION overlapping COMMUNICATION" };
    const kt_table *k = rp_table(c, RP_BREAKDOWN, "kernel_type_by_rank");
    const kt_table *o = rp_table(c, RP_OVERLAP, "comm_comp_overlap");
    kt_status st = KT_OK;
    rp_raw(c->h, "<div class=\"charts\">");
    if (k)
        st = rp_pivot_bars(c->h, "Computation and communication kernel time", "rank", k, NULL, 0, rp_col(k, "rank"),
                           "rank ", rp_col(k, "kernel_type"), types, 3, rp_col(k, "sum"), RP_US);
    if (st == KT_OK && o) st = overlap_bars(c, o);
    rp_raw(c->h, "</div>\n");
    if (!k) rp_missing(c, RP_BREAKDOWN, "kernel time by type");
    if (!o) rp_missing(c, RP_OVERLAP, "overlap");
    const kt_table *s = rp_table(c, RP_OVERLAP_BY_STEP, "comm_comp_overlap");
    if (st == KT_OK && s && kt_table_nrows(s)) overlap_steps_table(c, s);
    return st;
}
