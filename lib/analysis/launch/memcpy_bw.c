/*
 * memcpy_bw.c — `kineta memcpy-bw`: memory bandwidth per memcpy/memset
 * kind over time and its summary (HTA memory bandwidth time series and
 * summary, spec A4.7).
 */
#include "analysis/common/describe_table.h"
#include "analysis/launch/membw_series.h"

#include <stdlib.h>

typedef struct bw_tables {
    kt_table *series, *summary;
    size_t stats_col;
    double *vals;
} bw_tables;

static bool make_tables(bw_tables *b)
{
    static const char *const cols[] = { "ts", "pid", "name", "memory_bw_gbps", "rank" };
    static const kt_col_type types[] = { KT_COL_FLOAT, KT_COL_INT, KT_COL_STR, KT_COL_FLOAT, KT_COL_INT };
    static const int prec[] = { 3, 0, 0, -1, 0 };
    b->series = kt_table_new("series");
    for (size_t i = 0; b->series && i < 5; i++) kt_table_add_col(b->series, cols[i], types[i], prec[i]);
    if (b->series) kt_table_set_unit(b->series, 0, "us");
    b->summary = kt_table_new("summary");
    if (b->summary) {
        kt_table_add_col(b->summary, "rank", KT_COL_INT, 0);
        kt_table_add_col(b->summary, "name", KT_COL_STR, 0);
        b->stats_col = kt_describe_add_cols(b->summary, "memory_bw_gbps");
    }
    return b->series && b->summary;
}

static void add_series(kt_table *t, const kt_rank *r, int64_t origin, const kt_bw_series *s)
{
    kt_table_reserve(t, kt_table_nrows(t) + s->n);
    for (size_t i = 0; i < s->n; i++) {
        const kt_step_point *p = &s->p[i];
        kt_row row = kt_table_row(t);
        kt_row_float(row, 0, (double)(p->ts - origin) / 1e3);
        kt_row_int(row, 1, kt_step_pid(r, p));
        kt_row_str(t, row, 2, s->kinds[p->key]);
        kt_row_float(row, 3, p->value);
        kt_row_int(row, 4, r->rank);
    }
}

/* HTA: describe() of the points with bandwidth > 0, per (rank, kind). */
static void add_summary(bw_tables *b, int rank, const kt_bw_series *s)
{
    for (size_t a = 0, z; a < s->n; a = z) {
        size_t k = 0;
        for (z = a; z < s->n && s->p[z].key == s->p[a].key; z++)
            if (s->p[z].value > 0) b->vals[k++] = s->p[z].value;
        if (!k) continue;
        kt_describe d = kt_describe_values(b->vals, k);
        kt_table_add_row(b->summary);
        kt_table_set_int(b->summary, 0, rank);
        kt_table_set_str(b->summary, 1, s->kinds[s->p[a].key]);
        kt_describe_set(b->summary, b->stats_col, &d);
    }
}

static kt_status rank_bw(bw_tables *b, const kt_trace *t, const kt_rank *r)
{
    kt_bw_series s;
    kt_status st = kt_membw_series(r, t->strs, t->hta_compat, &s);
    if (st != KT_OK) return st;
    double *v = realloc(b->vals, (s.n ? s.n : 1) * sizeof *v);
    if (v) {
        b->vals = v;
        add_series(b->series, r, t->min_ts, &s);
        add_summary(b, r->rank, &s);
    }
    kt_bw_series_free(&s);
    return v ? KT_OK : KT_ENOMEM;
}

kt_status kt_memcpy_bw(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out)
{
    bw_tables b = { 0 };
    kt_status s = make_tables(&b) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = rank_bw(&b, t, t->ranks[i]);
    free(b.vals);
    kt_table *all[] = { b.series, b.summary };
    if (s != KT_OK) {
        kt_table_free(all[0]);
        kt_table_free(all[1]);
        *out = NULL;
        return s;
    }
    return kt_tables_from(all, 2, out);
}
