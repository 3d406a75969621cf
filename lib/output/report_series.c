/*
 * report_series.c — splitting a long time-series table (queue length,
 * memcpy bandwidth, device memory) into one x/y series per rank and
 * stream or copy kind, for the report's line charts.
 *
 * The analyses emit a rank's streams interleaved or one after another,
 * mostly in long runs of one key: a row is compared with the row before
 * it, and only where the key changes is its group looked up.  When every
 * group is one run (the usual case) the columns read are the series,
 * without scattering them.  Several y columns over the same keys (memory:
 * allocated and reserved) are grouped in one pass.
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
static size_t group_of(key *keys, size_t *n, const key *k)
{
    for (size_t g = 0; g < *n; g++)
        if (same(&keys[g], k)) return g;
    keys[*n] = *k;
    return (*n)++;
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

/* The rows' groups, shared by every y column grouped over them. */
typedef struct grouping {
    size_t n, ng, runs; /* rows, groups, runs of rows of one group */
    key *keys;          /* of each group, in first-seen order */
    size_t *of;         /* group of each row */
    size_t *start;      /* first slot of each group's points; ng + 1 */
} grouping;

static void grouping_free(grouping *gr)
{
    free(gr->keys), free(gr->of), free(gr->start);
}

/* Each row's group, one lookup per run of equal keys. */
static void assign_groups(const kt_table *t, long k2_col, bool str, const double *col, grouping *gr)
{
    size_t n = gr->n;
    key prev = { 0 };
    for (size_t i = 0; i < n; i++) {
        key k = { col[i], col[n + i], col[2 * n + i], str ? kt_table_str(t, i, (size_t)k2_col) : NULL };
        if (i && same(&prev, &k)) {
            gr->of[i] = gr->of[i - 1];
            continue;
        }
        gr->of[i] = group_of(gr->keys, &gr->ng, &k);
        gr->runs++;
        prev = k;
    }
}

static kt_status group_rows(const kt_table *t, long rank_col, long k1_col, long k2_col, grouping *gr)
{
    size_t n = kt_table_nrows(t);
    bool str = k2_col >= 0 && kt_table_col_type(t, (size_t)k2_col) == KT_COL_STR;
    double *col = malloc((3 * n + 1) * sizeof *col); /* rank, k1, k2 */
    *gr = (grouping){ .n = n, .keys = malloc((n + 1) * sizeof *gr->keys), .of = malloc((n + 1) * sizeof *gr->of) };
    if (!col || !gr->keys || !gr->of) {
        free(col);
        grouping_free(gr);
        return KT_ENOMEM;
    }
    rp_nums(t, rank_col, col);
    if (k1_col == rank_col) memcpy(col + n, col, n * sizeof *col);
    else rp_nums(t, k1_col, col + n);
    rp_nums(t, str ? -1 : k2_col, col + 2 * n);
    assign_groups(t, k2_col, str, col, gr);
    free(col);
    gr->start = calloc(gr->ng + 1, sizeof *gr->start);
    if (!gr->start) {
        grouping_free(gr);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) gr->start[gr->of[i] + 1]++;
    for (size_t g = 0; g < gr->ng; g++) gr->start[g + 1] += gr->start[g];
    return KT_OK;
}

/* x and y of every row into each group's slots of xy (x then y). */
static kt_status scatter(const grouping *gr, const double *x, const double *y, double *xy)
{
    size_t *fill = malloc((gr->ng + 1) * sizeof *fill);
    if (!fill) return KT_ENOMEM;
    memcpy(fill, gr->start, gr->ng * sizeof *fill);
    for (size_t i = 0; i < gr->n; i++) {
        size_t at = fill[gr->of[i]]++;
        xy[at] = x[i];
        xy[gr->n + at] = y[i];
    }
    free(fill);
    return KT_OK;
}

/* The series of one y column: rows in row order inside each group (one
 * run per group: they are already there), then sorted by x.             */
static kt_status fill_groups(const kt_table *t, const grouping *gr, const double *x, long y_col, const char *prefix,
                             rp_groups *out)
{
    size_t n = gr->n, ng = gr->ng;
    memset(out, 0, sizeof *out);
    out->xy = malloc((2 * n + 1) * sizeof *out->xy);
    out->s = calloc(ng + 1, sizeof *out->s);
    out->rank = malloc((ng + 1) * sizeof *out->rank);
    out->labels = malloc((ng + 1) * RP_GROUP_LABEL);
    double *y = gr->runs == ng ? NULL : malloc((n + 1) * sizeof *y);
    kt_status st = out->xy && out->s && out->rank && out->labels && (y || gr->runs == ng) ? KT_OK : KT_ENOMEM;
    if (st == KT_OK && !y) {
        memcpy(out->xy, x, n * sizeof *x);
        rp_nums(t, y_col, out->xy + n);
    } else if (st == KT_OK) {
        rp_nums(t, y_col, y);
        st = scatter(gr, x, y, out->xy);
    }
    free(y);
    out->n = st == KT_OK ? ng : 0;
    for (size_t g = 0; st == KT_OK && g < ng; g++) {
        size_t at = gr->start[g];
        out->s[g] = (rp_series){ .x = out->xy + at, .y = out->xy + n + at, .n = gr->start[g + 1] - at };
        label(out, g, prefix, &gr->keys[g]);
        st = sort_series(&out->s[g], out->xy + at, out->xy + n + at);
    }
    if (st != KT_OK) rp_groups_free(out);
    return st;
}

kt_status rp_group_series_ys(const kt_table *t, long rank_col, long k1_col, long k2_col, long x_col,
                             const long *y_cols, const char *const *prefixes, size_t ny, rp_groups *out)
{
    for (size_t k = 0; k < ny; k++) memset(&out[k], 0, sizeof out[k]);
    grouping gr;
    kt_status st = group_rows(t, rank_col, k1_col, k2_col, &gr);
    if (st != KT_OK) return st;
    double *x = malloc((gr.n + 1) * sizeof *x);
    if (!x) st = KT_ENOMEM;
    else rp_nums(t, x_col, x);
    for (size_t k = 0; st == KT_OK && k < ny; k++) st = fill_groups(t, &gr, x, y_cols[k], prefixes[k], &out[k]);
    for (size_t k = 0; st != KT_OK && k < ny; k++) rp_groups_free(&out[k]);
    free(x);
    grouping_free(&gr);
    return st;
}

kt_status rp_group_series(const kt_table *t, long rank_col, long k1_col, long k2_col, const char *prefix,
                          long x_col, long y_col, rp_groups *out)
{
    return rp_group_series_ys(t, rank_col, k1_col, k2_col, x_col, &y_col, &prefix, 1, out);
}

void rp_groups_free(rp_groups *g)
{
    free(g->s), free(g->rank), free(g->labels), free(g->xy);
    memset(g, 0, sizeof *g);
}
