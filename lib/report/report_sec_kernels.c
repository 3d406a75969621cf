/*
 * report_sec_kernels.c — the report's kernel sections: kernel types, top
 * kernels per type and rank (the pies of HTA's kernel breakdown page),
 * each top kernel's duration across ranks (bars with min/max whiskers) and
 * kernel categories by launching op; from kt_breakdown and kt_categories.
 */
#include "analysis/common/kernel_names.h"
#include "report/report_sections.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS 70
#define TOP_OPS 12

/* Short display names for full[0..n) that stay distinct (kineta's kernel
 * short forms); equal full names share one.  shown[i] lives until
 * names_free.                                                              */
typedef struct names {
    const char **uniq;
    char **out;
    size_t nu;
    const char **shown;
} names;

static void names_free(names *nm)
{
    for (size_t i = 0; nm->out && i < nm->nu; i++) free(nm->out[i]);
    free(nm->uniq), free(nm->out), free(nm->shown);
    memset(nm, 0, sizeof *nm);
}

static kt_status names_make(const char *const *full, size_t n, names *nm)
{
    memset(nm, 0, sizeof *nm);
    nm->uniq = calloc(n + 1, sizeof *nm->uniq);
    nm->out = calloc(n + 1, sizeof *nm->out);
    nm->shown = malloc((n + 1) * sizeof *nm->shown);
    size_t *of = malloc((n + 1) * sizeof *of);
    if (!nm->uniq || !nm->out || !nm->shown || !of) goto nomem;
    for (size_t i = 0; i < n; i++) {
        size_t u = 0;
        while (u < nm->nu && strcmp(nm->uniq[u], full[i])) u++;
        if (u == nm->nu) nm->uniq[nm->nu++] = full[i];
        of[i] = u;
    }
    if (!kt_kernel_display_names(nm->uniq, nm->nu, nm->out)) goto nomem;
    for (size_t i = 0; i < n; i++) nm->shown[i] = nm->out[of[i]];
    free(of);
    return KT_OK;
nomem:
    free(of);
    nm->nu = 0;
    names_free(nm);
    return KT_ENOMEM;
}

static void type_table(rp_ctx *c, const kt_table *t)
{
    static const char *const head[] = { "kernel type", "kernel time", "% of kernel time" };
    rp_table_begin(c->h, "Kernel time by type, all ranks (kineta breakdown, table kernel_type)", head, 3);
    for (size_t i = 0; i < kt_table_nrows(t); i++) {
        rp_row_begin(c->h);
        rp_cell_text(c->h, rp_str(t, i, rp_col(t, "kernel_type")));
        rp_cell_from(c->h, t, i, rp_col(t, "sum"), RP_US);
        rp_cell_from(c->h, t, i, rp_col(t, "percentage"), RP_PCT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_kernel_types(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_BREAKDOWN, "kernel_type"), *r = rp_table(c, RP_BREAKDOWN, "kernel_type_by_rank");
    if (!t) {
        rp_missing(c, RP_BREAKDOWN, "kernel types");
        return KT_OK;
    }
    size_t n = kt_table_nrows(t);
    const char **labels = malloc((n + 1) * sizeof *labels);
    double *v = malloc((n + 1) * sizeof *v);
    kt_status st = labels && v ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) {
        labels[i] = rp_str(t, i, rp_col(t, "kernel_type"));
        v[i] = rp_num(t, i, rp_col(t, "sum"));
    }
    rp_raw(c->h, "<div class=\"charts\">");
    if (st == KT_OK) rp_pie(c->h, "GPU kernel time by type (all ranks)", labels, NULL, v, n, RP_US);
    if (st == KT_OK && r && c->nranks > 1)
        st = rp_pivot_bars(c->h, "Kernel time by type per rank", "rank", r, NULL, 0, rp_col(r, "rank"), "rank ",
                           rp_col(r, "kernel_type"), NULL, 0, rp_col(r, "sum"), RP_US);
    rp_raw(c->h, "</div>\n");
    free(labels), free(v);
    if (st == KT_OK) type_table(c, t);
    return st;
}

/* Distinct strings of column col over rows[0..n), first-seen order. */
static size_t distinct(const kt_table *t, const size_t *rows, size_t n, long col, const char **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = rp_str(t, rows[i], col);
        size_t j = 0;
        while (j < k && strcmp(out[j], s)) j++;
        if (j == k) out[k++] = s;
    }
    return k;
}

