/*
 * report_series.c — splitting a long time-series table (queue length,
 * memcpy bandwidth) into one x/y series per rank and stream or copy kind,
 * for the report's line charts.
 *
 * The analyses emit a rank's streams interleaved or one after another;
 * rows of one series are found by their key, with the last key found
 * tried first since runs of one key are the common case.
 */
#include "output/report_sections.h"

#include <stdlib.h>
#include <string.h>

typedef struct key {
    double rank, k1, k2num;
    const char *k2str;
} key;

static bool same(const key *a, const key *b)
{
    /* NaN keys (absent columns) compare equal to each other */
    bool r = a->rank == b->rank || (a->rank != a->rank && b->rank != b->rank);
    bool k1 = a->k1 == b->k1 || (a->k1 != a->k1 && b->k1 != b->k1);
    bool k2 = a->k2str ? !strcmp(a->k2str, b->k2str) : a->k2num == b->k2num;
    return r && k1 && k2;
}

/* Index of the group of key k, adding it when new. */
static size_t group_of(key *keys, size_t *n, size_t *last, const key *k)
{
    if (*n && same(&keys[*last], k)) return *last;
    for (size_t g = 0; g < *n; g++)
        if (same(&keys[g], k)) return *last = g;
    keys[*n] = *k;
    return *last = (*n)++;
}

static int cmp_x(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return (x > y) - (x < y);
}

/* Sort one series by x (they normally arrive sorted: then nothing moves). */
static kt_status sort_series(rp_series *s, double *x, double *y)
{
    size_t i = 1;
    while (i < s->n && x[i - 1] <= x[i]) i++;
    if (i >= s->n) return KT_OK;
    double *pairs = malloc(2 * s->n * sizeof *pairs);
    if (!pairs) return KT_ENOMEM;
    for (size_t j = 0; j < s->n; j++) pairs[2 * j] = x[j], pairs[2 * j + 1] = y[j];
    qsort(pairs, s->n, 2 * sizeof *pairs, cmp_x);
    for (size_t j = 0; j < s->n; j++) x[j] = pairs[2 * j], y[j] = pairs[2 * j + 1];
    free(pairs);
    return KT_OK;
}

static void label(rp_groups *g, size_t i, const char *prefix, const key *k)
{
    char *b = g->labels + i * RP_GROUP_LABEL;
    if (k->k2str) snprintf(b, RP_GROUP_LABEL, "%s%s", prefix, k->k2str);
    else snprintf(b, RP_GROUP_LABEL, "%s%.15g", prefix, k->k2num);
    g->s[i].label = b;
    g->rank[i] = (int)k->rank;
}

kt_status rp_group_series(const kt_table *t, long rank_col, long k1_col, long k2_col, const char *prefix,
                          long x_col, long y_col, rp_groups *out)
{
    memset(out, 0, sizeof *out);
    size_t n = kt_table_nrows(t), ng = 0, last = 0;
    bool str = k2_col >= 0 && kt_table_col_type(t, (size_t)k2_col) == KT_COL_STR;
    key *keys = malloc((n + 1) * sizeof *keys);
    size_t *of = malloc((n + 1) * sizeof *of), *fill = NULL;
    double *col = malloc((5 * n + 1) * sizeof *col); /* rank, k1, k2, x, y */
    out->xy = malloc((2 * n + 1) * sizeof *out->xy);
    if (!keys || !of || !col || !out->xy) goto nomem;
    long cols[5] = { rank_col, k1_col, str ? -1 : k2_col, x_col, y_col };
    for (int c = 0; c < 5; c++) rp_nums(t, cols[c], col + (size_t)c * n);
    for (size_t i = 0; i < n; i++) {
        key k = { col[i], col[n + i], col[2 * n + i], str ? rp_str(t, i, k2_col) : NULL };
        of[i] = group_of(keys, &ng, &last, &k);
    }
    out->s = calloc(ng + 1, sizeof *out->s);
    out->rank = malloc((ng + 1) * sizeof *out->rank);
    out->labels = malloc((ng + 1) * RP_GROUP_LABEL);
    fill = calloc(ng + 1, sizeof *fill);
    if (!out->s || !out->rank || !out->labels || !fill) goto nomem;
    out->n = ng;
    for (size_t i = 0; i < n; i++) out->s[of[i]].n++;
    for (size_t g = 0, at = 0; g < ng; at += out->s[g].n, g++) {
        fill[g] = at;
        label(out, g, prefix, &keys[g]);
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = fill[of[i]]++;
        out->xy[at] = col[3 * n + i];
        out->xy[n + at] = col[4 * n + i];
    }
    kt_status st = KT_OK;
    for (size_t g = 0, at = 0; g < ng && st == KT_OK; at += out->s[g].n, g++) {
        out->s[g].x = out->xy + at;
        out->s[g].y = out->xy + n + at;
        st = sort_series(&out->s[g], out->xy + at, out->xy + n + at);
    }
    free(keys), free(of), free(fill), free(col);
    if (st != KT_OK) rp_groups_free(out);
    return st;
nomem:
    free(keys), free(of), free(fill), free(col);
    rp_groups_free(out);
    return KT_ENOMEM;
}

void rp_groups_free(rp_groups *g)
{
    free(g->s), free(g->rank), free(g->labels), free(g->xy);
    memset(g, 0, sizeof *g);
}
