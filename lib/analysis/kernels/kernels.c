/*
 * kernels.c — the per-kernel table: which kernels eat GPU time and what kind
 * of work they are (the seed "GPU Kernel Analyzer", done right).
 *
 * Rows are aggregated by full name unless another key is asked for, and
 * short display names are made distinct so two template variants never
 * show up as identical rows.  The rows are the reduce of per-rank partials
 * (kernels_map.c, kernel_partial.c): kt_kernels maps its ranks and reduces
 * them here, kt_kernels_map / kt_kernels_reduce do the same across
 * processes (--stream-ranks, MPI), so both print the same bytes.
 */
#include "analysis/common/sat_math.h"
#include "analysis/common/kernel_names.h"
#include "analysis/kernels/kernels_map.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

void kt_kernels_options_init(kt_kernels_options *o, size_t size)
{
    const kt_kernels_options d = { .sort = KT_KSORT_TOTAL, .by = KT_KBY_NAME, .top = 10, .pstep = -1 };
    kt_options_init(o, size, &d, sizeof d);
}

/* ---- rows ---------------------------------------------------------------- */

typedef struct row {
    uint32_t g;
    const char *label; /* sort tie-break and, unless by name, display */
} row;

typedef struct sort_ctx {
    const kt_dur_stats *st;
    kt_kernel_sort sort;
} sort_ctx;

static int by_sort_key(const void *a, const void *b, void *ctx)
{
    const sort_ctx *c = ctx;
    const row *x = a, *y = b;
    const kt_dur_stats *p = &c->st[x->g], *q = &c->st[y->g];
    int k = 0;
    if (c->sort == KT_KSORT_COUNT || c->sort == KT_KSORT_PERCENTAGE)
        k = (p->count < q->count) - (p->count > q->count);
    else if (c->sort == KT_KSORT_DURATION)
        k = (p->mean < q->mean) - (p->mean > q->mean);
    if (!k) k = (p->sum < q->sum) - (p->sum > q->sum);
    return k ? k : strcmp(x->label, y->label);
}

static const char *name_of(const kt_kpartial *p, uint32_t id)
{
    return id == KT_KP_MIXED ? "mixed" : kt_strtab_get(p->strs, id);
}

/* Names shown for rows[0..n): full names, or distinct short forms. */
static bool display_names(const kt_kernels_options *o, const row *rows, size_t n, char **out)
{
    if (o->by != KT_KBY_NAME || o->full_names) {
        for (size_t i = 0; i < n; i++)
            if (!(out[i] = strdup(rows[i].label))) return false;
        return true;
    }
    const char **full = malloc((n ? n : 1) * sizeof *full);
    if (!full) return false;
    for (size_t i = 0; i < n; i++) full[i] = rows[i].label;
    bool ok = kt_kernel_display_names(full, n, out);
    free(full);
    return ok;
}

static kt_table *kernels_table(const kt_kpartial *p, const kt_dur_stats *st, const row *rows, size_t n,
                               char **names, const kt_dur_stats *all)
{
    static const char *const us_cols[] = { "total (us)", "avg (us)", "median (us)", "min (us)", "max (us)",
                                           "std (us)" };
    static const char *const pct_cols[] = { "% launches", "% kernel time", "% GPU wall time" };
    kt_table *tb = kt_table_new("kernels");
    if (!tb) return NULL;
    kt_table_add_col(tb, "#", KT_COL_INT, 0); /* position in the sort, not a rank */
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    for (int c = 0; c < 6; c++) kt_table_add_col(tb, us_cols[c], KT_COL_FLOAT, 3);
    for (int c = 0; c < 3; c++) kt_table_add_col(tb, pct_cols[c], KT_COL_FLOAT, 2);
    kt_table_add_col(tb, "category", KT_COL_STR, 0);
    kt_table_add_col(tb, "type", KT_COL_STR, 0);
    for (size_t i = 0; i < n; i++) {
        const kt_dur_stats *x = &st[rows[i].g];
        const kt_kgroup *gi = &p->g[rows[i].g];
        double us[6] = { (double)x->sum, x->mean, x->median, (double)x->min, (double)x->max, x->std };
        double pct[3] = { 100.0 * (double)x->count / (double)all->count, 100.0 * (double)x->sum / (double)all->sum,
                          p->wall_ns ? 100.0 * (double)x->sum / (double)p->wall_ns : 0 };
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, (int64_t)i + 1);
        kt_table_set_str(tb, 1, names[i]);
        kt_table_set_int(tb, 2, (int64_t)x->count);
        for (int c = 0; c < 6; c++) kt_table_set_float(tb, 3 + (size_t)c, us[c] / 1e3);
        for (int c = 0; c < 3; c++) kt_table_set_float(tb, 9 + (size_t)c, all->sum || c == 0 ? pct[c] : 0);
        kt_table_set_str(tb, 12, name_of(p, gi->category));
        kt_table_set_str(tb, 13, name_of(p, gi->type));
    }
    return tb;
}

