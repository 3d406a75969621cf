/*
 * hta_rows.c — the rows HTA keeps of a rank, read as the rank is loaded
 * (see hta_rows.h for why this pass runs inside the loader).
 *
 * HTA drops every event that is not a complete event with a category
 * (A2.2) and rounds ns-resolution times to whole µs in a way that gives
 * short events dur 0 or -1 (A2.3).  Its step filter (A2.11, hta_compat.c)
 * then needs each kept row's side (CPU or GPU), the launches' correlations
 * and a few times; they are noted here while the row is read.
 */
#include "hta_rows.h"
#include "json_number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A2.2: HTA keeps rows with a dur and a cat, except the Trace span --- */
static bool hta_keeps(const kt_events *e, uint32_t i)
{
    return e->dur[i] >= 0 && e->cat[i] != KT_NONE && e->kind[i] != KT_K_TRACE_SPAN;
}

/* ---- A2.3: ns rounding in float64, exactly as pandas computes it -------- */
#define EXACT_DOUBLE_INT ((int64_t)1 << 53)

/* The double Python's float() gives for the µs decimal of ns, via text:
 * the slow way, for the values the ways below do not cover.              */
static double us_double_text(int64_t ns)
{
    char buf[48];
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, sizeof buf, "%s%llue-3", ns < 0 ? "-" : "", (unsigned long long)a);
    kt_num v;
    kt_parse_number(buf, buf + n, &v); /* a number, as written just above */
    return v.f;
}

/* ns / 1000 correctly rounded (ties to even), for ns >= 2^53: (double)ns
 * would round before the division, and epoch times in ns are all this
 * large.  With v = a + b/1000 (a = ns / 1000 < 2^54), the double's 53 bits
 * are the integer part of v * 2^s for s = 52 - floor(log2 a), and that
 * product's fraction is (b << s) mod 1000 thousandths.  false when a has
 * 54 bits (ns past 9.007e18, beyond the year 2255).                       */
static bool us_double_exact(int64_t ns, double *out)
{
    uint64_t a = (uint64_t)ns / 1000, b = (uint64_t)ns % 1000;
    int s = 52 - (63 - __builtin_clzll(a)); /* a >= 2^43 */
    if (s < 0) return false;
    uint64_t frac = b << s, q = (a << s) + frac / 1000, r = frac % 1000;
    q += r > 500 || (r == 500 && (q & 1));
    uint64_t bits = (uint64_t)(1023 - s) << 52; /* the double 2^-s */
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    *out = (double)q * scale; /* exact: q <= 2^53 times a power of two (no divide) */
    return true;
}

/* The double Python's float() gives for the µs decimal of ns. */
static inline double us_double(int64_t ns)
{
    if (ns > -EXACT_DOUBLE_INT && ns < EXACT_DOUBLE_INT) return (double)ns / 1000.0;
    double v;
    return ns > 0 && us_double_exact(ns, &v) ? v : us_double_text(ns);
}

/* ts = ceil(ts), end = floor(ts + dur), dur = end - ts, all in µs. */
static inline void round_us(int64_t *ts_ns, int64_t *dur_ns)
{
    double ts = us_double(*ts_ns);
    double end = ts + us_double(*dur_ns);
    int64_t ts_us = (int64_t)ceil(ts), end_us = (int64_t)floor(end);
    *ts_ns = ts_us * 1000;
    *dur_ns = (end_us - ts_us) * 1000;
}

void kt_hta_round_us(int64_t *ts_ns, int64_t *dur_ns)
{
    round_us(ts_ns, dur_ns);
}

/* ---- what the step filter needs of each row ----------------------------- */
bool kt_hta_is_step_name(const char *s) /* ^ProfilerStep#(\d+) */
{
    return !strncmp(s, "ProfilerStep#", 13) && s[13] >= '0' && s[13] <= '9';
}

typedef struct gpu_names {
    uint32_t event_sync, context_sync;
} gpu_names;

/* HTA's GPUKernelFilter: device-level syncs have stream -1 but run on GPU. */
static bool hta_gpu_row(const kt_events *e, uint32_t i, gpu_names g)
{
    return (kt_ev_stream(e, i) >= 0 && e->corr[i] >= 0) ||
           (e->name[i] != KT_NONE && (e->name[i] == g.event_sync || e->name[i] == g.context_sync));
}

