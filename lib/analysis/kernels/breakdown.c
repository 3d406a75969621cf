/*
 * breakdown.c — HTA's GPU kernel breakdown (spec A4.2): how GPU time splits
 * into computation, communication and memory (and their overlaps), and the
 * top kernels of each type on each rank with the tail folded into "others".
 *
 * It reproduces HTA's tables and column names; the one deliberate difference
 * is that statistics after folding are the real per-launch statistics (HTA
 * reports max = min = mean = sum for every named kernel, a [BUG]).  Under
 * hta_compat the bug, HTA's "stream != -1" event set and its name-only
 * classification are reproduced instead (docs/kernels.md).
 *
 * Each rank is mapped into a partial (breakdown_partial.h: its classes'
 * times and kernel rows, names as strings) and the tables are made from
 * the partial — the ranks of one trace here, ranks loaded apart in
 * kt_breakdown_reduce (--stream-ranks, MPI): both print the same bytes.
 */
#include "analysis/common/intervals.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/np_sort.h"
#include "analysis/common/type_differences.h"
#include "analysis/kernels/breakdown_partial.h"
#include "model/index.h"
#include "model/model.h"
#include "table/table.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTYPES KT_BD_NTYPES
#define OTHERS KT_BD_OTHERS

typedef kt_bd_row bd_row;

void kt_breakdown_options_init(kt_breakdown_options *o, size_t size)
{
    const kt_breakdown_options d = { .num_kernels = 10, .duration_ratio = 0.8, .memory = 1 };
    kt_options_init(o, size, &d, sizeof d);
}

typedef struct bd {
    const kt_trace *t;       /* NULL in the reduce */
    kt_breakdown_options o;
    bool compat;
    kt_type_cache *types;
    kt_bd_partial *acc;
} bd;

static const char *name_of(const bd *b, uint32_t id)
{
    return id == OTHERS ? "others" : kt_strtab_get(b->acc->strs, id);
}

/* ---- which events, which type --------------------------------------------- */

/* HTA analyses rows with stream != -1 (which includes stream-bearing
 * cuda_sync events); by default GPU work is recognized by its kind.        */
static bool is_gpu_row(const kt_rank *r, uint32_t i, bool compat)
{
    if (compat) return r->ev.ph[i] == 'X' && kt_ev_stream(&r->ev, i) != -1;
    return kt_kind_is_gpu(r->ev.kind[i]);
}

/* Type of a GPU row, or -1 when the breakdown does not analyse it. */
static int analysed_type(const bd *b, const kt_rank *r, uint32_t i)
{
    kt_kernel_type ty = kt_event_kernel_type(b->types, r, i);
    if (ty == KT_TYPE_OTHER || (ty == KT_TYPE_MEMORY && !b->o.memory)) return -1;
    return (int)ty;
}

/* ---- output 1: time partitioned into types and overlaps ------------------- */

typedef struct point {
    int64_t time;
    int delta; /* +bit at a merged start, -bit at a merged end */
} point;

static bool point_before(point x, point y)
{
    return x.time < y.time || (x.time == y.time && x.delta < y.delta);
}

/* One type's merged intervals read as points in (time, delta) order:
 * each interval's start, then its end — the end first when the two are
 * equal; the merge makes every start later than the previous end.  Past
 * the last, a sentinel later than any point.                              */
typedef struct type_points {
    const kt_interval *iv;
    size_t k, n;
    bool second; /* the interval's second point is next */
    int bit;
} type_points;

static point next_point(const type_points *t)
{
    if (t->k == t->n) return (point){ INT64_MAX, INT_MAX };
    const kt_interval *v = &t->iv[t->k];
    bool end_first = v->end == v->start;
    return end_first != t->second ? (point){ v->end, -t->bit } : (point){ v->start, t->bit };
}

static void step(type_points *t)
{
    t->k += t->second;
    t->second = !t->second;
}

/* The running set of active types after point a holds until point b:
 * that time goes to the set's class.                                      */
