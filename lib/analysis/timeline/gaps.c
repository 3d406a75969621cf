/*
 * gaps.c — kt_gaps: the seed "GPU Kernel Analyzer"'s gap analysis, done
 * right (tracelens-and-peers §2).
 *
 * Gaps are measured between consecutive events of one GPU stream (never of
 * a CPU thread), from the latest end so far, and only positive gaps count.
 * Device idle is reported separately as the holes in the union of all GPU
 * activity of a device — the sum of per-stream gaps double-counts whenever
 * streams overlap and is not idle time.  The histogram uses log-spaced bins
 * by default because gap distributions are heavy-tailed.
 *
 * Every table but the histogram is per-rank rows; the histogram bins the
 * gaps of every rank, so a rank's map keeps its gaps as sorted runs of
 * ns (dur_runs.h) and the histogram is made once all are merged — here for
 * the ranks of one trace, in kt_gaps_reduce for ranks loaded apart
 * (--stream-ranks, MPI), the same bytes either way.
 */
#include "analysis/common/dur_runs.h"
#include "analysis/common/gpu_busy.h"
#include "analysis/common/partial_table.h"
#include "analysis/common/kernel_names.h"
#include "analysis/common/stats.h"
#include "analysis/kernels/kernel_stats.h"
#include "model/i64map.h"
#include "model/index.h"
#include "table/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_gaps_options_init(kt_gaps_options *o, size_t size)
{
    const kt_gaps_options d = { .bins = 20, .top = 15, .sort = KT_GAP_SORT_TOTAL, .step = -1 };
    kt_options_init(o, size, &d, sizeof d);
}

/* Gaps of one kernel pair (A → B), Welford mean/variance. */
typedef struct pair_stats {
    uint32_t a, b;
    char *label;
    uint64_t n;
    double mean, m2, min, max, sum;
} pair_stats;

typedef struct gaps_run {
    const kt_trace *t;
    kt_gaps_options o;
    kt_table *device, *streams, *hist, *pairs;
    int64_t *gaps;    /* this rank's stream gaps (ns) */
    size_t ngaps, cap;
    kt_dur_run *runs; /* every mapped rank's gaps, for the histogram */
    size_t nruns, cap_runs;
    pair_stats *ps;
    size_t nps;
} gaps_run;

static void add_cols(kt_table *tb, const char *const *names, size_t n, size_t first_float, int prec)
{
    for (size_t i = 0; i < n; i++)
        kt_table_add_col(tb, names[i], i < first_float ? KT_COL_INT : KT_COL_FLOAT, prec);
}

static bool make_tables(gaps_run *g)
{
    g->device = kt_table_new("device_idle");
    g->streams = kt_table_new("stream_gaps");
    g->hist = kt_table_new("gap_histogram");
    g->pairs = kt_table_new("transitions");
    if (!g->device || !g->streams || !g->hist || !g->pairs) return false;
    static const char *const dev[] = { "rank", "device", "idle_intervals", "span_us", "busy_us", "idle_us",
                                       "max_idle_us" };
    add_cols(g->device, dev, 7, 3, 3);
    kt_table_add_col(g->device, "idle_pctg", KT_COL_FLOAT, 2);
    static const char *const st[] = { "rank", "device", "stream", "events", "gaps", "gap_total_us",
                                      "gap_mean_us", "gap_max_us" };
    add_cols(g->streams, st, 8, 5, 3);
    static const char *const hist[] = { "bin_start_us", "bin_end_us" };
    add_cols(g->hist, hist, 2, 0, 3);
    kt_table_add_col(g->hist, "count", KT_COL_INT, 0);
    kt_table_add_col(g->hist, "percent", KT_COL_FLOAT, 2);
    kt_table_add_col(g->pairs, "rank", KT_COL_INT, 0);
    kt_table_add_col(g->pairs, "transition", KT_COL_STR, 0);
    static const char *const pairs[] = { "count", "avg_gap_us", "max_gap_us", "min_gap_us", "std_gap_us",
                                         "total_gap_us" };
    add_cols(g->pairs, pairs, 6, 1, 3);
    return true;
}

/* ---- device idle: holes in the union of a device's GPU activity ---------- */

