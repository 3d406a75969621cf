/*
 * queue.c — `kineta queue`: how many launches wait on each GPU stream
 * (HTA queue length time series / summary / time blocked on a full queue,
 * spec A4.7), plus time-weighted statistics HTA does not have: describe()
 * over change points says little about how long a queue stayed deep.
 * GPU events the trace puts before their launch call are reported in
 * "diagnostics" (by default they leave the queue with the call, so no
 * length is negative; under hta_compat they are kept, as HTA does).
 */
#include "analysis/launch/queue.h"
#include "analysis/common/describe_table.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/launch_pairs.h"
#include "analysis/launch/queue_series.h"
#include "analysis/common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct queue_tables {
    kt_table *series, *summary, *blocked, *weighted, *diagnostics; /* NULL: not asked for */
    size_t summary_stats;
    bool with_device; /* per-queue tables end with "device" (not HTA's) */
    size_t changes, points; /* the series' changes, and its points after merging */
} queue_tables;

static kt_table *new_table(const char *name, const char *const *cols, const kt_col_type *types,
                           const int *prec, size_t n)
{
    kt_table *t = kt_table_new(name);
    for (size_t i = 0; t && i < n; i++) kt_table_add_col(t, cols[i], types[i], prec[i]);
    return t;
}

static kt_table *new_summary(queue_tables *q)
{
    kt_table *t = kt_table_new("summary");
    if (t) {
        kt_table_add_col(t, "rank", KT_COL_INT, 0);
        kt_table_add_col(t, "stream", KT_COL_INT, 0);
        q->summary_stats = kt_describe_add_cols(t, "queue_length");
    }
    return t;
}

static void set_units(const queue_tables *q)
{
    if (q->diagnostics) {
        kt_table_set_unit(q->diagnostics, 3, "us");
        kt_table_set_unit(q->diagnostics, 5, "us");
    }
    if (q->series) kt_table_set_unit(q->series, 0, "us");
    if (q->blocked) kt_table_set_unit(q->blocked, 2, "us");
    if (q->weighted) kt_table_set_unit(q->weighted, 2, "us");
    kt_table *per_queue[] = { q->summary, q->blocked, q->weighted };
    for (size_t i = 0; q->with_device && i < 3; i++)
        if (per_queue[i]) kt_table_add_col(per_queue[i], "device", KT_COL_INT, 0);
}

/* The tables asked for (kt_queue_table bits); false without memory. */
static bool make_tables(queue_tables *q, unsigned want)
{
    static const char *const series[] = { "ts", "pid", "tid", "stream", "queue_length", "rank" };
    static const kt_col_type series_t[] = { KT_COL_FLOAT, KT_COL_INT, KT_COL_INT, KT_COL_INT,
                                            KT_COL_INT, KT_COL_INT };
    static const int series_p[] = { 3, 0, 0, 0, 0, 0 };
    static const char *const blocked[] = { "rank", "stream", "duration_at_max_queue_length",
                                           "relative_duration_at_max_queue_length" };
    static const kt_col_type blocked_t[] = { KT_COL_INT, KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT };
    static const int blocked_p[] = { 0, 0, 3, -1 };
    static const char *const weighted[] = { "rank", "stream", "duration", "time_weighted_mean",
                                            "time_weighted_50%", "time_weighted_90%",
                                            "time_weighted_99%", "max", "pct_time_empty" };
    static const kt_col_type weighted_t[] = { KT_COL_INT, KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT,
                                              KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT,
                                              KT_COL_FLOAT };
    static const int weighted_p[] = { 0, 0, 3, 3, 0, 0, 0, 0, 2 };
    static const char *const diags[] = { "rank", "early_gpu_events", "first_name", "first_ts",
                                         "first_correlation", "first_early_by", "message" };
    static const kt_col_type diags_t[] = { KT_COL_INT, KT_COL_INT, KT_COL_STR, KT_COL_FLOAT,
                                           KT_COL_INT, KT_COL_FLOAT, KT_COL_STR };
    static const int diags_p[] = { 0, 0, 0, 3, 0, 3, 0 };
    bool ok = true;
    if (want & KT_QUEUE_SERIES) ok &= (q->series = new_table("series", series, series_t, series_p, 6)) != NULL;
    if (want & KT_QUEUE_SUMMARY) ok &= (q->summary = new_summary(q)) != NULL;
    if (want & KT_QUEUE_BLOCKED) ok &= (q->blocked = new_table("blocked", blocked, blocked_t, blocked_p, 4)) != NULL;
    if (want & KT_QUEUE_WEIGHTED)
        ok &= (q->weighted = new_table("weighted", weighted, weighted_t, weighted_p, 9)) != NULL;
    if (want & KT_QUEUE_DIAGNOSTICS)
        ok &= (q->diagnostics = new_table("diagnostics", diags, diags_t, diags_p, 7)) != NULL;
    set_units(q);
    return ok;
}

