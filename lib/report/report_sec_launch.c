/*
 * report_sec_launch.c — the report's launch sections: launch delay and
 * launch-call duration histograms with HTA's outlier sets, queue length
 * and memcpy bandwidth over time; from kt_launch, kt_queue, kt_memcpy_bw.
 */
#include "report/report_bins.h"
#include "report/report_sections.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BINS RP_LOG_BINS
#define MAX_LINES 10 /* series per chart: one colour each */

/* Log-spaced histograms of one column of "launches", one per rank, on
 * shared bins from 1 µs (or the smallest positive value) to the largest. */
typedef struct launch_hist {
    rp_log_bins bins;
    double *counts; /* nranks x BINS */
} launch_hist;

/* Index of rank in c->ranks (c->nranks when not shown); *last, the index
 * found before, is tried first: a table's rows come rank by rank.        */
static size_t rank_index(const rp_ctx *c, double rank, size_t *last)
{
    if (*last < c->nranks && c->ranks[*last] == rank) return *last;
    size_t lo = 0, hi = c->nranks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->ranks[mid] < rank) lo = mid + 1;
        else hi = mid;
    }
    return *last = lo < c->nranks && c->ranks[lo] == rank ? lo : c->nranks;
}

/* Each row's place in c->ranks (c->nranks: a rank not shown), found once
 * for both histograms; NULL without memory.                             */
static size_t *row_ranks(const rp_ctx *c, const kt_table *t)
{
    size_t n = kt_table_nrows(t), last = 0, *at = malloc((n + 1) * sizeof *at);
    double *rank = malloc((n + 1) * sizeof *rank);
    if (!at || !rank) {
        free(at), free(rank);
        return NULL;
    }
    rp_nums(t, rp_col(t, "rank"), rank);
    for (size_t i = 0; i < n; i++) at[i] = rank_index(c, rank[i], &last);
    free(rank);
    return at;
}

/* Launch times take few distinct values (whole µs in most traces): the
 * bin of each value is remembered, direct-mapped by its bits (a bin found
 * anew per launch was a third of the section).  Equal values have one
 * bin; no NaN is looked up, so NaN marks an empty slot.                  */
#define BIN_MEMO 4096
typedef struct bin_memo {
    double v[BIN_MEMO];
    uint8_t bin[BIN_MEMO];
} bin_memo;

static size_t memo_bin(bin_memo *m, const rp_log_bins *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    size_t at = (size_t)((bits * 0x9E3779B97F4A7C15u) >> 52);
    if (m->v[at] != v) m->v[at] = v, m->bin[at] = (uint8_t)rp_log_bin(b, v);
    return m->bin[at];
}

static kt_status launch_hist_fill(rp_ctx *c, const kt_table *t, const char *col_name, const size_t *at,
                                  launch_hist *hs)
{
    size_t n = kt_table_nrows(t);
    double *val = malloc((n + 1) * sizeof *val), lo = 1, hi = 0;
    bin_memo *memo = malloc(sizeof *memo);
    hs->counts = calloc(c->nranks * BINS + 1, sizeof *hs->counts);
    if (!val || !memo || !hs->counts) {
        free(val), free(memo);
        return KT_ENOMEM;
    }
    for (size_t k = 0; k < BIN_MEMO; k++) memo->v[k] = NAN;
    rp_nums(t, rp_col(t, col_name), val);
    for (size_t i = 0; i < n; i++) {
        if (val[i] > 0 && val[i] < lo) lo = val[i];
        if (val[i] > hi) hi = val[i];
    }
    if (!(hi > lo)) hi = lo * 10;
    rp_log_bins_init(&hs->bins, lo, hi);
    for (size_t i = 0; i < n; i++)
        if (!isnan(val[i]) && at[i] < c->nranks) hs->counts[at[i] * BINS + memo_bin(memo, &hs->bins, val[i])]++;
    free(val), free(memo);
    return KT_OK;
}

/* One row per rank: the outlier sets of "short_gpu_kernels",
 * "runtime_outliers" and "launch_delay_outliers".                          */
static void outliers_table(rp_ctx *c)
{
    static const char *const head[] = { "rank", "launches", "short kernels", "% short", "runtime outliers",
                                        "% runtime outliers", "delay outliers", "% delay outliers", "max delay" };
    const kt_table *s = rp_table(c, RP_LAUNCH, "short_gpu_kernels"), *r = rp_table(c, RP_LAUNCH, "runtime_outliers");
    const kt_table *d = rp_table(c, RP_LAUNCH, "launch_delay_outliers");
    if (!s || !r || !d) return;
    rp_table_begin(c->h, "Launch outliers (kineta launch; cutoffs 50 µs call, 100 µs delay)", head, 9);
    for (size_t i = 0; i < kt_table_nrows(d); i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, d, i, rp_col(d, "rank"), RP_PLAIN);
        rp_cell_from(c->h, d, i, rp_col(d, "launches"), RP_COUNT);
        rp_cell_from(c->h, s, i, rp_col(s, "cpu_duration_count"), RP_COUNT);
        rp_cell_from(c->h, s, i, rp_col(s, "pct_of_launches"), RP_PCT);
        rp_cell_from(c->h, r, i, rp_col(r, "cpu_duration_count"), RP_COUNT);
        rp_cell_from(c->h, r, i, rp_col(r, "pct_of_launches"), RP_PCT);
        rp_cell_from(c->h, d, i, rp_col(d, "launch_delay_count"), RP_COUNT);
        rp_cell_from(c->h, d, i, rp_col(d, "pct_of_launches"), RP_PCT);
        rp_cell_from(c->h, d, i, rp_col(d, "launch_delay_max"), RP_US);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_launch(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_LAUNCH, "launches");
    if (!t) {
        rp_missing(c, RP_LAUNCH, "launches");
        return KT_OK;
    }
    launch_hist delay = { 0 }, call = { 0 };
    size_t *at = row_ranks(c, t);
    kt_status st = at ? launch_hist_fill(c, t, "launch_delay", at, &delay) : KT_ENOMEM;
    if (st == KT_OK) st = launch_hist_fill(c, t, "cpu_duration", at, &call);
    free(at);
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) {
        rp_rank_panel_begin(c->h, c->ranks[r]);
        double launches = 0;
        for (int b = 0; b < BINS; b++) launches += delay.counts[r * BINS + (size_t)b];
        if (!launches) {
            rp_note(c->h, "No launch call linked to a GPU event on this rank (under --hta-compat only HTA's CUDA "
                          "launch APIs count).");
            rp_rank_panel_end(c->h);
            continue;
        }
        rp_raw(c->h, "<div class=\"charts\">");
        rp_histogram(c->h, "Launch delay", "GPU start − end of launch call (log scale; shorter: first bin)",
                     delay.bins.edges, delay.counts + r * BINS, BINS, 1, RP_US);
        rp_histogram(c->h, "Launch call duration", "CPU time of the launch call (log scale)", call.bins.edges,
                     call.counts + r * BINS, BINS, 1, RP_US);
        rp_raw(c->h, "</div>\n");
        rp_rank_panel_end(c->h);
    }
    free(delay.counts), free(call.counts);
    if (st == KT_OK) outliers_table(c);
    return st;
}