static kt_table *summary_table(const kt_kpartial *p, const kt_dur_stats *all)
{
    kt_table *tb = kt_table_new("summary");
    if (!tb) return NULL;
    static const char *const ints[] = { "ranks", "kernels", "launches" };
    for (int c = 0; c < 3; c++) kt_table_add_col(tb, ints[c], KT_COL_INT, 0);
    kt_table_add_col(tb, "kernel time (us)", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "GPU wall time (us)", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "unlinked launches", KT_COL_INT, 0);
    kt_table_add_col(tb, "graph-launched kernels", KT_COL_INT, 0);
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, (int64_t)p->nranks);
    kt_table_set_int(tb, 1, (int64_t)p->n);
    kt_table_set_int(tb, 2, (int64_t)all->count);
    kt_table_set_float(tb, 3, (double)all->sum / 1e3);
    kt_table_set_float(tb, 4, (double)p->wall_ns / 1e3);
    kt_table_set_int(tb, 5, (int64_t)p->unlinked);
    kt_table_set_int(tb, 6, (int64_t)p->graph);
    return tb;
}

/* The reduce's end: statistics of the merged groups, sorted, the top rows
 * kept, both tables built. */
static kt_status make_tables(kt_kpartial *p, const kt_kernels_options *o, kt_tables *ts)
{
    size_t ng = p->n;
    kt_kpartial_sort(p);
    kt_dur_stats *st = kt_kpartial_stats(p);
    row *rows = malloc((ng ? ng : 1) * sizeof *rows);
    char **names = calloc(ng ? ng : 1, sizeof *names);
    kt_dur_stats all = { 0 };
    bool ok = st && rows && names;
    for (size_t g = 0; ok && g < ng; g++) {
        rows[g] = (row){ (uint32_t)g, kt_strtab_get(p->strs, p->g[g].key) };
        all.count += st[g].count;
        all.sum = kt_sat_add(all.sum, st[g].sum);
    }
    size_t n = o->top && o->top < ng ? o->top : ng;
    if (ok) qsort_r(rows, ng, sizeof *rows, by_sort_key, &(sort_ctx){ st, o->sort });
    /* distinct over all rows, so a kernel is shown the same whatever --top is */
    ok = ok && display_names(o, rows, ng, names);
    ok = ok && kt_tables_add(ts, kernels_table(p, st, rows, n, names, &all));
    ok = ok && kt_tables_add(ts, summary_table(p, &all));
    for (size_t i = 0; names && i < ng; i++) free(names[i]);
    free(names);
    free(rows);
    free(st);
    return ok ? KT_OK : KT_ENOMEM;
}


static kt_status check_options(const kt_kernels_options *o)
{
    return (unsigned)o->by > KT_KBY_LAUNCHER || (unsigned)o->sort > KT_KSORT_DURATION_PCT ? KT_EUSAGE : KT_OK;
}

/* The tables of a merged partial (freed), or its error. */
static kt_status finish(kt_kpartial *p, kt_status st, const kt_kernels_options *o, kt_tables **out)
{
    kt_tables *ts = st == KT_OK ? kt_tables_new() : NULL;
    if (st == KT_OK) st = ts ? make_tables(p, o, ts) : KT_ENOMEM;
    kt_kpartial_free(p);
    if (st != KT_OK) {
        kt_tables_free(ts);
        return st;
    }
    *out = ts;
    return KT_OK;
}

/* The options checked, a partial made (*p, freed by the caller in any
 * case) and t's selected ranks mapped into it. */
static kt_status map_trace(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *o, kt_kpartial *p)
{
    kt_status st = check_options(o);
    if (st == KT_OK && !kt_kpartial_init(p)) st = KT_ENOMEM;
    return st == KT_OK ? kt_kernels_map_into(t, sel, o, p) : st;
}

kt_status kt_kernels(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                     kt_tables **out)
{
    kt_kernels_options o = kt_kernels_defaults();
    kt_kpartial p = { 0 };
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    return finish(&p, map_trace(t, sel, &o, &p), &o, out);
}

kt_status kt_kernels_map(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                         kt_tables **partial)
{
    kt_kernels_options o = kt_kernels_defaults();
    kt_kpartial p = { 0 };
    *partial = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_status st = map_trace(t, sel, &o, &p);
    if (st == KT_OK) {
        kt_kpartial_sort(&p);
        st = kt_kpartial_to_tables(&p, partial);
    }
    kt_kpartial_free(&p);
    return st;
}

kt_status kt_kernels_reduce(const kt_tables *const *partials, size_t n, const kt_kernels_options *opt,
                            kt_tables **out)
{
    kt_kernels_options o = kt_kernels_defaults();
    kt_kpartial p = { 0 };
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_status st = check_options(&o);
    if (st == KT_OK && !kt_kpartial_init(&p)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) st = kt_kpartial_add_tables(&p, partials[i]);
    return finish(&p, st, &o, out);
}