static void add_segment(int running, point a, point b, int64_t label_ns[1 << NTYPES], bool seen[1 << NTYPES])
{
    int mask = running & ((1 << NTYPES) - 1);
    if (running <= 0 || !mask) return;
    label_ns[mask] = kt_sat_add(label_ns[mask], kt_sat_sub(b.time, a.time));
    seen[mask] = true;
}

/* The sweep over our points, by time, ends first at equal times: each
 * type's points are one sorted run, merged by taking the least head as
 * the sweep goes (points equal in both are interchangeable); no array of
 * points is made (two of 16 bytes a point were the breakdown's pages).  */
static void sweep_merged(kt_interval *iv[NTYPES], const size_t n[NTYPES], int ntypes, int64_t label_ns[1 << NTYPES],
                         bool seen[1 << NTYPES])
{
    type_points t[NTYPES];
    size_t total = 0;
    for (int ty = 0; ty < ntypes; ty++) {
        t[ty] = (type_points){ iv[ty], 0, n[ty], false, 1 << ty };
        total += 2 * n[ty];
    }
    point prev = { 0, 0 };
    int running = 0;
    for (size_t k = 0; k < total; k++) {
        int least = 0;
        for (int ty = 1; ty < ntypes; ty++)
            if (point_before(next_point(&t[ty]), next_point(&t[least]))) least = ty;
        point p = next_point(&t[least]);
        step(&t[least]);
        if (k) add_segment(running, prev, p, label_ns, seen);
        running += p.delta;
        prev = p;
    }
}

/* Points in HTA's order (hta_compat): HTA appends each type's merged
 * starts, then its merged ends (a melt of the [ts, end] frame), and sorts
 * the whole frame by time after every type with pandas' unstable
 * quicksort.  At equal times that order can put a start before an end, so
 * a class active for zero time is met — HTA then prints it with a zero
 * sum ("COMPUTATION overlapping MEMORY,0,0.0" on hta/df_index_resolver). */
static bool hta_order(point *p, size_t np)
{
    int64_t *time = malloc((np ? np : 1) * sizeof *time);
    uint32_t *idx = malloc((np ? np : 1) * sizeof *idx);
    point *copy = malloc((np ? np : 1) * sizeof *copy);
    bool ok = time && idx && copy;
    for (size_t k = 0; ok && k < np; k++) {
        time[k] = p[k].time;
        idx[k] = (uint32_t)k;
        copy[k] = p[k];
    }
    if (ok) kt_np_argsort_i64(time, idx, np);
    for (size_t k = 0; ok && k < np; k++) p[k] = copy[idx[k]];
    free(time);
    free(idx);
    free(copy);
    return ok;
}

/* HTA's sweep: merge each type's intervals (touching ones merge), +bit at
 * merged starts, -bit at merged ends; the running sum is the set of active
 * types; sum segment lengths per set.  By default ends go first at equal
 * times, so touching intervals of different types never make zero-length
 * overlap classes; under hta_compat the order is HTA's (hta_order) and the
 * classes met are marked in seen.  ntypes: the types analysed (HTA sorts
 * once per type, MEMORY only when analysed).  Under hta_compat intervals can be
 * negative (HTA's rounding): they go through the same arithmetic as HTA.  */
static bool sweep(kt_interval *iv[NTYPES], size_t n[NTYPES], int ntypes, bool hta,
                  int64_t label_ns[1 << NTYPES], bool seen[1 << NTYPES])
{
    size_t total = 0;
    for (int ty = 0; ty < NTYPES; ty++) total += 2 * (n[ty] = kt_intervals_merge(iv[ty], n[ty]));
    if (!hta) {
        sweep_merged(iv, n, ntypes, label_ns, seen);
        return true;
    }
    point *p = malloc((total ? total : 1) * sizeof *p);
    if (!p) return false;
    size_t np = 0;
    bool ok = true;
    for (int ty = 0; ok && ty < ntypes; ty++) {
        for (size_t k = 0; k < n[ty]; k++) p[np++] = (point){ iv[ty][k].start, 1 << ty };
        for (size_t k = 0; k < n[ty]; k++) p[np++] = (point){ iv[ty][k].end, -(1 << ty) };
        ok = hta_order(p, np);
    }
    int running = 0;
    for (size_t k = 0; ok && k + 1 < np; k++) {
        running += p[k].delta;
        add_segment(running, p[k], p[k + 1], label_ns, seen);
    }
    free(p);
    return ok;
}

