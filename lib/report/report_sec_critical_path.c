/*
 * report_sec_critical_path.c — the report's critical-path section, from
 * kt_critical_path with the CLI's defaults (one ProfilerStep, else the
 * whole trace; no overlay): per rank, the share of the path by what bounds
 * it (table summary), the path's length (table graph) and its longest
 * edges (table breakdown, which run_critical_path asks to hold only those;
 * no table edges).  Shown when the analysis finds a path.
 */
#include "report/report_sections.h"

#include <stdlib.h>

bool rp_has_critical_path(rp_ctx *c)
{
    const kt_table *s = rp_table(c, RP_CRITICAL_PATH, "summary");
    return s && kt_table_nrows(s) > 0;
}

/* Pie of one rank's summary rows by bound_by ("" = dependency/sync). */
static void rank_pie(rp_ctx *c, const kt_table *s, const size_t *rows, size_t n, const char **labels, double *v)
{
    long by = rp_col(s, "bound_by"), dur = rp_col(s, "duration_us");
    for (size_t i = 0; i < n; i++) {
        const char *b = rp_str(s, rows[i], by);
        labels[i] = b[0] ? b : "dependency / sync";
        v[i] = rp_num(s, rows[i], dur);
    }
    rp_pie(c->h, "Critical path by what bounds it", labels, NULL, v, n, RP_US);
}

static void graph_table(rp_ctx *c, const kt_table *g, int rank)
{
    static const char *const head[] = { "window start", "window end", "path length", "path nodes", "graph nodes",
                                        "graph edges" };
    static const char *const cols[] = { "window_start_us", "window_end_us", "path_length_us", "path_nodes", "nodes",
                                        "edges" };
    static const rp_unit units[] = { RP_US, RP_US, RP_US, RP_COUNT, RP_COUNT, RP_COUNT };
    size_t row;
    if (!g || rp_rows_of_rank(g, rp_col(g, "rank"), rank, &row) == 0) return;
    rp_table_begin(c->h, "The path (kineta critical-path, table graph)", head, 6);
    rp_row_begin(c->h);
    for (size_t k = 0; k < 6; k++) rp_cell_from(c->h, g, row, rp_col(g, cols[k]), units[k]);
    rp_row_end(c->h);
    rp_table_end(c->h);
}

/* The rank's longest path edges: its breakdown rows, which run_critical_path
 * asks for already cut to the longest, longest first ("edge" is the position
 * on the path, from 0).                                                     */
static void longest_table(rp_ctx *c, const kt_table *bd, const size_t *rows, size_t n)
{
    static const char *const head[] = { "edge", "duration", "type", "event", "bound by", "stream" };
    rp_table_begin(c->h, "Longest edges of the path (kineta critical-path, table breakdown)", head, 6);
    for (size_t i = 0; i < n; i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, bd, rows[i], rp_col(bd, "edge"), RP_PLAIN);
        rp_cell_from(c->h, bd, rows[i], rp_col(bd, "duration"), RP_US);
        rp_cell_text(c->h, rp_str(bd, rows[i], rp_col(bd, "type")));
        rp_cell_name(c->h, rp_str(bd, rows[i], rp_col(bd, "s_name")), 60);
        rp_cell_text(c->h, rp_str(bd, rows[i], rp_col(bd, "bound_by")));
        rp_cell_from(c->h, bd, rows[i], rp_col(bd, "stream"), RP_PLAIN);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

static kt_status rank_panel(rp_ctx *c, int rank, const kt_table *s, size_t *rows, const char **labels, double *v)
{
    const kt_table *bd = rp_table(c, RP_CRITICAL_PATH, "breakdown");
    size_t n = rp_rows_of_rank(s, rp_col(s, "rank"), rank, rows);
    rp_rank_panel_begin(c->h, rank);
    if (n) rank_pie(c, s, rows, n, labels, v);
    else rp_note(c->h, "No critical path on this rank.");
    graph_table(c, rp_table(c, RP_CRITICAL_PATH, "graph"), rank);
    size_t *edges = bd ? malloc((kt_table_nrows(bd) + 1) * sizeof *edges) : NULL;
    if (bd && !edges) return KT_ENOMEM;
    if (bd) longest_table(c, bd, edges, rp_rows_of_rank(bd, rp_col(bd, "rank"), rank, edges));
    free(edges);
    rp_rank_panel_end(c->h);
    return KT_OK;
}

kt_status rp_sec_critical_path(rp_ctx *c)
{
    const kt_table *s = rp_table(c, RP_CRITICAL_PATH, "summary");
    if (!s) {
        rp_missing(c, RP_CRITICAL_PATH, "critical path");
        return KT_OK;
    }
    size_t n = kt_table_nrows(s) + 1;
    size_t *rows = malloc(n * sizeof *rows);
    const char **labels = malloc(n * sizeof *labels);
    double *v = malloc(n * sizeof *v);
    kt_status st = rows && labels && v ? KT_OK : KT_ENOMEM;
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) st = rank_panel(c, c->ranks[r], s, rows, labels, v);
    free(rows), free(labels), free(v);
    return st;
}
