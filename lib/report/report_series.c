/*
 * report_series.c — the report's line-chart series, one x/y series per
 * rank and stream, copy kind or device: split from a long time-series
 * table (memcpy bandwidth), or made from what an analysis kept for the
 * report instead of such a table (queue lengths, device memory: the
 * points and events the tables are made of, split as the tables would be).
 *
 * The analyses emit a rank's streams interleaved or one after another,
 * mostly in long runs of one key: a row is compared with the row before
 * it, and only where the key changes is its group looked up.  When every
 * group is one run (the usual case) the columns read are the series,
 * without scattering them.
 */
#include "report/report_sections.h"

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

/* Rows whose key columns are read at a time: the keys of a million-row
 * series are compared as they are read, never held for every row.      */
#define KEY_BLOCK 4096

/* The runs of rows [r0, r1) and the group of each (one lookup a run);
 * rank, k1 and k2 hold the block's key columns (k2 unused when str), prev
 * the key of the row before (carried from block to block).              */
static void find_runs(const kt_table *t, long k2_col, bool str, size_t r0, size_t r1, const double *rank,
                      const double *k1, const double *k2, key *prev, grouping *gr)
{
    for (size_t i = r0; i < r1; i++) {
        size_t b = i - r0;
        const char *s = str ? kt_table_str(t, i, (size_t)k2_col) : NULL;
        key k = { rank[b], k1[b], str ? NAN : k2[b], s };
        bool same_run = i && same_num(k.rank, prev->rank) && same_num(k.k1, prev->k1) && /* a shared label: one text */
                        (str ? s == prev->k2str || !strcmp(s, prev->k2str) : k.k2num == prev->k2num);
        *prev = k;
        if (same_run) continue;
        gr->run[gr->runs] = i;
        gr->run_group[gr->runs++] = group_of(gr->keys, &gr->ng, &k);
    }
}

/* Rows [r0, r1): the key columns (rank; k1 unless it is rank; k2 unless
 * text) into keys (KEY_BLOCK values each), and x and y into xy (x then
 * y, at the rows' places), in one pass over the rows: a pass per column
 * walked the million-row series tables five times.                        */
static void read_block(const kt_table *t, const long key_cols[3], bool str, long x_col, long y_col, size_t r0,
                       size_t r1, double *keys, double *xy)
{
    size_t n = kt_table_nrows(t), k = 0;
    long cols[5];
    double *dst[5];
    cols[k] = key_cols[0], dst[k++] = keys;
    if (key_cols[1] != key_cols[0]) cols[k] = key_cols[1], dst[k++] = keys + KEY_BLOCK;
    if (!str) cols[k] = key_cols[2], dst[k++] = keys + 2 * KEY_BLOCK;
    cols[k] = x_col, dst[k++] = xy + r0;
    cols[k] = y_col, dst[k++] = xy + n + r0;
    rp_nums_rows(t, cols, k, r0, r1, dst);
}

/* The rows' runs and groups, with x and y read alongside into out->xy
 * (row order; fill_groups puts them in group order).                      */
static kt_status group_rows(const kt_table *t, const long key_cols[3], long x_col, long y_col, rp_groups *out,
                            grouping *gr)
{
    size_t n = kt_table_nrows(t);
    bool str = key_cols[2] >= 0 && kt_table_col_type(t, (size_t)key_cols[2]) == KT_COL_STR;
    double *keys = malloc(3 * KEY_BLOCK * sizeof *keys); /* rank, k1, k2 (as needed) */
    *gr = (grouping){ .n = n, .keys = malloc((n + 1) * sizeof *gr->keys), .run = malloc((n + 1) * sizeof *gr->run),
                      .run_group = malloc((n + 1) * sizeof *gr->run_group) };
    out->xy = malloc((2 * n + 1) * sizeof *out->xy);
    if (!keys || !gr->keys || !gr->run || !gr->run_group || !out->xy) {
        free(keys);
        grouping_free(gr);
        return KT_ENOMEM;
    }
    double *k1 = key_cols[1] == key_cols[0] ? keys : keys + KEY_BLOCK, *k2 = keys + 2 * KEY_BLOCK;
    key prev = { 0 };
    for (size_t r0 = 0; r0 < n; r0 += KEY_BLOCK) {
        size_t r1 = n - r0 < KEY_BLOCK ? n : r0 + KEY_BLOCK;
        read_block(t, key_cols, str, x_col, y_col, r0, r1, keys, out->xy);
        find_runs(t, key_cols[2], str, r0, r1, keys, k1, k2, &prev, gr);
    }
    gr->run[gr->runs] = n;
    free(keys);
    gr->start = calloc(gr->ng + 1, sizeof *gr->start);
    if (!gr->start) {
        grouping_free(gr);
        return KT_ENOMEM;
    }
    for (size_t r = 0; r < gr->runs; r++) gr->start[gr->run_group[r] + 1] += gr->run[r + 1] - gr->run[r];
    for (size_t g = 0; g < gr->ng; g++) gr->start[g + 1] += gr->start[g];
    return KT_OK;
}