/* "COMPUTATION overlapping COMMUNICATION ..." for a type bitmask. */
static void label_of(int mask, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int ty = 0; ty < NTYPES; ty++) {
        if (!(mask & (1 << ty))) continue;
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", l ? " overlapping " : "", kt_kernel_type_name((kt_kernel_type)ty));
    }
}

/* Our order: by sum descending, ties in bitmask order. */
static void sort_by_sum(const int64_t ns[1 << NTYPES], int *order, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && ns[order[j]] > ns[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

/* HTA's order: groupby sorts the labels by name, then
 * sort_values("sum", ascending=False) — pandas reverses the column,
 * numpy-argsorts it (unstable) and reverses the result.                   */
static void sort_like_hta(const int64_t ns[1 << NTYPES], int *order, size_t n)
{
    char a[128], b[128];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            label_of(order[j], a, sizeof a);
            label_of(order[j - 1], b, sizeof b);
            if (strcmp(a, b) >= 0) break;
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int64_t reversed[1 << NTYPES] = { 0 };
    uint32_t idx[1 << NTYPES];
    int by_name[1 << NTYPES];
    for (size_t i = 0; i < n; i++) {
        by_name[i] = order[i];
        reversed[i] = ns[order[n - 1 - i]];
        idx[i] = (uint32_t)i;
    }
    kt_np_argsort_i64(reversed, idx, n);
    for (size_t k = 0; k < n; k++) order[k] = by_name[n - 1 - idx[n - 1 - k]];
}

/* The classes to print: those with time, and under hta_compat also those
 * met for zero time (HTA prints them with a zero sum).                   */
static size_t sorted_labels(const bd *b, const int64_t ns[1 << NTYPES], const bool seen[1 << NTYPES],
                            int order[1 << NTYPES])
{
    size_t n = 0;
    for (int m = 1; m < (1 << NTYPES); m++)
        if (ns[m] != 0 || (b->compat && seen[m])) order[n++] = m;
    if (b->compat) sort_like_hta(ns, order, n);
    else sort_by_sum(ns, order, n);
    return n;
}

static void add_type_rows(const bd *b, kt_table *tb, const int64_t ns[1 << NTYPES],
                          const bool seen[1 << NTYPES], int rank)
{
    int order[1 << NTYPES];
    size_t n = sorted_labels(b, ns, seen, order);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) total = kt_sat_add(total, ns[order[i]]);
    for (size_t i = 0; i < n; i++) {
        char label[128];
        label_of(order[i], label, sizeof label);
        size_t c = 0;
        kt_table_add_row(tb);
        if (rank >= 0) kt_table_set_int(tb, c++, rank);
        kt_table_set_str(tb, c++, label);
        kt_table_set_float(tb, c++, (double)ns[order[i]] / 1e3);
        kt_table_set_float(tb, c++, total ? 100.0 * (double)ns[order[i]] / (double)total : 0);
    }
}

static kt_table *type_table(const char *name, bool with_rank)
{
    kt_table *tb = kt_table_new(name);
    if (!tb) return NULL;
    if (with_rank) kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "kernel_type", KT_COL_STR, 0);
    kt_table_set_unit(tb, kt_table_add_col(tb, "sum", KT_COL_FLOAT, -1), "us");
    kt_table_add_col(tb, "percentage", KT_COL_FLOAT, 1);
    return tb;
}

/* ---- output 2: per-kernel statistics with HTA's folding ------------------- */

static int by_sum_desc(const void *a, const void *b, void *ctx)
{
    const bd_row *x = a, *y = b;
    if (x->st.sum != y->st.sum) return x->st.sum < y->st.sum ? 1 : -1;
    return strcmp(name_of(ctx, x->name), name_of(ctx, y->name));
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* pandas Series.quantile (linear interpolation) of v[0..n). */
static double quantile(const int64_t *v, size_t n, double q)
{
    int64_t *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_i64);
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    double r = lo + 1 < n ? (double)s[lo] + (h - (double)lo) * (double)(s[lo + 1] - s[lo]) : (double)s[lo];
    free(s);
    return r;
}