static const kt_hta_times no_times = { INT64_MAX, INT64_MAX, INT64_MIN };

static void times_merge(kt_hta_times *a, kt_hta_times b)
{
    if (b.first < a->first) a->first = b.first;
    if (b.first_cpu < a->first_cpu) a->first_cpu = b.first_cpu;
    if (b.last_step > a->last_step) a->last_step = b.last_step;
}

/* ---- the arrays ----------------------------------------------------------- */
/* *p with room for want elements, or for cap when more: the rank's column
 * capacity, so that the arrays move no more often than the columns.     */
static bool grow(void **p, size_t *have, size_t elem, size_t want, size_t cap)
{
    if (want <= *have) return true;
    size_t c = want > cap ? want : cap;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *have = c;
    return true;
}

/* Room for want kept rows, grown towards cap. */
static bool reserve_rows(kt_hta_rows *k, size_t want, size_t cap)
{
    size_t have = k->cap;
    return grow((void **)&k->id, &have, sizeof *k->id, want, cap) && grow((void **)&k->gpu, &k->cap, 1, want, cap);
}

static bool add_launch(kt_hta_rows *k, int64_t ts, int32_t corr)
{
    if (!grow((void **)&k->launches, &k->cap_launches, sizeof *k->launches, k->nlaunches + 1, 2 * k->cap_launches + 1024))
        return false;
    k->launches[k->nlaunches++] = (kt_hta_launch){ ts, corr };
    return true;
}

/* Kept rows [lo, hi) read unrounded. */
static bool add_raw(kt_hta_rows *k, size_t lo, size_t hi)
{
    if (lo == hi) return true;
    if (k->nraw && k->raw[k->nraw - 1].hi == lo) {
        k->raw[k->nraw - 1].hi = hi;
        return true;
    }
    if (!grow((void **)&k->raw, &k->cap_raw, sizeof *k->raw, k->nraw + 1, 2 * k->cap_raw + 16)) return false;
    k->raw[k->nraw++] = (kt_hta_raw){ lo, hi };
    return true;
}

static void empty(kt_hta_rows *k)
{
    k->n = k->ncpu = k->nlaunches = k->nraw = k->rows = 0;
    k->gpu_none = false;
    k->at = no_times;
}

void kt_hta_rows_free(kt_hta_rows *k)
{
    if (!k) return;
    if (!k->borrowed) {
        free(k->id);
        free(k->gpu);
    }
    free(k->launches);
    free(k->raw);
    free(k);
}

/* ---- reading -------------------------------------------------------------- */
/* Rows [lo, hi) of e, read into k (empty, with room for them) as its rows
 * 0.. on: HTA's rows, rounded in place when round.                      */
typedef struct part {
    kt_hta_rows *k;
    kt_events *e;
    const kt_strtab *strs;
    gpu_names g;
    uint32_t lo, hi;
    bool round, ok;
} part;

/* Row i, kept: its side, and on the CPU side its launch and the times. */
static bool note_side(kt_hta_rows *k, const part *p, uint32_t i, kt_hta_times *t)
{
    const kt_events *e = p->e;
    if ((k->gpu[k->n] = hta_gpu_row(e, i, p->g))) {
        k->gpu_none |= e->corr[i] == -1;
        return true;
    }
    k->ncpu++;
    int64_t ts = e->ts[i];
    if (ts < t->first_cpu) t->first_cpu = ts;
    if (ts > t->last_step && kt_hta_is_step_name(kt_strtab_get(p->strs, e->name[i]))) t->last_step = ts;
    return e->corr[i] == -1 || add_launch(k, ts, e->corr[i]);
}

static void *read_part(void *arg)
{
    part *p = arg;
    kt_hta_rows *k = p->k;
    kt_events *e = p->e;
    kt_hta_times t = no_times;
    p->ok = true;
    for (uint32_t i = p->lo; p->ok && i < p->hi; i++) {
        if (!hta_keeps(e, i)) continue;
        if (p->round) round_us(&e->ts[i], &e->dur[i]);
        if (e->ph[i] == 'X' && e->ts[i] < t.first) t.first = e->ts[i];
        p->ok = note_side(k, p, i, &t);
        k->id[k->n++] = i - p->lo;
    }
    k->rows = p->hi - p->lo;
    k->at = t;
    p->ok = p->ok && (p->round || add_raw(k, 0, k->n));
    return NULL;
}