/* One pie per kernel type of one rank's top kernels. */
static void type_pies(rp_ctx *c, const kt_table *t, const size_t *rows, size_t n, const names *nm,
                      const char **types, const char **labels, const char **full, double *v)
{
    size_t ntypes = distinct(t, rows, n, rp_col(t, "kernel_type"), types);
    rp_raw(c->h, "<div class=\"charts\">");
    for (size_t k = 0; k < ntypes; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rp_str(t, rows[i], rp_col(t, "kernel_type")), types[k])) continue;
            labels[m] = nm->shown[i];
            full[m] = rp_str(t, rows[i], rp_col(t, "name"));
            v[m++] = rp_num(t, rows[i], rp_col(t, "sum (us)"));
        }
        char title[160];
        snprintf(title, sizeof title, "Top %s kernels", types[k]);
        rp_pie(c->h, title, labels, full, v, m, RP_US);
    }
    rp_raw(c->h, "</div>\n");
}

/* A cell showing the display name, the full name on hover. */
static void name_cell(rp_html *h, const char *shown, const char *full)
{
    rp_raw(h, "<td");
    rp_name_attr(h, full);
    rp_raw(h, ">");
    rp_text_cut(h, shown, 2 * NAME_CHARS); /* short forms: cut only the odd giant */
    rp_raw(h, "</td>");
}