/* Which of the k kernels (sorted by sum desc) HTA folds into "others":
 * cumulative sum above its duration_ratio quantile, or position >= num_kernels. */
static bool fold_marks(const bd *b, const bd_row *g, size_t k, bool *fold)
{
    int64_t *cum = malloc(k * sizeof *cum);
    if (!cum) return false;
    for (size_t i = 0; i < k; i++) cum[i] = kt_sat_add(g[i].st.sum, i ? cum[i - 1] : 0);
    double q = quantile(cum, k, b->o.duration_ratio);
    for (size_t i = 0; i < k; i++) fold[i] = (double)cum[i] > q || i >= b->o.num_kernels;
    free(cum);
    return !isnan(q);
}

/* HTA's statistics after folding: every kernel reduced to its sum, then
 * sum/max/min/mean/std over those sums ([BUG] reproduced under compat).  */
static kt_dur_stats stats_of_sums(const bd_row *g, const bool *fold, size_t k, bool want_fold)
{
    kt_dur_stats st = { 0 };
    double ss = 0;
    for (size_t i = 0; i < k; i++) {
        if (fold[i] != want_fold) continue;
        int64_t s = g[i].st.sum;
        st.min = st.count && st.min < s ? st.min : s;
        st.max = st.count && st.max > s ? st.max : s;
        st.sum = kt_sat_add(st.sum, s);
        st.count++;
    }
    st.mean = st.count ? (double)st.sum / (double)st.count : 0;
    for (size_t i = 0; i < k; i++)
        if (fold[i] == want_fold) ss += ((double)g[i].st.sum - st.mean) * ((double)g[i].st.sum - st.mean);
    st.std = st.count > 1 ? sqrt(ss / (double)(st.count - 1)) : 0;
    return st;
}

/* Real per-launch statistics of the folded kernels, merged exactly:
 * pooled variance from each kernel's count, mean and std.                 */
static kt_dur_stats merged_stats(const bd_row *g, const bool *fold, size_t k)
{
    kt_dur_stats st = { 0 };
    for (size_t i = 0; i < k; i++) {
        if (!fold[i]) continue;
        const kt_dur_stats *x = &g[i].st;
        st.min = st.count && st.min < x->min ? st.min : x->min;
        st.max = st.count && st.max > x->max ? st.max : x->max;
        st.sum = kt_sat_add(st.sum, x->sum);
        st.count += x->count;
    }
    st.mean = (double)st.sum / (double)st.count;
    double ss = 0;
    for (size_t i = 0; i < k; i++) {
        if (!fold[i]) continue;
        const kt_dur_stats *x = &g[i].st;
        double d = x->mean - st.mean;
        ss += x->std * x->std * (double)(x->count - 1) + (double)x->count * d * d;
    }
    st.std = st.count > 1 ? sqrt(ss / (double)(st.count - 1)) : 0;
    st.median = NAN;
    return st;
}

/* Fold one (rank, type) group of kernels g[0..k) and emit its rows. */
static bool fold_and_emit(bd *b, bd_row *g, size_t k)
{
    qsort_r(g, k, sizeof *g, by_sum_desc, b);
    if (k <= b->o.num_kernels) {
        for (size_t i = 0; i < k; i++)
            if (!kt_bd_rows_push(&b->acc->kernels, g[i])) return false;
        return true;
    }
    bool *fold = malloc(k * sizeof *fold);
    bool ok = fold && fold_marks(b, g, k, fold);
    for (size_t i = 0; ok && i < k; i++) {
        if (fold[i]) continue;
        bd_row row = g[i];
        if (b->compat) row.st = stats_of_sums(&g[i], &fold[i], 1, false);
        ok = kt_bd_rows_push(&b->acc->kernels, row);
    }
    bool any = false;
    for (size_t i = 0; ok && i < k; i++) any |= fold[i];
    if (ok && any) {
        bd_row others = { .name = OTHERS, .rank = g[0].rank, .type = g[0].type };
        others.st = b->compat ? stats_of_sums(g, fold, k, true) : merged_stats(g, fold, k);
        ok = kt_bd_rows_push(&b->acc->kernels, others);
    }
    free(fold);
    return ok;
}