/* Queues are per (device, stream): name the device unless HTA's columns
 * were asked for, so two GPUs' equal stream ids stay apart.               */
static void set_device(const queue_tables *q, kt_table *t, int64_t device)
{
    if (q->with_device) kt_table_set_int(t, kt_table_ncols(t) - 1, device);
}

/* Points [a, b) of one queue, their lengths in [*lo, *hi]. */
static size_t queue_end(const kt_rank *r, const kt_step_point *p, size_t a, size_t n, int32_t *lo, int32_t *hi)
{
    size_t b = a;
    *lo = *hi = (int32_t)p[a].value;
    for (; b < n && kt_step_same_series(r, &p[b], &p[a]); b++) {
        int32_t len = (int32_t)p[b].value;
        if (len < *lo) *lo = len;
        if (len > *hi) *hi = len;
    }
    return b;
}

static void add_series(kt_table *t, const kt_rank *r, int64_t origin, const kt_step_point *p, size_t n)
{
    kt_table_reserve(t, kt_table_nrows(t) + n);
    for (size_t i = 0; i < n; i++) {
        kt_row row = kt_table_row(t);
        int64_t tid = kt_step_tid(r, &p[i]);
        kt_row_float(row, 0, (double)(p[i].ts - origin) / 1e3);
        kt_row_int(row, 1, kt_step_pid(r, &p[i]));
        if (!kt_id_is_str(tid)) kt_row_int(row, 2, tid); /* "stream 7": null, stream says 7 */
        kt_row_int(row, 3, p[i].key);
        kt_row_int(row, 4, (int64_t)p[i].value);
        kt_row_int(row, 5, r->rank);
    }
}

/* Queue lengths span a small range: counting them beats sorting them. */
static bool small_range(size_t range, size_t n) { return range <= n + 4096; }

/* The lengths of p[0..n) (all in [lo, hi]) into v, ascending when their
 * range is small, so kt_describe_values finds them sorted instead of
 * sorting them; in point order otherwise (it sorts them).  False: OOM.   */
static bool lengths_ascending(const kt_step_point *p, size_t n, int32_t lo, int32_t hi, double *v)
{
    size_t range = (size_t)((int64_t)hi - lo + 1), k = 0;
    if (!small_range(range, n)) {
        for (size_t i = 0; i < n; i++) v[i] = p[i].value;
        return true;
    }
    size_t *count = calloc(range, sizeof *count);
    if (!count) return false;
    for (size_t i = 0; i < n; i++) count[(int64_t)p[i].value - lo]++;
    for (size_t j = 0; j < range; j++)
        for (size_t c = 0; c < count[j]; c++) v[k++] = (double)((int64_t)lo + (int64_t)j);
    free(count);
    return true;
}