/* The row of one device: its merged busy intervals iv[0..n), n > 0. */
static void device_row(gaps_run *g, int64_t rank, int64_t device, const kt_interval *iv, size_t n)
{
    int64_t span = kt_intervals_span(iv, n), busy = kt_intervals_length(iv, n), hole = 0;
    for (size_t k = 1; k < n; k++)
        if (iv[k].start - iv[k - 1].end > hole) hole = iv[k].start - iv[k - 1].end;
    kt_table *tb = g->device;
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, rank);
    kt_table_set_int(tb, 1, device);
    kt_table_set_int(tb, 2, (int64_t)n - 1);
    kt_table_set_float(tb, 3, (double)span / 1e3);
    kt_table_set_float(tb, 4, (double)busy / 1e3);
    kt_table_set_float(tb, 5, (double)(span - busy) / 1e3);
    kt_table_set_float(tb, 6, (double)hole / 1e3);
    kt_table_set_float(tb, 7, kt_pct((double)(span - busy), (double)span));
}

/* For one step: the groups kt_busy made by device and step. */
static kt_status device_rows(void *ctx, const kt_rank *r, const kt_busy *b)
{
    gaps_run *g = ctx;
    for (size_t i = 0; i < b->ng; i++)
        if (b->g[i].step == g->o.step) device_row(g, r->rank, b->g[i].device, b->g[i].iv[0], b->g[i].n[0]);
    return KT_OK;
}

/* Every step: each device's streams are adjacent in the index (sorted by
 * device), each a time-sorted run, so their union needs no busy build.  */
static kt_status rank_device_rows(gaps_run *g, const kt_rank *r)
{
    size_t ns = r->idx ? r->idx->nstreams : 0, total = 0;
    for (size_t s = 0; s < ns; s++) total += r->idx->streams[s].n;
    kt_interval *iv = malloc((total ? total : 1) * sizeof *iv), *tmp = malloc((total ? total : 1) * sizeof *tmp);
    kt_status st = iv && tmp ? KT_OK : KT_ENOMEM;
    for (size_t s = 0, e; s < ns && st == KT_OK; s = e) {
        for (e = s + 1; e < ns && r->idx->streams[e].device == r->idx->streams[s].device; e++) {}
        size_t n = kt_busy_streams(r, s, e, iv, tmp);
        if (n) device_row(g, r->rank, r->idx->streams[s].device, iv, n);
    }
    free(iv);
    free(tmp);
    return st;
}

/* ---- per-stream gaps and kernel-pair transitions ------------------------- */

static bool grow_runs(gaps_run *g, size_t need)
{
    if (need <= g->cap_runs) return true;
    size_t cap = g->cap_runs ? 2 * g->cap_runs : 4096;
    while (cap < need) cap *= 2;
    kt_dur_run *v = realloc(g->runs, cap * sizeof *v);
    if (!v) return false;
    g->runs = v;
    g->cap_runs = cap;
    return true;
}

static bool push_runs(gaps_run *g, const kt_dur_run *runs, size_t n)
{
    if (!n) return true;
    if (!grow_runs(g, g->nruns + n)) return false;
    memcpy(g->runs + g->nruns, runs, n * sizeof *runs);
    g->nruns += n;
    return true;
}

/* The rank's gaps, as sorted runs, added to the job's. */
static kt_status flush_gaps(gaps_run *g)
{
    kt_dur_run *runs;
    size_t n;
    bool ok = kt_dur_runs(g->gaps, g->ngaps, &runs, &n) && push_runs(g, runs, n);
    free(runs);
    g->ngaps = 0;
    return ok ? KT_OK : KT_ENOMEM;
}

static void pair_add(pair_stats *p, double us)
{
    double d = us - p->mean;
    p->n++;
    p->mean += d / (double)p->n;
    p->m2 += d * (us - p->mean);
    p->sum += us;
    if (p->n == 1 || us < p->min) p->min = us;
    if (p->n == 1 || us > p->max) p->max = us;
}

/* The stats of pair (a, b), created on first use; NULL on OOM. */
static pair_stats *pair_of(gaps_run *g, kt_i64map *map, uint32_t a, uint32_t b)
{
    uint32_t *slot = kt_i64map_slot(map, (int64_t)((uint64_t)a << 32 | b), KT_NONE);
    if (*slot == KT_NONE) {
        *slot = (uint32_t)g->nps;
        g->ps[g->nps++] = (pair_stats){ .a = a, .b = b };
    }
    return &g->ps[*slot];
}

static bool in_scope(const gaps_run *g, const kt_rank *r, uint32_t ev)
{
    if (!kt_kind_is_gpu(r->ev.kind[ev]) || r->ev.dur[ev] < 0) return false;
    return g->o.step < 0 || kt_event_step(r, ev) == g->o.step;
}