/* ---- one rank ------------------------------------------------------------- */

typedef struct rank_scan {
    kt_interval *iv[NTYPES];
    size_t n[NTYPES], cap[NTYPES];
    kt_group_map groups;      /* key: type << 32 | name id */
    uint64_t last_event;      /* the previous row's kind << 32 | name, its   */
    int last_type;            /* type and group: a stream often runs one    */
    uint32_t last_group;      /* kernel many times in a row                 */
    kt_samples samples;
} rank_scan;

static void scan_free(rank_scan *s)
{
    for (int ty = 0; ty < NTYPES; ty++) free(s->iv[ty]);
    kt_group_map_free(&s->groups);
    kt_samples_free(&s->samples);
}

/* Row i's duration sample and its interval in its type's list. */
static bool add_row(bd *b, const kt_rank *r, uint32_t i, rank_scan *s)
{
    uint64_t event = (uint64_t)r->ev.kind[i] << 32 | r->ev.name[i];
    if (event != s->last_event) { /* the type depends on the kind and name alone */
        s->last_type = analysed_type(b, r, i);
        if (s->last_type >= 0) s->last_group = kt_group_id(&s->groups, (uint64_t)s->last_type << 32 | r->ev.name[i]);
        s->last_event = event;
    }
    int ty = s->last_type;
    if (ty < 0) return true;
    int64_t dur = r->ev.dur[i] < 0 && !b->compat ? 0 : r->ev.dur[i];
    uint32_t g = s->last_group;
    if (g == UINT32_MAX || !kt_samples_push(&s->samples, g, dur) ||
        (s->n[ty] == s->cap[ty] && !kt_grow((void **)&s->iv[ty], &s->cap[ty], s->n[ty] + 1, sizeof *s->iv[ty])))
        return false;
    s->iv[ty][s->n[ty]++] = (kt_interval){ r->ev.ts[i], kt_sat_add(r->ev.ts[i], dur) };
    return true;
}

/* HTA's rows in file order: which inverted intervals (negative durations
 * under hta_compat) merge into what depends on the order of equal starts. */
static bool scan_file_order(bd *b, const kt_rank *r, rank_scan *s)
{
    for (uint32_t i = 0; i < r->ev.n; i++)
        if (is_gpu_row(r, i, b->compat) && !add_row(b, r, i, s)) return false;
    return true;
}

/* GPU events from the index's time-sorted streams: the CPU events are
 * skipped and each type's intervals come as a few sorted runs, cheap to
 * sort.  Neither order matters here: no interval is inverted, and the
 * statistics sort each kernel's durations.                               */
static bool scan_streams(bd *b, const kt_rank *r, rank_scan *s)
{
    size_t total = 0;
    for (size_t q = 0; q < r->idx->nstreams; q++) total += r->idx->streams[q].n;
    if (!kt_samples_reserve(&s->samples, s->samples.n + total)) return false;
    for (size_t q = 0; q < r->idx->nstreams; q++) {
        const kt_gpu_stream *st = &r->idx->streams[q];
        for (size_t k = 0; k < st->n; k++)
            if (kt_kind_is_gpu(r->ev.kind[st->ev[k]]) && !add_row(b, r, st->ev[k], s)) return false;
    }
    return true;
}

static bool scan_rank(bd *b, const kt_rank *r, rank_scan *s)
{
    return b->compat || !r->idx ? scan_file_order(b, r, s) : scan_streams(b, r, s);
}

/* A kernel's name (trace's string id) in the partial's strings; KT_NONE
 * (= others, as before) for an unnamed kernel or on allocation failure. */
static uint32_t own_name(bd *b, uint32_t id)
{
    if (id == KT_NONE) return KT_NONE;
    const char *name = kt_strtab_get(b->t->strs, id);
    return kt_strtab_intern(b->acc->strs, name, strlen(name));
}