/* *xy (x then y, row order) into each group's slots, run by run. */
static kt_status scatter(const grouping *gr, double **xy)
{
    size_t n = gr->n, *fill = malloc((gr->ng + 1) * sizeof *fill);
    double *to = malloc((2 * n + 1) * sizeof *to), *from = *xy;
    if (!fill || !to) {
        free(fill), free(to);
        return KT_ENOMEM;
    }
    memcpy(fill, gr->start, gr->ng * sizeof *fill);
    for (size_t r = 0; r < gr->runs; r++) {
        size_t *at = &fill[gr->run_group[r]];
        for (size_t i = gr->run[r]; i < gr->run[r + 1]; i++, (*at)++) {
            to[*at] = from[i];
            to[n + *at] = from[n + i];
        }
    }
    free(fill), free(from);
    *xy = to;
    return KT_OK;
}

/* The series read into out->xy: rows in row order inside each group (one
 * run per group: the columns are the series as read), then sorted by x. */
static kt_status fill_groups(const grouping *gr, const char *prefix, rp_groups *out)
{
    size_t n = gr->n, ng = gr->ng;
    out->s = calloc(ng + 1, sizeof *out->s);
    out->rank = malloc((ng + 1) * sizeof *out->rank);
    out->labels = malloc((ng + 1) * RP_GROUP_LABEL);
    kt_status st = out->s && out->rank && out->labels ? KT_OK : KT_ENOMEM;
    if (st == KT_OK && gr->runs != ng) st = scatter(gr, &out->xy);
    out->n = st == KT_OK ? ng : 0;
    for (size_t g = 0; st == KT_OK && g < ng; g++) {
        size_t at = gr->start[g];
        out->s[g] = (rp_series){ .x = out->xy + at, .y = out->xy + n + at, .n = gr->start[g + 1] - at };
        label(out, g, prefix, &gr->keys[g]);
        st = sort_series(&out->s[g], out->xy + at, out->xy + n + at);
    }
    return st;
}

kt_status rp_group_series(const kt_table *t, long rank_col, long k1_col, long k2_col, const char *prefix,
                          long x_col, long y_col, rp_groups *out)
{
    memset(out, 0, sizeof *out);
    const long key_cols[3] = { rank_col, k1_col, k2_col };
    grouping gr;
    kt_status st = group_rows(t, key_cols, x_col, y_col, out, &gr);
    if (st == KT_OK) st = fill_groups(&gr, prefix, out);
    if (st != KT_OK) rp_groups_free(out);
    if (gr.start) grouping_free(&gr);
    return st;
}

kt_status rp_groups_reserve(rp_groups *g, size_t nseries, size_t npoints)
{
    *g = (rp_groups){ .s = calloc(nseries + 1, sizeof *g->s), .rank = malloc((nseries + 1) * sizeof *g->rank),
                      .labels = malloc((nseries + 1) * RP_GROUP_LABEL),
                      .xy = malloc((2 * npoints + 1) * sizeof *g->xy), .points = npoints };
    if (g->s && g->rank && g->labels && g->xy) return KT_OK;
    rp_groups_free(g);
    return KT_ENOMEM;
}

void rp_groups_next(rp_groups *g, int rank, const char *prefix, const char *text, double num, size_t n, double **x,
                    double **y)
{
    key k = { rank, NAN, num, text };
    *x = g->xy + g->filled;
    *y = g->xy + g->points + g->filled;
    g->s[g->n] = (rp_series){ .x = *x, .y = *y, .n = n };
    label(g, g->n++, prefix, &k);
    g->filled += n;
}

