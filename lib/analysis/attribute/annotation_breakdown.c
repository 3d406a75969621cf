/*
 * annotation_breakdown.c — see annotation_breakdown.h.  HTA computes these
 * with its kernel-breakdown aggregation (_aggr_gpu_kernel_time, A4.2), so
 * the folding rule and, under hta_compat, its statistics of folded rows
 * are the same as `kineta breakdown`'s.
 */
#include "analysis/attribute/annotation_breakdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct span {
    uint32_t name;
    int64_t dur;
} span;

static int by_name_then_dur(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->dur > y->dur) - (x->dur < y->dur);
}

static bool push(kt_ann_stats *s, kt_ann_stat v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        kt_ann_stat *p = realloc(s->v, cap * sizeof *p);
        if (!p) return false;
        s->v = p;
        s->cap = cap;
    }
    s->v[s->n++] = v;
    return true;
}

/* Statistics of one name's spans d[0..n) (sorted by duration). */
static kt_ann_stat stat_of(uint32_t name, int rank, const span *d, size_t n)
{
    kt_ann_stat st = { .name = name, .rank = rank, .count = n, .min = d[0].dur, .max = d[n - 1].dur };
    for (size_t i = 0; i < n; i++) st.sum += d[i].dur;
    st.mean = (double)st.sum / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += ((double)d[i].dur - st.mean) * ((double)d[i].dur - st.mean);
    st.std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    return st;
}

static int by_sum_desc(const void *a, const void *b)
{
    const kt_ann_stat *x = a, *y = b;
    if (x->sum != y->sum) return x->sum < y->sum ? 1 : -1;
    return (x->name > y->name) - (x->name < y->name);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool allowed(const kt_trace *t, uint32_t name, const kt_annotations_options *o)
{
    const char *s = kt_strtab_get(t->strs, name);
    for (size_t i = 0; i < o->nallow; i++)
        if (o->allow[i] && strstr(s, o->allow[i])) return true;
    return false;
}

/* HTA's fold marks on g (sorted by sum desc): cumulative sum above its
 * duration_ratio quantile (pandas linear), or position >= num_kernels.  */
static bool mark_folds(const kt_trace *t, const kt_ann_stat *g, size_t k, const kt_annotations_options *o,
                       bool *fold)
{
    int64_t *cum = malloc(k * sizeof *cum), *sorted = malloc(k * sizeof *sorted);
    if (!cum || !sorted) { free(cum); free(sorted); return false; }
    for (size_t i = 0; i < k; i++) sorted[i] = cum[i] = g[i].sum + (i ? cum[i - 1] : 0);
    qsort(sorted, k, sizeof *sorted, cmp_i64);
    double h = (double)(k - 1) * o->duration_ratio;
    size_t lo = (size_t)floor(h);
    double q = lo + 1 < k ? (double)sorted[lo] + (h - (double)lo) * (double)(sorted[lo + 1] - sorted[lo])
                          : (double)sorted[lo];
    for (size_t i = 0; i < k; i++)
        fold[i] = ((double)cum[i] > q || i >= o->num_kernels) && !allowed(t, g[i].name, o);
    free(cum);
    free(sorted);
    return true;
}

/* The "others" row: HTA's statistics over the folded names' sums
 * (compat), or the real statistics of all their spans pooled.             */
static kt_ann_stat others_of(const kt_ann_stat *g, const bool *fold, size_t k, int rank, bool compat)
{
    kt_ann_stat o = { .name = KT_NONE, .rank = rank };
    double ss = 0;
    for (size_t i = 0; i < k; i++) {
        if (!fold[i]) continue;
        int64_t lo = compat ? g[i].sum : g[i].min, hi = compat ? g[i].sum : g[i].max;
        o.min = o.count && o.min < lo ? o.min : lo;
        o.max = o.count && o.max > hi ? o.max : hi;
        o.sum += g[i].sum;
        o.count += compat ? 1 : g[i].count;
    }
    o.mean = (double)o.sum / (double)o.count;
    for (size_t i = 0; i < k; i++) {
        if (!fold[i]) continue;
        if (compat) ss += ((double)g[i].sum - o.mean) * ((double)g[i].sum - o.mean);
        else ss += g[i].std * g[i].std * (double)(g[i].count - 1) +
                   (double)g[i].count * (g[i].mean - o.mean) * (g[i].mean - o.mean);
    }
    o.std = o.count > 1 ? sqrt(ss / (double)(o.count - 1)) : 0;
    return o;
}

static bool fold_and_push(const kt_trace *t, kt_ann_stat *g, size_t k, const kt_annotations_options *o,
                          int rank, kt_ann_stats *out)
{
    if (k <= o->num_kernels) {
        for (size_t i = 0; i < k; i++)
            if (!push(out, g[i])) return false;
        return true;
    }
    qsort(g, k, sizeof *g, by_sum_desc);
    bool *fold = malloc(k * sizeof *fold), ok = fold && mark_folds(t, g, k, o, fold), any = false;
    for (size_t i = 0; ok && i < k; i++) {
        any |= fold[i];
        if (fold[i]) continue;
        kt_ann_stat row = g[i];
        if (t->hta_compat) { /* HTA regroups the sums: [BUG] max = min = mean = sum */
            row.min = row.max = row.sum;
            row.mean = (double)row.sum;
            row.std = 0;
        }
        ok = push(out, row);
    }
    if (ok && any) ok = push(out, others_of(g, fold, k, rank, t->hta_compat));
    free(fold);
    return ok;
}

bool kt_ann_span_kept(const kt_trace *t, const kt_events *e, uint32_t i, uint8_t kind)
{
    return e->kind[i] == kind && e->ph[i] == 'X' && e->name[i] != KT_NONE && (t->hta_compat || e->dur[i] >= 0);
}

kt_status kt_ann_breakdown_rank(const kt_trace *t, const kt_rank *r, uint8_t kind,
                                const kt_annotations_options *o, kt_ann_stats *out)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += kt_ann_span_kept(t, e, i, kind);
    if (n == 0) return KT_OK;
    span *s = malloc(n * sizeof *s);
    kt_ann_stat *g = malloc(n * sizeof *g);
    if (!s || !g) { free(s); free(g); return KT_ENOMEM; }
    n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (kt_ann_span_kept(t, e, i, kind)) s[n++] = (span){ e->name[i], e->dur[i] };
    qsort(s, n, sizeof *s, by_name_then_dur);
    size_t k = 0;
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a; b < n && s[b].name == s[a].name; b++) {}
        g[k++] = stat_of(s[a].name, r->rank, s + a, b - a);
    }
    bool ok = fold_and_push(t, g, k, o, r->rank, out);
    free(s);
    free(g);
    return ok ? KT_OK : KT_ENOMEM;
}

