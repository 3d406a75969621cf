/*
 * report_sec_patterns.c — the report's fusion-candidate section, from
 * kt_mine_sequences with the CLI's defaults (`kineta patterns --mine`: no
 * op to name, sequences of 2-8 kernels seen at least twice on a stream):
 * per rank, the GPU time of each top sequence (bars labelled #i ×count)
 * and the table with the kernels' full names on hover.  Shown when some
 * kernel sequence repeats.
 */
#include "report/report_sections.h"

#include <stdlib.h>

#define LABEL 32

bool rp_has_patterns(rp_ctx *c)
{
    const kt_table *s = rp_table(c, RP_MINE, "sequences");
    return s && kt_table_nrows(s) > 0;
}

static void sequence_table(rp_ctx *c, const kt_table *s, const size_t *rows, size_t n)
{
    static const char *const head[] = { "#", "stream", "length", "count", "GPU time", "median gap",
                                        "saving if fused", "kernels", "launched by" };
    rp_table_begin(c->h, "Repeated kernel sequences (kineta patterns --mine, table sequences)", head, 9);
    for (size_t i = 0; i < n; i++) {
        rp_row_begin(c->h);
        rp_cell_num(c->h, (double)(i + 1), RP_PLAIN);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "stream"), RP_PLAIN);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "length"), RP_COUNT);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "count"), RP_COUNT);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "kernel_us"), RP_US);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "median_gap_us"), RP_US);
        rp_cell_from(c->h, s, rows[i], rp_col(s, "saving_us"), RP_US);
        rp_cell_name(c->h, rp_str(s, rows[i], rp_col(s, "kernels")), 90);
        rp_cell_name(c->h, rp_str(s, rows[i], rp_col(s, "launchers")), 50);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

static void rank_panel(rp_ctx *c, const kt_table *s, int rank, size_t *rows, char *text, const char **labels,
                       double *v)
{
    size_t n = rp_rows_of_rank(s, rp_col(s, "rank"), rank, rows);
    rp_rank_panel_begin(c->h, rank);
    if (!n) {
        rp_note(c->h, "No kernel sequence repeats on this rank.");
        rp_rank_panel_end(c->h);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(text + i * LABEL, LABEL, "#%zu ×%.0f", i + 1, rp_num(s, rows[i], rp_col(s, "count")));
        labels[i] = text + i * LABEL;
        v[i] = rp_num(s, rows[i], rp_col(s, "kernel_us"));
    }
    rp_whisker_bars(c->h, "GPU time of the repeated sequences (#, count)", "sequence, by launch time saved if fused",
                    labels, v, NULL, NULL, n, RP_US);
    sequence_table(c, s, rows, n);
    rp_rank_panel_end(c->h);
}

kt_status rp_sec_patterns(rp_ctx *c)
{
    const kt_table *s = rp_table(c, RP_MINE, "sequences");
    if (!s) {
        rp_missing(c, RP_MINE, "kernel sequences");
        return KT_OK;
    }
    size_t n = kt_table_nrows(s) + 1;
    size_t *rows = malloc(n * sizeof *rows);
    char *text = malloc(n * LABEL);
    const char **labels = malloc(n * sizeof *labels);
    double *v = malloc(n * sizeof *v);
    kt_status st = rows && text && labels && v ? KT_OK : KT_ENOMEM;
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) rank_panel(c, s, c->ranks[r], rows, text, labels, v);
    free(rows), free(text), free(labels), free(v);
    return st;
}