static kt_status stream_gaps(gaps_run *g, const kt_rank *r, const kt_gpu_stream *st, kt_i64map *map)
{
    size_t events = 0, ngaps = 0;
    int64_t total = 0, longest = 0, prev_end = 0;
    uint32_t prev = KT_NONE;
    for (size_t i = 0; i < st->n; i++) {
        uint32_t ev = st->ev[i];
        if (!in_scope(g, r, ev)) continue;
        events++;
        int64_t gap = r->ev.ts[ev] - prev_end;
        if (prev != KT_NONE && gap > 0) {
            ngaps++;
            total += gap;
            if (gap > longest) longest = gap;
            g->gaps[g->ngaps++] = gap;
            pair_add(pair_of(g, map, r->ev.name[prev], r->ev.name[ev]), (double)gap / 1e3);
        }
        int64_t end = r->ev.ts[ev] + r->ev.dur[ev];
        if (prev == KT_NONE || end > prev_end) prev_end = end;
        prev = ev;
    }
    if (!events) return KT_OK;
    kt_table *tb = g->streams;
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, r->rank);
    kt_table_set_int(tb, 1, st->device);
    kt_table_set_int(tb, 2, st->stream);
    kt_table_set_int(tb, 3, (int64_t)events);
    kt_table_set_int(tb, 4, (int64_t)ngaps);
    kt_table_set_float(tb, 5, (double)total / 1e3);
    kt_table_set_float(tb, 6, ngaps ? (double)total / 1e3 / (double)ngaps : NAN);
    kt_table_set_float(tb, 7, ngaps ? (double)longest / 1e3 : NAN);
    return KT_OK;
}

static double pair_std(const pair_stats *p)
{
    return p->n > 1 ? sqrt(p->m2 / (double)(p->n - 1)) : 0;
}

/* "A → B" labels: full names, or the distinct short display names the
 * kernels commands use (so a pair reads the same there and never merges
 * two different kernels).                                                  */
static const char *name_of(const kt_strtab *strs, uint32_t id)
{
    return id == KT_NONE ? "" : kt_strtab_get(strs, id);
}

static char *join_pair(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 8;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s \xe2\x86\x92 %s", a, b);
    return out;
}

static kt_status label_full(gaps_run *g)
{
    for (size_t i = 0; i < g->nps; i++) {
        pair_stats *p = &g->ps[i];
        if (!(p->label = join_pair(name_of(g->t->strs, p->a), name_of(g->t->strs, p->b)))) return KT_ENOMEM;
    }
    return KT_OK;
}

static kt_status label_short(gaps_run *g)
{
    kt_i64map slot; /* name id → index in full[] */
    const char **full = malloc((2 * g->nps + 1) * sizeof *full);
    char **disp = calloc(2 * g->nps + 1, sizeof *disp);
    size_t n = 0;
    kt_status s = full && disp && kt_i64map_init(&slot, 2 * g->nps + 1) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; i < g->nps && s == KT_OK; i++)
        for (int k = 0; k < 2; k++) {
            uint32_t id = k ? g->ps[i].b : g->ps[i].a, *v = kt_i64map_slot(&slot, id, KT_NONE);
            if (*v == KT_NONE) {
                *v = (uint32_t)n;
                full[n++] = name_of(g->t->strs, id);
            }
        }
    if (s == KT_OK && !kt_kernel_display_names(full, n, disp)) s = KT_ENOMEM;
    for (size_t i = 0; i < g->nps && s == KT_OK; i++) {
        pair_stats *p = &g->ps[i];
        p->label = join_pair(disp[kt_i64map_get(&slot, p->a, 0)], disp[kt_i64map_get(&slot, p->b, 0)]);
        if (!p->label) s = KT_ENOMEM;
    }
    for (size_t i = 0; disp && i < n; i++) free(disp[i]);
    free(disp);
    free(full);
    if (full && disp) kt_i64map_free(&slot);
    return s;
}

static double sort_key(const pair_stats *p, kt_gap_sort s)
{
    switch (s) {
    case KT_GAP_SORT_COUNT: return (double)p->n;
    case KT_GAP_SORT_AVG: return p->mean;
    case KT_GAP_SORT_MAX: return p->max;
    case KT_GAP_SORT_STDEV: return pair_std(p);
    case KT_GAP_SORT_TOTAL: break;
    }
    return p->sum;
}

/* Sorting context travels in the elements: qsort has no user pointer. */
typedef struct ranked {
    double key;
    const pair_stats *p;
} ranked;

static int by_key_desc(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? 1 : -1;
    return strcmp(a->p->label, b->p->label);
}

