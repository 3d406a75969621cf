/*
 * idle.c — kt_idle: why each GPU stream sits idle between consecutive
 * events (HTA idle time breakdown, A4.3).
 *
 * A gap before an event is host_wait when its launching call started after
 * the previous event on the stream had ended (the CPU was late), kernel_wait
 * when it is shorter than consecutive_kernel_delay (launch overhead), and
 * other otherwise.  Deliberate differences from HTA (docs/timeline.md):
 * streams are per (device, stream); a gap is measured from the latest end
 * so far and never negative; every category gets a row; a kernel without
 * a launching call is never host_wait.  --hta-compat restores HTA's
 * behaviour.
 */
#include "analysis/common/stats.h"
#include "analysis/common/sat_math.h"
#include "model/index.h"
#include "table/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { HOST_WAIT, KERNEL_WAIT, OTHER, NCATS };
static const char *const cat_names[NCATS] = { "host_wait", "kernel_wait", "other" };

/* The events of one analysed stream: one index stream, or under HTA
 * semantics every index stream with that stream id (HTA ignores devices). */
typedef struct stream_sel {
    int64_t device, stream;
    uint32_t first_ev;    /* lowest event id: HTA lists streams in file order */
    uint32_t *ev;         /* owned when merged from several devices */
    size_t n;
    bool owned;
} stream_sel;

typedef struct idle_run {
    const kt_trace *t;
    const kt_idle_options *o;
    kt_table *time, *stats;
    double *vals[NCATS]; /* scratch: the stream's gaps by category (µs) */
    size_t cap;
} idle_run;

/* HTA keeps the negative durations its rounding makes; otherwise an event
 * without a duration is not a GPU interval.                                */
static bool counted(const kt_rank *r, uint32_t ev, bool compat)
{
    return kt_kind_is_gpu(r->ev.kind[ev]) && (compat || r->ev.dur[ev] >= 0);
}

static bool wanted_stream(const kt_idle_options *o, int64_t stream)
{
    if (!o->streams || !o->nstreams) return true;
    for (size_t i = 0; i < o->nstreams; i++)
        if (o->streams[i] == stream) return true;
    return false;
}

/* Merge two event lists sorted by (ts, id) into out. */
static void merge_sorted(const kt_rank *r, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                         uint32_t *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        bool take_a = j == nb || (i < na && (r->ev.ts[a[i]] < r->ev.ts[b[j]] ||
                                             (r->ev.ts[a[i]] == r->ev.ts[b[j]] && a[i] < b[j])));
        out[k++] = take_a ? a[i++] : b[j++];
    }
}

/* Add the events of index stream st to sel. */
static bool add_part(const kt_rank *r, stream_sel *sel, const kt_gpu_stream *st, bool compat)
{
    for (size_t i = 0; i < st->n; i++)
        if (counted(r, st->ev[i], compat) && st->ev[i] < sel->first_ev) {
            sel->first_ev = st->ev[i];
            if (!compat) break; /* only HTA's order needs the lowest: here, that there is one */
        }
    if (!sel->n) {
        sel->ev = st->ev;
        sel->n = st->n;
        return true;
    }
    uint32_t *m = malloc((sel->n + st->n) * sizeof *m);
    if (!m) return false;
    merge_sorted(r, sel->ev, sel->n, st->ev, st->n, m);
    if (sel->owned) free(sel->ev);
    sel->ev = m;
    sel->n += st->n;
    sel->owned = true;
    return true;
}

static void free_streams(stream_sel *sel, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sel[i].owned) free(sel[i].ev);
    free(sel);
}

