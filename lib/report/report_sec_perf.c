/*
 * report_sec_perf.c — the report's performance-model section, from
 * kt_perf with the CLI's defaults (TraceLens's perf report): a roofline-
 * style scatter of every modelled op shape (FLOPs per byte moved against
 * achieved TFLOP/s, one colour per model family: the roofline sheets), the
 * FLOPs and throughput per family and kernel time per op category.  Shown
 * when some op has FLOPs (shapes recorded with record_shapes=True).
 */
#include "report/report_sections.h"

#include <stdlib.h>

/* The roofline sheets of kt_perf, in its order. */
static const char *const sheets[] = { "GEMM",         "SDPA_fwd",          "CONV_fwd", "UnaryElementwise",
                                      "BinaryElementwise", "Normalization", "Reduce_fwd" };
#define NSHEETS (sizeof sheets / sizeof *sheets)

bool rp_has_perf(rp_ctx *c)
{
    const kt_table *f = rp_table(c, RP_PERF, "perf_by_family");
    for (size_t i = 0; f && i < kt_table_nrows(f); i++)
        if (rp_num(f, i, rp_col(f, "gflops")) > 0) return true;
    return false;
}

typedef struct sheet_cols {
    double *x, *y;
    const char **names;
} sheet_cols;

/* One group of points per roofline sheet with rows (max_rows points each). */
static kt_status roofline(rp_ctx *c)
{
    rp_points g[NSHEETS];
    sheet_cols cols[NSHEETS] = { { 0 } };
    size_t ng = 0;
    kt_status st = KT_OK;
    for (size_t k = 0; st == KT_OK && k < NSHEETS; k++) {
        const kt_table *t = rp_table(c, RP_PERF, sheets[k]);
        size_t n = t ? kt_table_nrows(t) : 0;
        if (n > c->opt->max_rows) n = c->opt->max_rows;
        if (!n) continue;
        sheet_cols *sc = &cols[ng];
        sc->x = malloc(n * sizeof *sc->x), sc->y = malloc(n * sizeof *sc->y), sc->names = malloc(n * sizeof(char *));
        if (!sc->x || !sc->y || !sc->names) st = KT_ENOMEM;
        for (size_t i = 0; st == KT_OK && i < n; i++) {
            sc->x[i] = rp_num(t, i, rp_col(t, "flops_per_byte"));
            sc->y[i] = rp_num(t, i, rp_col(t, "tflops_per_s_mean"));
            sc->names[i] = rp_str(t, i, rp_col(t, "op"));
        }
        g[ng++] = (rp_points){ sheets[k], sc->x, sc->y, sc->names, n };
    }
    if (st == KT_OK)
        rp_scatter(c->h, "Achieved throughput against arithmetic intensity (one point per op shape)",
                   "FLOPs per byte moved", "achieved TFLOP/s (mean)", g, ng);
    for (size_t k = 0; k < NSHEETS; k++) free(cols[k].x), free(cols[k].y), free(cols[k].names);
    return st;
}

static kt_status family_chart(rp_ctx *c, const kt_table *f)
{
    size_t n = kt_table_nrows(f);
    const char **labels = malloc((n + 1) * sizeof *labels);
    double *v = malloc((n + 1) * sizeof *v);
    kt_status st = labels && v ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) {
        labels[i] = rp_str(f, i, rp_col(f, "family"));
        v[i] = rp_num(f, i, rp_col(f, "achieved_tflops_per_s"));
    }
    if (st == KT_OK)
        rp_whisker_bars(c->h, "Achieved TFLOP/s per model family", "family", labels, v, NULL, NULL, n, RP_PLAIN);
    free(labels), free(v);
    return st;
}

static void perf_tables(rp_ctx *c, const kt_table *f)
{
    static const rp_column fam[] = { { "family", "family", RP_PLAIN },
                                     { "calls", "calls", RP_COUNT },
                                     { "GFLOPs", "gflops", RP_PLAIN },
                                     { "kernel time", "kernel_time_us", RP_US },
                                     { "achieved TFLOP/s", "achieved_tflops_per_s", RP_PLAIN } };
    static const rp_column cat[] = { { "op category", "category", RP_PLAIN },
                                     { "calls", "calls", RP_COUNT },
                                     { "direct kernel time (ms)", "direct_kernel_time_ms", RP_PLAIN },
                                     { "% of kernel time", "pct", RP_PCT },
                                     { "cumulative %", "cum_pct", RP_PCT } };
    rp_table_cols(c, "FLOPs and throughput per model family (kineta perf, table perf_by_family)", f, NULL, 0, fam, 5);
    const kt_table *t = rp_table(c, RP_PERF, "ops_summary_by_category");
    if (t)
        rp_table_cols(c, "Kernel time per op category (kineta perf, table ops_summary_by_category)", t, NULL, 0, cat,
                      5);
}

kt_status rp_sec_perf(rp_ctx *c)
{
    const kt_table *f = rp_table(c, RP_PERF, "perf_by_family");
    if (!f) {
        rp_missing(c, RP_PERF, "performance model");
        return KT_OK;
    }
    rp_raw(c->h, "<div class=\"charts\">");
    kt_status st = roofline(c);
    if (st == KT_OK) st = family_chart(c, f);
    rp_raw(c->h, "</div>\n");
    if (st == KT_OK) perf_tables(c, f);
    return st;
}