static const char *name_of(const kt_trace *t, uint32_t id)
{
    return id == KT_NONE ? "others" : kt_strtab_get(t->strs, id);
}

static int by_rank_name(const void *a, const void *b, void *ctx)
{
    const kt_ann_stat *x = a, *y = b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return strcmp(name_of(ctx, x->name), name_of(ctx, y->name));
}

kt_table *kt_ann_breakdown_table(const kt_trace *t, const char *name, kt_ann_stats *rows)
{
    kt_table *tb = kt_table_new(name);
    if (!tb) return NULL;
    static const char *const cols[] = { "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)" };
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    for (int c = 0; c < 5; c++) kt_table_add_col(tb, cols[c], KT_COL_FLOAT, t->hta_compat ? -1 : 3);
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    if (!t->hta_compat) kt_table_add_col(tb, "count", KT_COL_INT, 0);
    if (rows->n) qsort_r(rows->v, rows->n, sizeof *rows->v, by_rank_name, (void *)t);
    for (size_t i = 0; i < rows->n; i++) {
        const kt_ann_stat *s = &rows->v[i];
        double v[5] = { (double)s->sum, (double)s->max, (double)s->min, s->std, s->mean };
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, name_of(t, s->name));
        for (int c = 0; c < 5; c++) kt_table_set_float(tb, 1 + (size_t)c, v[c] / 1e3);
        kt_table_set_int(tb, 6, s->rank);
        if (!t->hta_compat) kt_table_set_int(tb, 7, (int64_t)s->count);
    }
    return tb;
}