static int by_first_event(const void *a, const void *b)
{
    const stream_sel *x = a, *y = b;
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

/* The streams to analyse, in output order. */
static kt_status select_streams(const kt_rank *r, const kt_idle_options *o, bool compat, stream_sel **out,
                                size_t *n)
{
    size_t ns = r->idx ? r->idx->nstreams : 0, k = 0;
    stream_sel *sel = calloc(ns + 1, sizeof *sel);
    if (!sel) return KT_ENOMEM;
    for (size_t i = 0; i < ns; i++) {
        const kt_gpu_stream *st = &r->idx->streams[i];
        /* HTA: events without a stream are not GPU events (MTIA has such) */
        if (!wanted_stream(o, st->stream) || (compat && st->stream == -1)) continue;
        size_t j = 0;
        while (compat && j < k && sel[j].stream != st->stream) j++;
        if (j == k || !compat)
            sel[j = k++] = (stream_sel){ .device = st->device, .stream = st->stream, .first_ev = KT_NONE };
        if (!add_part(r, &sel[j], st, compat)) {
            free_streams(sel, k);
            return KT_ENOMEM;
        }
    }
    if (compat) qsort(sel, k, sizeof *sel, by_first_event);
    *out = sel;
    *n = k;
    return KT_OK;
}

typedef struct gaps_by_cat {
    size_t n[NCATS];
    int64_t sum[NCATS]; /* ns */
} gaps_by_cat;

/* The call whose start decides host_wait: the event's launching call; under
 * HTA's rules, for an orphan (a correlation id, no launch: launched before
 * the profiler recorded CPU events), the row HTA's placeholder
 * index_correlation 0 joins to, the first entry of traceEvents, when kept
 * [BUG, reproduced]; none for an event without a correlation id (-1).    */
static uint32_t host_launch(const kt_rank *r, uint32_t ev, bool compat)
{
    uint32_t launch = kt_gpu_launcher(r, ev);
    if (launch == KT_NONE && compat && r->ev.corr[ev] >= 0 && r->hta_row0_kept) return 0;
    return launch;
}

/* Classify the gap before every event but the first (HTA: that one is an
 * "other" row with no interval).                                           */
static gaps_by_cat classify_gaps(idle_run *run, const kt_rank *r, const stream_sel *s)
{
    bool compat = run->t->hta_compat, first = true;
    gaps_by_cat g = { { 0 }, { 0 } };
    int64_t prev_end = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t ev = s->ev[i];
        if (!counted(r, ev, compat)) continue;
        int64_t ts = r->ev.ts[ev], end = ts + r->ev.dur[ev];
        if (!first) {
            int64_t gap = compat || ts > prev_end ? ts - prev_end : 0;
            uint32_t launch = host_launch(r, ev, compat);
            double us = (double)gap / 1e3;
            int c = launch != KT_NONE && r->ev.ts[launch] > prev_end ? HOST_WAIT
                    : us < run->o->consecutive_kernel_delay_us   ? KERNEL_WAIT
                                                                 : OTHER;
            run->vals[c][g.n[c]++] = us;
            g.sum[c] = kt_sat_add(g.sum[c], gap);
        }
        /* HTA: the previous event's end; we: the latest end so far */
        if (first || compat || end > prev_end) prev_end = end;
        first = false;
    }
    return g;
}

static void add_rows(idle_run *run, int rank, const stream_sel *s, const gaps_by_cat *g)
{
    bool compat = run->t->hta_compat;
    int64_t total = kt_sat_add(kt_sat_add(g->sum[HOST_WAIT], g->sum[KERNEL_WAIT]), g->sum[OTHER]);
    for (int c = 0; c < NCATS; c++) {
        if (compat && c != OTHER && !g->n[c]) continue;
        double ratio = total ? (double)g->sum[c] / (double)total : NAN;
        kt_table *tb = run->time;
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, rank);
        kt_table_set_int(tb, 1, s->stream);
        kt_table_set_str(tb, 2, cat_names[c]);
        kt_table_set_float(tb, 3, (double)g->sum[c] / 1e3);
        kt_table_set_float(tb, 4, compat ? kt_np_round(ratio, 2) : ratio);
        if (!compat) kt_table_set_int(tb, 5, s->device);

        kt_describe d = kt_describe_values(run->vals[c], g->n[c]);
        double v[] = { d.mean, d.std, d.min, d.q25, d.q50, d.q75, d.max };
        tb = run->stats;
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, cat_names[c]);
        kt_table_set_int(tb, 1, rank);
        kt_table_set_int(tb, 2, s->stream);
        kt_table_set_int(tb, 3, (int64_t)d.count);
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            kt_table_set_float(tb, 4 + i, compat ? kt_np_round(v[i], 2) : v[i]);
        if (!compat) kt_table_set_int(tb, 11, s->device);
    }
}