static bool add_summary(queue_tables *q, const kt_rank *r, const kt_step_point *p, size_t n, int32_t lo,
                        int32_t hi)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v || !lengths_ascending(p, n, lo, hi, v)) {
        free(v);
        return false;
    }
    kt_describe d = kt_describe_values(v, n);
    kt_table_add_row(q->summary);
    kt_table_set_int(q->summary, 0, r->rank);
    kt_table_set_int(q->summary, 1, p[0].key);
    kt_describe_set(q->summary, q->summary_stats, &d);
    set_device(q, q->summary, kt_step_pid(r, p));
    free(v);
    return true;
}

/* Time (ns) the queue spent at or above max: each point holds until the
 * next one; the last point holds for no time (HTA: NaN, skipped).         */
static int64_t time_at_least(const kt_step_point *p, size_t n, int64_t max, bool *reached)
{
    int64_t sum = 0;
    *reached = false;
    for (size_t i = 0; i < n; i++) {
        if (p[i].value < (double)max) continue;
        *reached = true;
        if (i + 1 < n) sum = kt_sat_add(sum, kt_sat_sub(p[i + 1].ts, p[i].ts));
    }
    return sum;
}

static void add_blocked(const queue_tables *q, const kt_rank *r, const kt_step_point *first, int64_t ns,
                        int64_t span)
{
    kt_table *t = q->blocked;
    kt_table_add_row(t);
    set_device(q, t, kt_step_pid(r, first));
    kt_table_set_int(t, 0, r->rank);
    kt_table_set_int(t, 1, first->key);
    kt_table_set_float(t, 2, (double)ns / 1e3);
    kt_table_set_float(t, 3, span > 0 ? (double)ns / (double)span : NAN);
}

typedef struct segment {
    int32_t len;
    int64_t dur;
} segment;

static int by_len(const void *a, const void *b)
{
    const segment *x = a, *y = b;
    return (x->len > y->len) - (x->len < y->len);
}

/* How long p[i] holds: until the next point; the last for no time. */
static int64_t hold_of(const kt_step_point *p, size_t n, size_t i)
{
    return i + 1 < n ? p[i + 1].ts - p[i].ts : 0;
}

/* The time the queue spent at each length, in ascending length: all the
 * weighted quantiles need.  A small range [lo, hi] is summed in a
 * histogram straight from the points (sorting a segment per point was
 * half of kt_queue's time, and the segments were 16 fresh bytes a point);
 * a wide one is sorted.  Returns the count (*out malloc'd), 0 when out of
 * memory.                                                                */
static size_t time_by_len(const kt_step_point *p, size_t n, int32_t lo, int32_t hi, segment **out)
{
    size_t range = (size_t)((int64_t)hi - lo + 1), k = 0;
    if (!small_range(range, n)) {
        segment *s = *out = malloc(n * sizeof *s);
        if (!s) return 0;
        for (size_t i = 0; i < n; i++) s[i] = (segment){ (int32_t)p[i].value, hold_of(p, n, i) };
        qsort(s, n, sizeof *s, by_len);
        for (size_t i = 0; i < n; i++) {
            if (k && s[k - 1].len == s[i].len) s[k - 1].dur += s[i].dur;
            else s[k++] = s[i];
        }
        return k;
    }
    int64_t *dur = calloc(range, sizeof *dur);
    uint8_t *seen = calloc(range, 1);
    segment *s = *out = dur && seen ? malloc(range * sizeof *s) : NULL;
    for (size_t i = 0; s && i < n; i++) {
        size_t j = (size_t)((int64_t)p[i].value - lo);
        dur[j] += hold_of(p, n, i);
        seen[j] = 1;
    }
    for (size_t j = 0; s && j < range; j++)
        if (seen[j]) s[k++] = (segment){ (int32_t)((int64_t)lo + (int64_t)j), dur[j] };
    free(dur);
    free(seen);
    return k;
}

/* Smallest length whose cumulative time reaches q of the total. */
static int32_t weighted_quantile(const segment *s, size_t n, int64_t total, double q)
{
    int64_t cum = 0;
    for (size_t i = 0; i < n; i++) {
        cum += s[i].dur;
        if ((double)cum >= q * (double)total) return s[i].len;
    }
    return n ? s[n - 1].len : 0;
}