static void top_table(rp_ctx *c, const kt_table *t, const size_t *rows, size_t n, const names *nm)
{
    static const char *const head[] = { "kernel", "type", "launches", "total", "mean", "min", "max" };
    static const char *const cols[] = { "count", "sum (us)", "mean (us)", "min (us)", "max (us)" };
    rp_table_begin(c->h, "Top kernels (kineta breakdown, table kernels)", head, 7);
    for (size_t i = 0; i < n; i++) {
        rp_row_begin(c->h);
        name_cell(c->h, nm->shown[i], rp_str(t, rows[i], rp_col(t, "name")));
        rp_cell_text(c->h, rp_str(t, rows[i], rp_col(t, "kernel_type")));
        for (size_t k = 0; k < 5; k++) rp_cell_from(c->h, t, rows[i], rp_col(t, cols[k]), k ? RP_US : RP_COUNT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

/* One rank's pies and table. */
static kt_status top_of_rank(rp_ctx *c, const kt_table *t, const size_t *rows, size_t n, const char **types,
                             const char **labels, const char **full, double *v)
{
    for (size_t i = 0; i < n; i++) full[i] = rp_str(t, rows[i], rp_col(t, "name"));
    names nm;
    if (names_make(full, n, &nm) != KT_OK) return KT_ENOMEM;
    type_pies(c, t, rows, n, &nm, types, labels, full, v);
    top_table(c, t, rows, n, &nm);
    names_free(&nm);
    return KT_OK;
}

kt_status rp_sec_top_kernels(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_BREAKDOWN, "kernels");
    if (!t) {
        rp_missing(c, RP_BREAKDOWN, "top kernels");
        return KT_OK;
    }
    size_t cap = kt_table_nrows(t) + 1;
    size_t *rows = malloc(cap * sizeof *rows);
    const char **types = malloc(cap * sizeof *types), **labels = malloc(cap * sizeof *labels);
    const char **full = malloc(cap * sizeof *full);
    double *v = malloc(cap * sizeof *v);
    kt_status st = rows && types && labels && full && v ? KT_OK : KT_ENOMEM;
    for (size_t r = 0; st == KT_OK && r < c->nranks; r++) {
        size_t n = rp_rows_of_rank(t, rp_col(t, "rank"), c->ranks[r], rows);
        rp_rank_panel_begin(c->h, c->ranks[r]);
        if (n) st = top_of_rank(c, t, rows, n, types, labels, full, v);
        else rp_note(c->h, "No GPU kernels on this rank.");
        rp_rank_panel_end(c->h);
    }
    free(rows), free(types), free(labels), free(full), free(v);
    return st;
}

/* Bars of one kernel's mean on each rank, whiskers min..max. */
static void kernel_across_ranks(rp_ctx *c, const kt_table *t, const char *name, const char *shown, size_t *rows,
                                double *v)
{
    size_t n = 0, all = kt_table_nrows(t);
    for (size_t i = 0; i < all; i++)
        if (!strcmp(rp_str(t, i, rp_col(t, "name")), name)) rows[n++] = i;
    double *lo = v + n, *hi = v + 2 * n;
    const char **labels = (const char **)(v + 3 * n);
    char (*text)[32] = (char (*)[32])(labels + n);
    for (size_t i = 0; i < n; i++) {
        v[i] = rp_num(t, rows[i], rp_col(t, "mean (us)"));
        lo[i] = rp_num(t, rows[i], rp_col(t, "min (us)"));
        hi[i] = rp_num(t, rows[i], rp_col(t, "max (us)"));
        snprintf(text[i], sizeof text[i], "rank %.15g", rp_num(t, rows[i], rp_col(t, "rank")));
        labels[i] = text[i];
    }
    rp_next_chart_tip(c->h, name);
    rp_whisker_bars(c->h, shown, "rank", labels, v, lo, hi, n, RP_US);
}

kt_status rp_sec_distribution(rp_ctx *c)
{
    const kt_table *t = rp_table(c, RP_BREAKDOWN, "distribution");
    if (!t || !kt_table_nrows(t)) {
        rp_missing(c, RP_BREAKDOWN, "kernel distribution");
        return KT_OK;
    }
    size_t all = kt_table_nrows(t);
    size_t *rows = malloc(all * sizeof *rows);
    const char **kernels = malloc(all * sizeof *kernels);
    /* per chart: value, lo, hi, label pointer and label text per rank */
    void *scratch = malloc(all * (3 * sizeof(double) + sizeof(char *) + 32));
    if (!rows || !kernels || !scratch) {
        free(rows), free(kernels), free(scratch);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < all; i++) rows[i] = i;
    size_t n = distinct(t, rows, all, rp_col(t, "name"), kernels);
    names nm;
    if (names_make(kernels, n, &nm) != KT_OK) {
        free(rows), free(kernels), free(scratch);
        return KT_ENOMEM;
    }
    rp_raw(c->h, "<div class=\"charts\">");
    for (size_t k = 0; k < n && k < c->opt->top_kernels; k++)
        kernel_across_ranks(c, t, kernels[k], nm.shown[k], rows, scratch);
    rp_raw(c->h, "</div>\n");
    names_free(&nm);
    if (n > c->opt->top_kernels) {
        char b[128];
        snprintf(b, sizeof b, "%zu more kernels in the \"distribution\" table of kineta breakdown.", n - c->opt->top_kernels);
        rp_note(c->h, b);
    }
    free(rows), free(kernels), free(scratch);
    return KT_OK;
}

/* Category pie from "categories" (total_time_ms, shown in µs). */
static kt_status category_pie(rp_ctx *c, const kt_table *t)
{
    size_t n = kt_table_nrows(t);
    const char **labels = malloc((n + 1) * sizeof *labels);
    double *v = malloc((n + 1) * sizeof *v);
    if (!labels || !v) {
        free(labels), free(v);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        labels[i] = rp_str(t, i, rp_col(t, "kernel_category"));
        v[i] = 1e3 * rp_num(t, i, rp_col(t, "total_time_ms"));
    }
    rp_pie(c->h, "Kernel time by category (all ranks)", labels, NULL, v, n, RP_US);
    free(labels), free(v);
    return KT_OK;
}

typedef struct op_total {
    const char *op;
    double total;
} op_total;

static int by_total_desc(const void *a, const void *b)
{
    double x = ((const op_total *)a)->total, y = ((const op_total *)b)->total;
    return (x < y) - (x > y);
}

/* Stacked bars of the TOP_OPS launching ops with most kernel time. */
static kt_status ops_chart(rp_ctx *c, const kt_table *t)
{
    size_t n = kt_table_nrows(t), nops = 0;
    op_total *ops = calloc(n + 1, sizeof *ops);
    const char **cats = malloc((n + 1) * sizeof *cats), **labels = malloc((TOP_OPS + 1) * sizeof *labels);
    size_t *rows = malloc((n + 1) * sizeof *rows);
    double *v = NULL;
    kt_status st = ops && cats && labels && rows ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) {
        const char *op = rp_str(t, i, rp_col(t, "cpu_op"));
        size_t j = 0;
        while (j < nops && strcmp(ops[j].op, op)) j++;
        if (j == nops) ops[nops++].op = op;
        ops[j].total += rp_num(t, i, rp_col(t, "total_time_ms"));
        rows[i] = i;
    }
    size_t ncats = st == KT_OK ? distinct(t, rows, n, rp_col(t, "kernel_category"), cats) : 0;
    if (st == KT_OK && !(v = calloc(TOP_OPS * ncats + 1, sizeof *v))) st = KT_ENOMEM;
    if (st == KT_OK) {
        qsort(ops, nops, sizeof *ops, by_total_desc);
        size_t nbars = nops < TOP_OPS ? nops : TOP_OPS;
        for (size_t b = 0; b < nbars; b++) labels[b] = ops[b].op;
        for (size_t i = 0; i < n; i++)
            for (size_t b = 0; b < nbars; b++) {
                if (strcmp(ops[b].op, rp_str(t, i, rp_col(t, "cpu_op")))) continue;
                const char *cat = rp_str(t, i, rp_col(t, "kernel_category"));
                size_t k = 0;
                while (k < ncats && strcmp(cats[k], cat)) k++;
                v[b * ncats + k] += 1e3 * rp_num(t, i, rp_col(t, "total_time_ms"));
            }
        rp_stacked_bars(c->h, "Kernel time by launching CPU op (top ops)", "CPU op", labels, nbars, cats, ncats, v, RP_US);
    }
    free(ops), free(cats), free(labels), free(rows), free(v);
    return st;
}

static void op_table(rp_ctx *c, const kt_table *t)
{
    static const char *const head[] = { "CPU op", "category", "kernels", "kernel time", "% of op's kernel time" };
    rp_table_begin(c->h, "Kernel categories per launching op (kineta categories, table op_categories)", head, 5);
    for (size_t i = 0; i < kt_table_nrows(t) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        rp_cell_name(c->h, rp_str(t, i, rp_col(t, "cpu_op")), NAME_CHARS);
        rp_cell_text(c->h, rp_str(t, i, rp_col(t, "kernel_category")));
        rp_cell_from(c->h, t, i, rp_col(t, "count"), RP_COUNT);
        rp_cell_num(c->h, 1e3 * rp_num(t, i, rp_col(t, "total_time_ms")), RP_US);
        rp_cell_from(c->h, t, i, rp_col(t, "% of op time"), RP_PCT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_categories(rp_ctx *c)
{
    const kt_table *cat = rp_table(c, RP_CATEGORIES, "categories"), *ops = rp_table(c, RP_CATEGORIES, "op_categories");
    if (!cat) {
        rp_missing(c, RP_CATEGORIES, "categories");
        return KT_OK;
    }
    rp_raw(c->h, "<div class=\"charts\">");
    kt_status st = category_pie(c, cat);
    if (st == KT_OK && ops) st = ops_chart(c, ops);
    rp_raw(c->h, "</div>\n");
    if (st == KT_OK && ops) op_table(c, ops);
    return st;
}