static kt_status rank_idle(idle_run *run, const kt_rank *r)
{
    stream_sel *sel;
    size_t n;
    kt_status st = select_streams(r, run->o, run->t->hta_compat, &sel, &n);
    if (st != KT_OK) return st;
    for (size_t i = 0; i < n; i++) {
        if (sel[i].first_ev == KT_NONE) continue; /* no kernel, memcpy or memset */
        if (sel[i].n > run->cap) {
            for (int c = 0; c < NCATS; c++) {
                double *v = realloc(run->vals[c], sel[i].n * sizeof *v);
                if (!v) { free_streams(sel, n); return KT_ENOMEM; }
                run->vals[c] = v;
            }
            run->cap = sel[i].n;
        }
        gaps_by_cat g = classify_gaps(run, r, &sel[i]);
        add_rows(run, r->rank, &sel[i], &g);
    }
    free_streams(sel, n);
    return KT_OK;
}

static void add_cols(kt_table *tb, const char *const *names, const kt_col_type *types, const int *prec,
                     size_t n)
{
    for (size_t i = 0; i < n; i++) kt_table_add_col(tb, names[i], types[i], prec[i]);
}

static void idle_tables(idle_run *run)
{
    bool compat = run->t->hta_compat;
    int ratio = compat ? 2 : 4, us = compat ? 2 : 3;
    static const char *const time_cols[] = { "rank", "stream", "idle_category", "idle_time", "idle_time_ratio",
                                             "device" };
    const kt_col_type time_types[] = { KT_COL_INT, KT_COL_INT, KT_COL_STR, KT_COL_FLOAT, KT_COL_FLOAT,
                                       KT_COL_INT };
    const int time_prec[] = { 0, 0, 0, -1, ratio, 0 };
    static const char *const stat_cols[] = { "idle_category", "rank", "stream", "count", "mean", "std",
                                             "min", "25%", "50%", "75%", "max", "device" };
    const kt_col_type stat_types[] = { KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_FLOAT,
                                       KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT,
                                       KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_INT };
    const int stat_prec[] = { 0, 0, 0, 0, us, us, us, us, us, us, us, 0 };
    if (run->time) add_cols(run->time, time_cols, time_types, time_prec, compat ? 5 : 6);
    if (run->stats) add_cols(run->stats, stat_cols, stat_types, stat_prec, compat ? 11 : 12);
    if (run->time) kt_table_set_unit(run->time, 3, "us");
    for (size_t c = 4; run->stats && c <= 10; c++) kt_table_set_unit(run->stats, c, "us");
}

void kt_idle_options_init(kt_idle_options *o, size_t size)
{
    const kt_idle_options d = { .consecutive_kernel_delay_us = 30 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_idle(const kt_trace *t, const kt_rank_sel *sel, const kt_idle_options *opt, kt_tables **out)
{
    kt_idle_options o = kt_idle_defaults();
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    idle_run run = { .t = t, .o = &o, .time = kt_table_new("idle_time"),
                     .stats = kt_table_new("interval_stats") };
    idle_tables(&run);
    kt_status s = run.time && run.stats ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; i < t->nranks && s == KT_OK; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = rank_idle(&run, t->ranks[i]);
    for (int c = 0; c < NCATS; c++) free(run.vals[c]);
    kt_table *tb[] = { run.time, run.stats };
    *out = NULL;
    if (s != KT_OK) {
        kt_table_free(run.time);
        kt_table_free(run.stats);
        return s;
    }
    return kt_tables_from(tb, 2, out);
}