static bool add_weighted(const queue_tables *q, const kt_rank *r, const kt_step_point *p, size_t n, int32_t lo,
                         int32_t hi)
{
    kt_table *t = q->weighted;
    int64_t total = p[n - 1].ts - p[0].ts, empty = 0;
    double area = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t len = (int32_t)p[i].value;
        int64_t dur = hold_of(p, n, i);
        area += (double)len * (double)dur;
        if (len <= 0) empty += dur;
    }
    segment *s;
    size_t lens = time_by_len(p, n, lo, hi, &s);
    if (!lens) {
        free(s);
        return false;
    }
    kt_table_add_row(t);
    kt_table_set_int(t, 0, r->rank);
    kt_table_set_int(t, 1, p[0].key);
    kt_table_set_float(t, 2, (double)total / 1e3);
    if (total > 0) {
        kt_table_set_float(t, 3, area / (double)total);
        kt_table_set_int(t, 4, weighted_quantile(s, lens, total, 0.5));
        kt_table_set_int(t, 5, weighted_quantile(s, lens, total, 0.9));
        kt_table_set_int(t, 6, weighted_quantile(s, lens, total, 0.99));
        kt_table_set_float(t, 8, kt_pct((double)empty, (double)total));
    }
    kt_table_set_int(t, 7, hi);
    set_device(q, t, kt_step_pid(r, p));
    free(s);
    return true;
}

/* HTA trace_duration(rank): max ts − min ts of its rows; ours: the span
 * from the first start to the last end.                                   */
static int64_t rank_span(const kt_rank *r, bool hta)
{
    const kt_events *e = &r->ev;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = 0; i < e->n; i++) {
        if (!kt_is_hta_row(e, i)) continue;
        int64_t end = hta ? e->ts[i] : kt_sat_add(e->ts[i], e->dur[i] > 0 ? e->dur[i] : 0);
        if (e->ts[i] < lo) lo = e->ts[i];
        if (end > hi) hi = end;
    }
    return hi > lo ? kt_sat_sub(hi, lo) : 0;
}

/* One row per rank with early GPU events: how many, the first of them. */
static void add_early(kt_table *d, const kt_trace *t, const kt_rank *r, const kt_queue_early *k)
{
    const kt_events *e = &r->ev;
    const char *name = e->name[k->gpu] == KT_NONE ? "" : kt_strtab_get(t->strs, e->name[k->gpu]);
    double ts = (double)(e->ts[k->gpu] - t->min_ts) / 1e3, by = (double)(e->ts[k->call] - e->ts[k->gpu]) / 1e3;
    long long corr = (long long)kt_event_corr(r, k->gpu);
    char msg[512];
    snprintf(msg, sizeof msg,
             "%zu GPU %s before the call that launched %s (first: \"%.200s\" at %.3f us, "
             "correlation %lld, %.3f us before its call): %s",
             k->pairs, k->pairs == 1 ? "event starts" : "events start", k->pairs == 1 ? "it" : "them", name, ts,
             corr, by,
             t->hta_compat ? "queue lengths go below the launches waiting, negative when none (as HTA)"
                           : "counted as starting with their call, so queue lengths stay >= 0");
    kt_table_add_row(d);
    kt_table_set_int(d, 0, r->rank);
    kt_table_set_int(d, 1, (int64_t)k->pairs);
    kt_table_set_str(d, 2, name);
    kt_table_set_float(d, 3, ts);
    kt_table_set_int(d, 4, corr);
    kt_table_set_float(d, 5, by);
    kt_table_set_str(d, 6, msg);
}

