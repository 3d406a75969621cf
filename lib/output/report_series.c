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

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct key {
    double rank, k1, k2num;
    const char *k2str;
} key;

/* NaN ranks and k1 (absent columns) equal each other; a NaN k2 (a null
 * stream) equals nothing, a group of its own.                             */
static bool same_num(double a, double b)
{
    return a == b || (a != a && b != b);
}

static bool same(const key *a, const key *b)
{
    bool k2 = a->k2str ? !strcmp(a->k2str, b->k2str) : a->k2num == b->k2num;
    return same_num(a->rank, b->rank) && same_num(a->k1, b->k1) && k2;
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

/* Sort one series by x (they normally arrive sorted: then nothing moves,
 * and the series is marked sorted — which a NaN x never is).             */
static kt_status sort_series(rp_series *s, double *x, double *y)
{
    size_t i = 1;
    while (i < s->n && x[i - 1] <= x[i]) i++;
    s->x_sorted = i >= s->n && (s->n != 1 || x[0] == x[0]);
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

/* The rows' groups, shared by every y column grouped over them: rows
 * come in runs of one key, and a group is one run or more.              */
typedef struct grouping {
    size_t n, ng, runs; /* rows, groups, runs */
    key *keys;          /* of each group, in first-seen order */
    size_t *run;        /* first row of each run; runs + 1 (n last) */
    size_t *run_group;  /* group of each run */
    size_t *start;      /* first slot of each group's points; ng + 1 */
} grouping;

static void grouping_free(grouping *gr)
{
    free(gr->keys), free(gr->run), free(gr->run_group), free(gr->start);
}

/* The runs of rows of one key and the group of each (one lookup a run).
 * rank, k1 and k2 are the key columns (k2 unused when str).             */
static void find_runs(const kt_table *t, long k2_col, bool str, const double *rank, const double *k1,
                      const double *k2, grouping *gr)
{
    const char *prev = NULL;
    for (size_t i = 0; i < gr->n; i++) {
        const char *s = str ? kt_table_str(t, i, (size_t)k2_col) : NULL;
        bool same_run = i && same_num(rank[i], rank[i - 1]) && same_num(k1[i], k1[i - 1]) &&
                        (str ? s == prev || !strcmp(s, prev) : k2[i] == k2[i - 1]); /* a shared label: one text */
        prev = s;
        if (same_run) continue;
        key k = { rank[i], k1[i], str ? NAN : k2[i], s };
        gr->run[gr->runs] = i;
        gr->run_group[gr->runs++] = group_of(gr->keys, &gr->ng, &k);
    }
    gr->run[gr->runs] = gr->n;
}

static kt_status group_rows(const kt_table *t, long rank_col, long k1_col, long k2_col, grouping *gr)
{
    size_t n = kt_table_nrows(t);
    bool str = k2_col >= 0 && kt_table_col_type(t, (size_t)k2_col) == KT_COL_STR;
    double *col = malloc((3 * n + 1) * sizeof *col); /* rank, k1, k2 (as needed) */
    *gr = (grouping){ .n = n, .keys = malloc((n + 1) * sizeof *gr->keys), .run = malloc((n + 1) * sizeof *gr->run),
                      .run_group = malloc((n + 1) * sizeof *gr->run_group) };
    if (!col || !gr->keys || !gr->run || !gr->run_group) {
        free(col);
        grouping_free(gr);
        return KT_ENOMEM;
    }
    double *k1 = k1_col == rank_col ? col : col + n, *k2 = col + 2 * n;
    rp_nums(t, rank_col, col);
    if (k1 != col) rp_nums(t, k1_col, k1);
    if (!str) rp_nums(t, k2_col, k2);
    find_runs(t, k2_col, str, col, k1, k2, gr);
    free(col);
    gr->start = calloc(gr->ng + 1, sizeof *gr->start);
    if (!gr->start) {
        grouping_free(gr);
        return KT_ENOMEM;
    }
    for (size_t r = 0; r < gr->runs; r++) gr->start[gr->run_group[r] + 1] += gr->run[r + 1] - gr->run[r];
    for (size_t g = 0; g < gr->ng; g++) gr->start[g + 1] += gr->start[g];
    return KT_OK;
}

/* Columns x and y into each group's slots of xy (x then y), run by run. */
static kt_status scatter(const kt_table *t, const grouping *gr, long x_col, long y_col, double *xy)
{
    size_t n = gr->n, *fill = malloc((gr->ng + 1) * sizeof *fill);
    double *x = malloc((2 * n + 1) * sizeof *x), *y = x + n;
    if (!fill || !x) {
        free(fill), free(x);
        return KT_ENOMEM;
    }
    rp_nums(t, x_col, x);
    rp_nums(t, y_col, y);
    memcpy(fill, gr->start, gr->ng * sizeof *fill);
    for (size_t r = 0; r < gr->runs; r++) {
        size_t *at = &fill[gr->run_group[r]];
        for (size_t i = gr->run[r]; i < gr->run[r + 1]; i++, (*at)++) {
            xy[*at] = x[i];
            xy[n + *at] = y[i];
        }
    }
    free(fill), free(x);
    return KT_OK;
}

/* The series of one y column: rows in row order inside each group (one
 * run per group: the columns are the series as read), then sorted by x. */
static kt_status fill_groups(const kt_table *t, const grouping *gr, long x_col, long y_col, const char *prefix,
                             const rp_groups *first, rp_groups *out)
{
    size_t n = gr->n, ng = gr->ng;
    memset(out, 0, sizeof *out);
    out->xy = malloc((2 * n + 1) * sizeof *out->xy);
    out->s = calloc(ng + 1, sizeof *out->s);
    out->rank = malloc((ng + 1) * sizeof *out->rank);
    out->labels = malloc((ng + 1) * RP_GROUP_LABEL);
    kt_status st = out->xy && out->s && out->rank && out->labels ? KT_OK : KT_ENOMEM;
    if (st == KT_OK && gr->runs == ng) {
        rp_nums(t, x_col, out->xy);
        rp_nums(t, y_col, out->xy + n);
    } else if (st == KT_OK) {
        st = scatter(t, gr, x_col, y_col, out->xy);
    }
    out->n = st == KT_OK ? ng : 0;
    for (size_t g = 0; st == KT_OK && g < ng; g++) {
        size_t at = gr->start[g];
        out->s[g] = (rp_series){ .x = out->xy + at, .y = out->xy + n + at, .n = gr->start[g + 1] - at };
        label(out, g, prefix, &gr->keys[g]);
        out->s[g].x_sorted = first && first->s[g].x_sorted; /* the same x as the first y column's */
        if (!out->s[g].x_sorted) st = sort_series(&out->s[g], out->xy + at, out->xy + n + at);
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
    for (size_t k = 0; st == KT_OK && k < ny; k++)
        st = fill_groups(t, &gr, x_col, y_cols[k], prefixes[k], k ? &out[0] : NULL, &out[k]);
    for (size_t k = 0; st != KT_OK && k < ny; k++) rp_groups_free(&out[k]);
    if (gr.start) grouping_free(&gr);
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