kt_status rp_groups_sort(rp_groups *g)
{
    kt_status st = KT_OK;
    for (size_t i = 0; st == KT_OK && i < g->n; i++) {
        double *x = g->xy + (g->s[i].x - g->xy); /* the series' own slots, writable */
        st = sort_series(&g->s[i], x, x + g->points);
    }
    return st;
}

/* How many series the kept points hold, and how many points. */
static size_t count_series(const rp_kept_points *ranks, size_t nranks, size_t *points)
{
    size_t ng = 0;
    *points = 0;
    for (size_t k = 0; k < nranks; k++) {
        const kt_step_point *p = ranks[k].p;
        *points += ranks[k].n;
        for (size_t i = 0; i < ranks[k].n; i++) ng += !i || !kt_step_same_series(ranks[k].r, &p[i], &p[i - 1]);
    }
    return ng;
}

kt_status rp_group_points(const kt_trace *t, const rp_kept_points *ranks, size_t nranks, const char *prefix,
                          rp_groups *out)
{
    size_t total, ng = count_series(ranks, nranks, &total);
    kt_status st = rp_groups_reserve(out, ng, total);
    for (size_t k = 0; st == KT_OK && k < nranks; k++) {
        const kt_rank *r = ranks[k].r;
        const kt_step_point *p = ranks[k].p;
        for (size_t a = 0, b; a < ranks[k].n; a = b) {
            for (b = a + 1; b < ranks[k].n && kt_step_same_series(r, &p[b], &p[a]); b++) continue;
            double *x, *y;
            rp_groups_next(out, r->rank, prefix, NULL, p[a].key, b - a, &x, &y);
            for (size_t i = a; i < b; i++) { /* as the series table holds them */
                x[i - a] = (double)(p[i].ts - t->min_ts) / 1e3;
                y[i - a] = (double)(int64_t)p[i].value;
            }
        }
    }
    if (st == KT_OK) st = rp_groups_sort(out);
    if (st != KT_OK) rp_groups_free(out);
    return st;
}

static size_t shown_events(const kt_mem_device *dev)
{
    size_t shown = 0;
    for (size_t i = 0; i < dev->n; i++) shown += kt_mem_event_valid(&dev->e[i]);
    return shown;
}

/* One device's allocated (into g[0]) and reserved (g[1]) series. */
static void device_series(const kt_trace *t, int rank, const kt_mem_device *dev, size_t shown, rp_groups g[2])
{
    double *xa, *ya, *xr, *yr;
    rp_groups_next(&g[0], rank, "allocated ", dev->label, 0, shown, &xa, &ya);
    rp_groups_next(&g[1], rank, "reserved ", dev->label, 0, shown, &xr, &yr);
    for (size_t i = 0, j = 0; i < dev->n; i++) {
        const kt_mem_event *e = &dev->e[i];
        if (!kt_mem_event_valid(e)) continue;
        xa[j] = xr[j] = (double)(e->ts - t->min_ts) / 1e3; /* as the series table holds them */
        ya[j] = (double)e->allocated;
        yr[j++] = (double)e->reserved;
    }
}

kt_status rp_group_memory(const kt_trace *t, const rp_kept_memory *ranks, size_t nranks, rp_groups g[2])
{
    size_t nseries = 0, npoints = 0;
    for (size_t k = 0; k < nranks; k++)
        for (size_t d = 0; d < ranks[k].m.ndev; d++) {
            size_t shown = shown_events(&ranks[k].m.dev[d]);
            nseries += shown > 0;
            npoints += shown;
        }
    kt_status st = rp_groups_reserve(&g[0], nseries, npoints);
    if (st == KT_OK && (st = rp_groups_reserve(&g[1], nseries, npoints)) != KT_OK) rp_groups_free(&g[0]);
    for (size_t k = 0; st == KT_OK && k < nranks; k++)
        for (size_t d = 0; d < ranks[k].m.ndev; d++) {
            const kt_mem_device *dev = &ranks[k].m.dev[d];
            size_t shown = shown_events(dev);
            if (shown) device_series(t, ranks[k].r->rank, dev, shown, g);
        }
    if (st == KT_OK && ((st = rp_groups_sort(&g[0])) != KT_OK || (st = rp_groups_sort(&g[1])) != KT_OK)) {
        rp_groups_free(&g[0]);
        rp_groups_free(&g[1]);
    }
    return st;
}

void rp_groups_free(rp_groups *g)
{
    free(g->s), free(g->rank), free(g->labels), free(g->xy);
    memset(g, 0, sizeof *g);
}