/* Label, rank and emit the rank's pairs. */
static kt_status emit_pairs(gaps_run *g, int rank)
{
    kt_status s = g->o.short_names ? label_short(g) : label_full(g);
    if (s != KT_OK) return s;
    ranked *order = malloc((g->nps ? g->nps : 1) * sizeof *order);
    if (!order) return KT_ENOMEM;
    for (size_t i = 0; i < g->nps; i++) order[i] = (ranked){ sort_key(&g->ps[i], g->o.sort), &g->ps[i] };
    qsort(order, g->nps, sizeof *order, by_key_desc);
    size_t n = g->o.top && g->o.top < g->nps ? g->o.top : g->nps;
    for (size_t i = 0; i < n; i++) {
        const pair_stats *p = order[i].p;
        double v[] = { p->mean, p->max, p->min, pair_std(p), p->sum };
        kt_table_add_row(g->pairs);
        kt_table_set_int(g->pairs, 0, rank);
        kt_table_set_str(g->pairs, 1, p->label);
        kt_table_set_int(g->pairs, 2, (int64_t)p->n);
        for (size_t k = 0; k < 5; k++) kt_table_set_float(g->pairs, 3 + k, v[k]);
    }
    free(order);
    return KT_OK;
}

static void free_pairs(gaps_run *g)
{
    for (size_t i = 0; i < g->nps; i++) free(g->ps[i].label);
    free(g->ps);
    g->ps = NULL;
    g->nps = 0;
}

static kt_status rank_gaps(gaps_run *g, const kt_rank *r)
{
    size_t total = 0, ns = r->idx ? r->idx->nstreams : 0;
    for (size_t s = 0; s < ns; s++) total += r->idx->streams[s].n;
    kt_i64map map;
    g->ps = malloc((total + 1) * sizeof *g->ps); /* pair_of fills each entry it hands out */
    /* a stream has fewer gaps than events: the list never grows while filled */
    bool room = kt_grow((void **)&g->gaps, &g->cap, total, sizeof *g->gaps);
    kt_status st = kt_i64map_init(&map, total + 1) && g->ps && room ? KT_OK : KT_ENOMEM;
    for (size_t s = 0; s < ns && st == KT_OK; s++) st = stream_gaps(g, r, &r->idx->streams[s], &map);
    if (st == KT_OK) st = emit_pairs(g, r->rank);
    if (st == KT_OK) st = flush_gaps(g);
    kt_i64map_free(&map);
    free_pairs(g);
    return st;
}

/* ---- histogram of the stream gaps ---------------------------------------- */

static void hist_row(kt_table *tb, double start, double end, size_t count, size_t total)
{
    kt_table_add_row(tb);
    kt_table_set_float(tb, 0, start);
    kt_table_set_float(tb, 1, end);
    kt_table_set_int(tb, 2, (int64_t)count);
    kt_table_set_float(tb, 3, kt_pct((double)count, (double)total));
}

/* The histogram of every gap (runs sorted by value, µs = ns / 1e3). */
static kt_status histogram(gaps_run *g)
{
    kt_dur_runs_sort(g->runs, &g->nruns);
    if (!g->nruns) return KT_OK;
    size_t all = 0;
    for (size_t i = 0; i < g->nruns; i++) all += g->runs[i].n;
    double lo = (double)g->runs[0].dur / 1e3, hi = (double)g->runs[g->nruns - 1].dur / 1e3;
    if (g->o.hist_min_us > 0) lo = g->o.hist_min_us;
    if (g->o.hist_max_us > 0) hi = g->o.hist_max_us;
    size_t bins = hi > lo && g->o.bins > 0 ? (size_t)g->o.bins : 1, below = 0, above = 0;
    size_t *count = calloc(bins, sizeof *count);
    if (!count) return KT_ENOMEM;
    bool linear = g->o.linear || lo <= 0;
    double width = linear ? (hi - lo) / (double)bins : log(hi / lo) / (double)bins;
    for (size_t i = 0; i < g->nruns; i++) {
        double v = (double)g->runs[i].dur / 1e3;
        size_t n = (size_t)g->runs[i].n;
        if (v < lo) { below += n; continue; }
        if (v > hi) { above += n; continue; }
        double pos = bins == 1 ? 0 : linear ? (v - lo) / width : log(v / lo) / width;
        size_t b = pos >= (double)bins ? bins - 1 : (size_t)pos;
        count[b] += n;
    }
    if (below) hist_row(g->hist, NAN, lo, below, all);
    for (size_t b = 0; b < bins; b++) {
        double s = linear ? lo + width * (double)b : lo * exp(width * (double)b);
        double e = b + 1 == bins ? hi : linear ? lo + width * (double)(b + 1) : lo * exp(width * (double)(b + 1));
        hist_row(g->hist, s, e, count[b], all);
    }
    if (above) hist_row(g->hist, hi, NAN, above, all);
    free(count);
    return KT_OK;
}