/* Per-kernel rows of one rank: real statistics of every kernel (kept for
 * the distribution table), then HTA's folding per type.                   */
static bool kernel_rows(bd *b, int rank, rank_scan *s)
{
    size_t ng = s->groups.n;
    kt_dur_stats *st = kt_group_stats(&s->samples, ng);
    bd_row *g = malloc((ng ? ng : 1) * sizeof *g);
    bool ok = st && g;
    for (int ty = 0; ok && ty < NTYPES; ty++) {
        size_t k = 0;
        for (size_t id = 0; id < ng; id++) {
            if ((int)(s->groups.keys[id] >> 32) != ty) continue;
            g[k] = (bd_row){ .name = own_name(b, (uint32_t)s->groups.keys[id]), .rank = rank,
                             .type = (kt_kernel_type)ty, .st = st[id] };
            ok = ok && (g[k].name != KT_NONE || (uint32_t)s->groups.keys[id] == KT_NONE);
            ok = ok && kt_bd_rows_push(&b->acc->all, g[k]);
            k++;
        }
        if (ok && k) ok = fold_and_emit(b, g, k);
    }
    free(g);
    free(st);
    return ok;
}

static bool analyse_rank(bd *b, const kt_rank *r)
{
    rank_scan s = { .last_event = UINT64_MAX };
    kt_bd_rank classes = { .rank = r->rank };
    int ntypes = b->o.memory ? NTYPES : NTYPES - 1;
    bool ok = scan_rank(b, r, &s) && sweep(s.iv, s.n, ntypes, b->compat, classes.ns, classes.seen) &&
              kernel_rows(b, r->rank, &s) && kt_bd_add_rank(b->acc, &classes);
    scan_free(&s);
    return ok;
}

/* ---- output tables -------------------------------------------------------- */

static int by_hta_order(const void *a, const void *c, void *ctx)
{
    const bd_row *x = a, *y = c;
    int k = strcmp(kt_kernel_type_name(x->type), kt_kernel_type_name(y->type));
    if (!k) k = strcmp(name_of(ctx, x->name), name_of(ctx, y->name));
    return k ? k : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Our order: type, rank, sum descending, "others" last. */
static int by_type_rank_sum(const void *a, const void *c, void *ctx)
{
    const bd_row *x = a, *y = c;
    if (x->type != y->type) return (x->type > y->type) - (x->type < y->type);
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    if ((x->name == OTHERS) != (y->name == OTHERS)) return x->name == OTHERS ? 1 : -1;
    return by_sum_desc(a, c, ctx);
}

static kt_table *kernels_table(const bd *b)
{
    kt_table *tb = kt_table_new("kernels");
    if (!tb) return NULL;
    static const char *const cols[] = { "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)" };
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    /* HTA prints Python's repr; ours are ns-exact µs, readable with 3 decimals */
    for (int c = 0; c < 5; c++) kt_table_add_col(tb, cols[c], KT_COL_FLOAT, b->compat ? -1 : 3);
    kt_table_set_unit(tb, 4, "us"); /* HTA's "stddev" */
    kt_table_add_col(tb, "kernel_type", KT_COL_STR, 0);
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    if (!b->compat) kt_table_add_col(tb, "count", KT_COL_INT, 0);
    const kt_bd_rows *k = &b->acc->kernels;
    if (k->n) qsort_r(k->r, k->n, sizeof *k->r, b->compat ? by_hta_order : by_type_rank_sum, (void *)b);
    for (size_t i = 0; i < k->n; i++) {
        const bd_row *row = &k->r[i];
        double v[5] = { (double)row->st.sum, (double)row->st.max, (double)row->st.min, row->st.std,
                        row->st.mean };
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, name_of(b, row->name));
        for (int c = 0; c < 5; c++) kt_table_set_float(tb, 1 + (size_t)c, v[c] / 1e3);
        kt_table_set_str(tb, 6, kt_kernel_type_name(row->type));
        kt_table_set_int(tb, 7, row->rank);
        if (!b->compat) kt_table_set_int(tb, 8, (int64_t)row->st.count);
    }
    return tb;
}