/* Per rank, one line chart of that rank's series (at most MAX_LINES). */
static void rank_lines(rp_ctx *c, const rp_groups *g, const char *title, const char *y_label, rp_unit y_unit,
                       rp_series *buf, const char *none)
{
    for (size_t r = 0; r < c->nranks; r++) {
        size_t n = 0, more = 0;
        for (size_t i = 0; i < g->n; i++)
            if (g->rank[i] == c->ranks[r]) {
                if (n < MAX_LINES) buf[n++] = g->s[i];
                else more++;
            }
        rp_rank_panel_begin(c->h, c->ranks[r]);
        if (n) rp_lines(c->h, title, "time since trace start", RP_US, y_label, y_unit, buf, n, 1, c->opt->max_points);
        else rp_note(c->h, none);
        if (more) {
            char b[96];
            snprintf(b, sizeof b, "%zu more series not drawn.", more);
            rp_note(c->h, b);
        }
        rp_rank_panel_end(c->h);
    }
}

static void weighted_table(rp_ctx *c, const kt_table *w)
{
    static const char *const head[] = { "rank", "stream", "time-weighted mean", "median", "p90", "p99", "max",
                                        "% of time empty" };
    static const char *const cols[] = { "rank", "stream", "time_weighted_mean", "time_weighted_50%",
                                        "time_weighted_90%", "time_weighted_99%", "max", "pct_time_empty" };
    rp_table_begin(c->h, "Queue length over time (kineta queue, table weighted)", head, 8);
    for (size_t i = 0; i < kt_table_nrows(w) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < 8; k++) rp_cell_from(c->h, w, i, rp_col(w, cols[k]), k == 7 ? RP_PCT : RP_PLAIN);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_queue(rp_ctx *c)
{
    if (!rp_tables(c, RP_QUEUE)) {
        rp_missing(c, RP_QUEUE, "queue length");
        return KT_OK;
    }
    rp_groups g;
    kt_status st = rp_group_points(c->t, c->queue_points, c->nqueue_points, "stream ", &g);
    if (st != KT_OK) return st;
    rp_series *buf = malloc(MAX_LINES * sizeof *buf);
    if (!buf) st = KT_ENOMEM;
    else rank_lines(c, &g, "Launches waiting per GPU stream", "queue length", RP_COUNT, buf,
                    "No launch with a GPU event on this rank.");
    free(buf);
    rp_groups_free(&g);
    const kt_table *w = rp_table(c, RP_QUEUE, "weighted");
    if (st == KT_OK && w) weighted_table(c, w);
    return st;
}

static void bw_table(rp_ctx *c, const kt_table *s)
{
    static const char *const head[] = { "rank", "copy kind", "points", "mean", "median", "max" };
    static const char *const cols[] = { "rank", "name", "memory_bw_gbps_count", "memory_bw_gbps_mean",
                                        "memory_bw_gbps_50%", "memory_bw_gbps_max" };
    rp_table_begin(c->h, "Bandwidth while copying (kineta memcpy-bw, table summary)", head, 6);
    for (size_t i = 0; i < kt_table_nrows(s) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < 6; k++)
            rp_cell_from(c->h, s, i, rp_col(s, cols[k]), k == 0 ? RP_PLAIN : k == 2 ? RP_COUNT : RP_GBPS);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_memcpy_bw(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_MEMCPY_BW, "series");
    if (!t) {
        rp_missing(c, RP_MEMCPY_BW, "memory bandwidth");
        return KT_OK;
    }
    rp_groups g;
    kt_status st = rp_group_series(t, rp_col(t, "rank"), rp_col(t, "pid"), rp_col(t, "name"), "",
                                   rp_col(t, "ts"), rp_col(t, "memory_bw_gbps"), &g);
    if (st != KT_OK) return st;
    rp_series *buf = malloc(MAX_LINES * sizeof *buf);
    if (!buf) st = KT_ENOMEM;
    else rank_lines(c, &g, "Memory bandwidth per copy kind", "bandwidth", RP_GBPS, buf,
                    "No memcpy or memset on this rank.");
    free(buf);
    rp_groups_free(&g);
    const kt_table *s = rp_table(c, RP_MEMCPY_BW, "summary");
    if (st == KT_OK && s) bw_table(c, s);
    return st;
}