/* ---- map, reduce ----------------------------------------------------------- */

static const kt_partial_spec values_spec = { "gap_values", { "gap_ns", "n" }, { KT_COL_INT, KT_COL_INT }, 2 };

/* t's selected ranks: their rows in g's tables, their gaps in g->runs. */
static kt_status map_trace(gaps_run *g, const kt_trace *t, const kt_rank_sel *sel)
{
    kt_status s = make_tables(g) ? KT_OK : KT_ENOMEM;
    kt_busy_query q = { .by_device = true, .by_step = true };
    if (s == KT_OK && g->o.step >= 0) s = kt_busy_each_rank(t, sel, &q, device_rows, g);
    for (size_t i = 0; i < t->nranks && s == KT_OK; i++) {
        if (!kt_rank_selected(sel, t->ranks[i]->rank)) continue;
        if (g->o.step < 0) s = rank_device_rows(g, t->ranks[i]);
        if (s == KT_OK) s = rank_gaps(g, t->ranks[i]);
    }
    return s;
}

static kt_table *values_table(gaps_run *g)
{
    kt_dur_runs_sort(g->runs, &g->nruns);
    kt_table *tb = kt_partial_table_new(&values_spec);
    for (size_t i = 0; tb && i < g->nruns; i++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, g->runs[i].dur);
        kt_table_set_int(tb, 1, (int64_t)g->runs[i].n);
    }
    return tb;
}

/* One partial's rows appended to g's tables, its gaps to g->runs. */
static kt_status add_partial(gaps_run *g, const kt_tables *ts)
{
    kt_table *dst[] = { g->device, g->streams, g->pairs };
    const kt_table *v = kt_partial_table_find(ts, &values_spec);
    kt_status s = v ? KT_OK : KT_EINPUT;
    for (size_t i = 0; i < 3 && s == KT_OK; i++) {
        const kt_table *src = kt_tables_find(ts, kt_table_name(dst[i]));
        s = src ? kt_table_append_rows(dst[i], src) : KT_EINPUT;
    }
    for (size_t r = 0; s == KT_OK && r < kt_table_nrows(v); r++) {
        kt_dur_run run = { kt_table_int(v, r, 0), (uint64_t)kt_table_int(v, r, 1) };
        if (!push_runs(g, &run, 1)) s = KT_ENOMEM;
    }
    return s;
}

/* The tables (or the error s) and g's memory freed. */
static kt_status finish(gaps_run *g, kt_status s, bool partial, kt_tables **out)
{
    if (s == KT_OK && !partial) s = histogram(g);
    kt_table *vals = s == KT_OK && partial ? values_table(g) : NULL;
    free(g->gaps);
    free(g->runs);
    kt_table *full[] = { g->device, g->streams, g->hist, g->pairs }, *part[] = { g->device, g->streams, g->pairs, vals };
    *out = NULL;
    if (s != KT_OK) {
        for (size_t i = 0; i < 4; i++) kt_table_free(full[i]);
        kt_table_free(vals);
        return s;
    }
    if (partial) kt_table_free(g->hist);
    return kt_tables_from(partial ? part : full, 4, out);
}

kt_status kt_gaps(const kt_trace *t, const kt_rank_sel *sel, const kt_gaps_options *opt, kt_tables **out)
{
    gaps_run g = { .t = t, .o = kt_gaps_defaults() };
    if (!kt_options_take(&g.o, sizeof g.o, opt)) return KT_EUSAGE;
    return finish(&g, map_trace(&g, t, sel), false, out);
}

kt_status kt_gaps_map(const kt_trace *t, const kt_rank_sel *sel, const kt_gaps_options *opt, kt_tables **partial)
{
    gaps_run g = { .t = t, .o = kt_gaps_defaults() };
    if (!kt_options_take(&g.o, sizeof g.o, opt)) return KT_EUSAGE;
    return finish(&g, map_trace(&g, t, sel), true, partial);
}

kt_status kt_gaps_reduce(const kt_tables *const *partials, size_t n, const kt_gaps_options *opt, kt_tables **out)
{
    gaps_run g = { .o = kt_gaps_defaults() };
    if (!kt_options_take(&g.o, sizeof g.o, opt)) return KT_EUSAGE;
    kt_status s = make_tables(&g) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; i < n && s == KT_OK; i++) s = add_partial(&g, partials[i]);
    return finish(&g, s, false, out);
}