typedef struct dist_row {
    bd_row row;
    int64_t total;
} dist_row;

static int by_dist_order(const void *a, const void *c, void *ctx)
{
    const dist_row *x = a, *y = c;
    if (x->row.type != y->row.type) return (x->row.type > y->row.type) - (x->row.type < y->row.type);
    if (x->total != y->total) return x->total < y->total ? 1 : -1;
    int k = strcmp(name_of(ctx, x->row.name), name_of(ctx, y->row.name));
    return k ? k : (x->row.rank > y->row.rank) - (x->row.rank < y->row.rank);
}

/* HTA's "kernel duration distribution": for each top kernel, its mean with
 * min and max on every rank it ran on (real per-launch statistics).        */
static uint64_t kernel_key(const bd_row *row) { return (uint64_t)row->type << 32 | row->name; }

/* Rows of every top kernel (named on some rank) on every rank, with the
 * kernel's total over ranks; NULL on allocation failure.                  */
static dist_row *top_kernel_rows(const bd *b, size_t *n)
{
    kt_group_map ids = { 0 };
    int64_t *total = calloc(b->acc->all.n + 1, sizeof *total);
    bool *top = calloc(b->acc->all.n + 1, sizeof *top);
    dist_row *d = malloc((b->acc->all.n + 1) * sizeof *d);
    bool ok = total && top && d;
    for (size_t i = 0; ok && i < b->acc->all.n; i++) {
        uint32_t id = kt_group_id(&ids, kernel_key(&b->acc->all.r[i]));
        if ((ok = id != UINT32_MAX)) total[id] = kt_sat_add(total[id], b->acc->all.r[i].st.sum);
    }
    for (size_t i = 0; ok && i < b->acc->kernels.n; i++) {
        uint32_t id = kt_group_find(&ids, kernel_key(&b->acc->kernels.r[i]));
        if (id != UINT32_MAX && b->acc->kernels.r[i].name != OTHERS) top[id] = true;
    }
    *n = 0;
    for (size_t i = 0; ok && i < b->acc->all.n; i++) {
        uint32_t id = kt_group_find(&ids, kernel_key(&b->acc->all.r[i]));
        if (top[id]) d[(*n)++] = (dist_row){ b->acc->all.r[i], total[id] };
    }
    kt_group_map_free(&ids);
    free(total);
    free(top);
    if (!ok) { free(d); return NULL; }
    return d;
}

static kt_table *distribution_table(const bd *b)
{
    size_t n;
    kt_table *tb = kt_table_new("distribution");
    dist_row *d = top_kernel_rows(b, &n);
    if (!tb || !d) { free(d); kt_table_free(tb); return NULL; }
    qsort_r(d, n, sizeof *d, by_dist_order, (void *)b);
    static const char *const cols[] = { "mean (us)", "min (us)", "max (us)" };
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    kt_table_add_col(tb, "kernel_type", KT_COL_STR, 0);
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    for (int c = 0; c < 3; c++) kt_table_add_col(tb, cols[c], KT_COL_FLOAT, 3);
    for (size_t i = 0; i < n; i++) {
        const kt_dur_stats *st = &d[i].row.st;
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, name_of(b, d[i].row.name));
        kt_table_set_str(tb, 1, kt_kernel_type_name(d[i].row.type));
        kt_table_set_int(tb, 2, d[i].row.rank);
        kt_table_set_int(tb, 3, (int64_t)st->count);
        kt_table_set_float(tb, 4, st->mean / 1e3);
        kt_table_set_float(tb, 5, (double)st->min / 1e3);
        kt_table_set_float(tb, 6, (double)st->max / 1e3);
    }
    free(d);
    return tb;
}