/* s's rows after d's (s's row ids count from d->rows on), d's arrays grown
 * towards cap.  s's arrays may lie in d's beyond d's rows: d then has room
 * for both, nothing moves.                                               */
static bool join_rows(kt_hta_rows *d, const kt_hta_rows *s, size_t cap)
{
    if (!reserve_rows(d, d->n + s->n, cap) ||
        !grow((void **)&d->launches, &d->cap_launches, sizeof *d->launches, d->nlaunches + s->nlaunches, cap))
        return false;
    for (size_t r = 0; r < s->nraw; r++)
        if (!add_raw(d, d->n + s->raw[r].lo, d->n + s->raw[r].hi)) return false;
    if (s->n) {
        kt_prefault(d->id + d->n, s->n * sizeof *d->id);
        kt_prefault(d->gpu + d->n, s->n);
        uint32_t base = (uint32_t)d->rows;
        for (size_t j = 0; j < s->n; j++) d->id[d->n + j] = s->id[j] + base; /* ascending: never ahead of s's */
        memmove(d->gpu + d->n, s->gpu, s->n);
    }
    if (s->nlaunches) {
        kt_prefault(d->launches + d->nlaunches, s->nlaunches * sizeof *d->launches);
        memcpy(d->launches + d->nlaunches, s->launches, s->nlaunches * sizeof *s->launches);
    }
    d->n += s->n;
    d->ncpu += s->ncpu;
    d->nlaunches += s->nlaunches;
    d->gpu_none |= s->gpu_none;
    times_merge(&d->at, s->at);
    d->rows += s->rows;
    return true;
}

/* Ranks with more events than this are read on two threads: below it a
 * thread costs more than it saves.                                       */
#define TWO_THREADS_MIN_EVENTS 200000

bool kt_hta_rows_read(kt_rank *r, const kt_strtab *strs, int threads)
{
    kt_hta_rows *k = r->hta_rows;
    if (!k && !(k = r->hta_rows = calloc(1, sizeof *k))) return false;
    empty(k);
    kt_events *e = &r->ev;
    if (!reserve_rows(k, e->n ? e->n : 1, e->n)) return false;
    kt_prefault(k->id, e->n * sizeof *k->id); /* written whole, or nearly */
    kt_prefault(k->gpu, e->n);
    gpu_names g = { kt_strtab_find(strs, "Event Sync", 10), kt_strtab_find(strs, "Context Sync", 12) };
    uint32_t n = (uint32_t)e->n;
    uint32_t mid = threads >= 2 && n > TWO_THREADS_MIN_EVENTS ? n / 2 : n;
    kt_hta_rows b = { .id = k->id + mid, .gpu = k->gpu + mid, .cap = n - mid, .borrowed = true };
    empty(&b);
    part p[2] = { { k, e, strs, g, 0, mid, r->ns_resolution, true },
                  { &b, e, strs, g, mid, n, r->ns_resolution, true } };
    kt_run_pair(read_part, &p[0], &p[1], mid < n);
    bool ok = p[0].ok && p[1].ok && join_rows(k, &b, n);
    free(b.launches);
    free(b.raw);
    return ok;
}

bool kt_hta_rows_join(kt_rank *dst, const kt_rank *src)
{
    if (!src->hta_rows) return true;
    if (!dst->hta_rows) {
        if (!(dst->hta_rows = calloc(1, sizeof *dst->hta_rows))) return false;
        empty(dst->hta_rows);
    }
    return join_rows(dst->hta_rows, src->hta_rows, dst->ev.cap);
}

void kt_hta_rows_finish(kt_rank *r)
{
    kt_hta_rows *k = r->hta_rows;
    for (size_t s = 0; r->ns_resolution && s < k->nraw; s++)
        for (size_t j = k->raw[s].lo; j < k->raw[s].hi; j++) round_us(&r->ev.ts[k->id[j]], &r->ev.dur[k->id[j]]);
    k->nraw = 0;
    k->cut = k->at.last_step != INT64_MIN ? k->at.last_step : k->at.first_cpu;
}