/* Each queue's rows of the per-queue tables asked for. */
static kt_status queue_rows(queue_tables *q, const kt_trace *t, const kt_rank *r, const kt_step_point *p, size_t n,
                            int64_t max)
{
    int64_t span = q->blocked ? rank_span(r, t->hta_compat) : 0, last_ns = 0;
    const kt_step_point *last = NULL;
    kt_status s = KT_OK;
    for (size_t a = 0, b; a < n && s == KT_OK; a = b) {
        int32_t lo, hi;
        b = queue_end(r, p, a, n, &lo, &hi);
        if ((q->summary && !add_summary(q, r, p + a, b - a, lo, hi)) ||
            (q->weighted && !add_weighted(q, r, p + a, b - a, lo, hi)))
            s = KT_ENOMEM;
        if (!q->blocked) continue;
        bool reached;
        int64_t ns = time_at_least(p + a, b - a, max, &reached);
        if (!t->hta_compat) add_blocked(q, r, p + a, ns, span);
        else if (reached) { /* HTA keeps one stream per rank: the last [BUG] */
            last_ns = ns;
            last = p + a;
        }
    }
    if (last) add_blocked(q, r, last, last_ns, span);
    return s;
}

static kt_status rank_queue(queue_tables *q, const kt_trace *t, const kt_rank *r, int64_t max, kt_queue_keep keep,
                            void *ctx)
{
    kt_step_point *p;
    size_t n;
    kt_queue_early early = { 0 };
    kt_status s = kt_queue_series(r, t->strs, t->hta_compat, &p, &n, &early);
    if (s != KT_OK) return s;
    if (q->diagnostics && early.pairs) add_early(q->diagnostics, t, r, &early);
    q->changes += early.changes;
    q->points += n;
    if (q->series) add_series(q->series, r, t->min_ts, p, n);
    s = queue_rows(q, t, r, p, n, max);
    if (!keep || !keep(ctx, r, p, n)) free(p);
    return s;
}

void kt_queue_options_init(kt_queue_options *o, size_t size)
{
    const kt_queue_options d = { .max_queue_length = 1024 };
    kt_options_init(o, size, &d, sizeof d);
}

/* The default summary counts the step function's points; HTA's counts
 * every change (the Python façade's kineta.hta gives HTA's).  The note
 * counts the difference only, so that the per-rank notes of a job mapped
 * rank by rank (--stream-ranks) add up to this one.                      */
static kt_status note_merged(kt_table *summary, const queue_tables *q)
{
    const int64_t merged = (int64_t)(q->changes - q->points);
    kt_table_add_count_note(summary, "queue_length_count counts the points of each queue's step function: %lld "
                            "launch and GPU-start changes were merged into a point (one timestamp) or dropped "
                            "(a repeat); HTA's describe() counts every change (--hta-compat, kineta.hta)",
                            1, &merged);
    return kt_table_failed(summary) ? KT_ENOMEM : KT_OK;
}

kt_status kt_queue_tables_keep(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt,
                               unsigned tables, kt_queue_keep keep, void *ctx, kt_tables **out)
{
    kt_queue_options o = kt_queue_defaults();
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    int64_t max = o.max_queue_length;
    queue_tables q = { .with_device = !t->hta_compat };
    kt_status s = make_tables(&q, tables) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = rank_queue(&q, t, t->ranks[i], max, keep, ctx);
    if (s == KT_OK && q.summary && q.changes > q.points) s = note_merged(q.summary, &q);
    kt_table *all[5], *each[] = { q.series, q.summary, q.blocked, q.weighted, q.diagnostics };
    size_t n = 0;
    for (size_t i = 0; i < 5; i++)
        if (tables & (1u << i)) all[n++] = each[i];
    if (s != KT_OK) {
        for (size_t i = 0; i < n; i++) kt_table_free(all[i]);
        *out = NULL;
        return s;
    }
    return kt_tables_from(all, n, out);
}

kt_status kt_queue_tables(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt, unsigned tables,
                          kt_tables **out)
{
    return kt_queue_tables_keep(t, sel, opt, tables, NULL, NULL, out);
}

kt_status kt_queue(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt, kt_tables **out)
{
    return kt_queue_tables(t, sel, opt, KT_QUEUE_ALL, out);
}