/* kernel_type (every rank's classes summed) or kernel_type_by_rank. */
static kt_table *classes_table(const bd *b, bool by_rank)
{
    kt_table *tb = type_table(by_rank ? "kernel_type_by_rank" : "kernel_type", by_rank);
    kt_bd_rank all = { .rank = -1 };
    for (size_t i = 0; tb && i < b->acc->nranks; i++) {
        const kt_bd_rank *r = &b->acc->ranks[i];
        if (by_rank) add_type_rows(b, tb, r->ns, r->seen, r->rank);
        for (int m = 0; m < (1 << NTYPES); m++) {
            all.ns[m] = kt_sat_add(all.ns[m], r->ns[m]);
            all.seen[m] |= r->seen[m];
        }
    }
    if (tb && !by_rank) add_type_rows(b, tb, all.ns, all.seen, -1);
    return tb;
}

/* The tables of the partial (freed), or the error st. */
static kt_status finish(bd *b, kt_status st, kt_tables **out)
{
    kt_tables *ts = st == KT_OK ? kt_tables_new() : NULL;
    if (st == KT_OK && !(ts && kt_tables_add(ts, classes_table(b, false)) && kt_tables_add(ts, kernels_table(b)) &&
                         kt_tables_add(ts, distribution_table(b)) && kt_tables_add(ts, classes_table(b, true))))
        st = KT_ENOMEM;
    kt_bd_partial_free(b->acc);
    if (st != KT_OK) {
        kt_tables_free(ts);
        return st;
    }
    *out = ts;
    return KT_OK;
}

/* Options checked, the partial made (freed by the caller in any case) and
 * t's selected ranks mapped into it. */
static kt_status map_trace(bd *b, const kt_rank_sel *sel)
{
    if (b->o.duration_ratio < 0 || b->o.duration_ratio > 1) return KT_EUSAGE;
    b->types = kt_type_cache_new(b->t->strs, b->compat);
    bool ok = b->types && kt_bd_partial_init(b->acc);
    for (size_t i = 0; ok && i < b->t->nranks; i++)
        if (kt_rank_selected(sel, b->t->ranks[i]->rank)) ok = analyse_rank(b, b->t->ranks[i]);
    kt_type_cache_free(b->types);
    return ok ? KT_OK : KT_ENOMEM;
}

kt_status kt_breakdown(const kt_trace *t, const kt_rank_sel *sel, const kt_breakdown_options *opt,
                       kt_tables **out)
{
    kt_bd_partial p = { 0 };
    bd b = { .t = t, .compat = t->hta_compat, .o = kt_breakdown_defaults(), .acc = &p };
    *out = NULL;
    if (!kt_options_take(&b.o, sizeof b.o, opt)) return KT_EUSAGE;
    kt_status st = finish(&b, map_trace(&b, sel), out);
    kt_table *types = st == KT_OK ? kt_tables_find_mut(*out, "kernel_type") : NULL;
    if (types) st = kt_note_comm_differences(types, t, sel, KT_REF_HTA, t->hta_compat);
    if (st != KT_OK) {
        kt_tables_free(*out);
        *out = NULL;
    }
    return st;
}

kt_status kt_breakdown_map(const kt_trace *t, const kt_rank_sel *sel, const kt_breakdown_options *opt,
                           kt_tables **partial)
{
    kt_bd_partial p = { 0 };
    bd b = { .t = t, .compat = t->hta_compat, .o = kt_breakdown_defaults(), .acc = &p };
    *partial = NULL;
    if (!kt_options_take(&b.o, sizeof b.o, opt)) return KT_EUSAGE;
    kt_status st = map_trace(&b, sel);
    if (st == KT_OK) st = kt_bd_partial_to_tables(&p, partial);
    kt_bd_partial_free(&p);
    return st;
}

kt_status kt_breakdown_reduce(const kt_tables *const *partials, size_t n, const kt_breakdown_options *opt,
                              int hta_compat, kt_tables **out)
{
    kt_bd_partial p = { 0 };
    bd b = { .compat = hta_compat, .o = kt_breakdown_defaults(), .acc = &p };
    *out = NULL;
    if (!kt_options_take(&b.o, sizeof b.o, opt)) return KT_EUSAGE;
    kt_status st = kt_bd_partial_init(&p) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) st = kt_bd_partial_add_tables(&p, partials[i]);
    return finish(&b, st, out);
}
