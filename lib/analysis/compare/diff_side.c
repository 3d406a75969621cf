/*
 * diff_side.c — selecting one run's rank, iteration and events for a diff.
 *
 * Two rule sets.  Ours: every complete event with a category, exact times,
 * the step of an event from the model's index (GPU work by its GPU-side
 * ProfilerStep annotation, else by its launch), so ROCm stream-0 kernels
 * count.  HTA's TraceDiff (A4.13, A2.2, A2.3, A2.7): the same event set,
 * ns-resolution times rounded to µs, host events (stream -1, and stream-0
 * cpu_ops) in the ProfilerStep containing their rounded start (the last
 * written wins), stream > 0 events in their launch's iteration, other
 * stream-0 events in none (HTA's NaN); its step list is every ProfilerStep
 * name of every rank, the default the smallest.  HTA parses without the
 * last-step filtering, which is why the diff reads the trace as loaded and
 * applies these rules itself.
 */
#include "diff_side.h"

#include <stdio.h>
#include <stdlib.h>

static bool kept(const kt_events *e, uint32_t i)
{
    return e->dur[i] >= 0 && e->cat[i] != KT_NONE && e->kind[i] != KT_K_TRACE_SPAN;
}

void kt_diff_side_time(const kt_diff_side *s, uint32_t ev, int64_t *ts, int64_t *dur)
{
    *ts = s->r->ev.ts[ev];
    *dur = s->r->ev.dur[ev];
    if (s->hta && s->r->ns_resolution) kt_hta_round_us(ts, dur);
}

/* HTA's stream column: the stream arg, -1 when absent or not a number. */
static int64_t hta_stream(const kt_rank *r, uint32_t ev)
{
    if (kt_ev_stream(&r->ev, ev) >= 0) return kt_ev_stream(&r->ev, ev);
    return kt_event_arg_int(r, ev, KT_ARG_RAW_STREAM, -1);
}

bool kt_diff_side_is_gpu(const kt_diff_side *s, uint32_t ev)
{
    if (s->hta) return hta_stream(s->r, ev) != -1;
    uint8_t k = s->r->ev.kind[ev];
    return kt_kind_is_gpu(k) || k == KT_K_GPU_ANNOTATION || kt_ev_stream(&s->r->ev, ev) >= 0;
}

/* ---- HTA's iterations ---------------------------------------------------- */
typedef struct hta_step {
    int64_t ts, end, num;
    uint32_t ev;
} hta_step;

typedef struct hta_steps {
    hta_step *v;
    size_t n;
    int64_t maxdur;
} hta_steps;

static int by_ts_then_event(const void *a, const void *b)
{
    const hta_step *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The rank's ProfilerStep rows at HTA's (rounded) times, sorted by ts. */
static bool hta_steps_build(const kt_diff_side *s, hta_steps *out)
{
    const kt_events *e = &s->r->ev;
    *out = (hta_steps){ 0 };
    for (uint32_t i = 0; i < e->n; i++) {
        if (!kept(e, i) || kt_profiler_step_number(kt_strtab_get(s->t->strs, e->name[i])) < 0) continue;
        if (out->n % 64 == 0) {
            hta_step *p = realloc(out->v, (out->n + 64) * sizeof *p);
            if (!p) return false;
            out->v = p;
        }
        int64_t ts, dur;
        kt_diff_side_time(s, i, &ts, &dur);
        out->v[out->n++] = (hta_step){ ts, ts + dur, kt_profiler_step_number(kt_strtab_get(s->t->strs, e->name[i])), i };
        if (dur > out->maxdur) out->maxdur = dur;
    }
    if (out->n) qsort(out->v, out->n, sizeof *out->v, by_ts_then_event);
    return true;
}

/* s.ts <= ts < s.end; of several, the one written last. */
static int64_t hta_step_at(const hta_steps *st, int64_t ts)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->v[mid].ts <= ts) lo = mid + 1;
        else hi = mid;
    }
    const hta_step *best = NULL;
    for (size_t j = lo; j-- > 0 && st->v[j].ts + st->maxdur >= ts;)
        if (ts < st->v[j].end && (!best || st->v[j].ev > best->ev)) best = &st->v[j];
    return best ? best->num : -1;
}

#define HTA_NO_ITERATION INT64_MIN /* HTA's NaN: in no iteration at all */

static int64_t hta_iteration(const kt_diff_side *s, const hta_steps *st, uint32_t ev)
{
    int64_t stream = hta_stream(s->r, ev), ts, dur;
    if (stream == 0 && s->r->ev.kind[ev] != KT_K_CPU_OP) return HTA_NO_ITERATION;
    if (stream > 0) {
        uint32_t rt = s->r->ev.corr[ev] >= 0 ? kt_gpu_launcher(s->r, ev) : KT_NONE;
        if (rt == KT_NONE) return -1;
        ev = rt;
    }
    kt_diff_side_time(s, ev, &ts, &dur);
    return hta_step_at(st, ts);
}

/* ---- which steps a run has ----------------------------------------------- */
/* HTA: the ProfilerStep names of every rank; ours: the chosen rank's steps.
 * *first = the smallest number, -1 when none; *found = want is one.     */
static void step_numbers(const kt_diff_side *s, int64_t want, int64_t *first, bool *found)
{
    *first = -1;
    *found = false;
    for (size_t k = 0; k < s->t->nranks; k++) {
        const kt_rank *r = s->t->ranks[k];
        if (!s->hta && r != s->r) continue;
        for (uint32_t i = 0; i < r->ev.n; i++) {
            if (!kept(&r->ev, i) || (!s->hta && r->ev.kind[i] != KT_K_USER_ANNOTATION &&
                                     r->ev.kind[i] != KT_K_GPU_ANNOTATION))
                continue;
            int64_t num = kt_profiler_step_number(kt_strtab_get(s->t->strs, r->ev.name[i]));
            if (num < 0) continue;
            if (*first < 0 || num < *first) *first = num;
            *found |= num == want;
        }
    }
}

static const kt_rank *find_rank(const kt_trace *t, int rank)
{
    for (size_t k = 0; k < t->nranks; k++)
        if (rank < 0 || t->ranks[k]->rank == rank) return t->ranks[k];
    return NULL;
}

static kt_status choose_step(kt_diff_side *s, int64_t iteration, char *err, size_t errlen)
{
    int64_t first;
    bool found;
    if (iteration == KT_DIFF_WHOLE) {
        s->step = -1;
        return KT_OK;
    }
    step_numbers(s, iteration, &first, &found);
    if (iteration == KT_DIFF_FIRST_STEP) {
        s->step = first; /* no ProfilerStep: the whole trace */
        return KT_OK;
    }
    if (!found) {
        if (err) snprintf(err, errlen, "%s trace (rank %d) has no ProfilerStep#%lld", s->label, s->r->rank,
                          (long long)iteration);
        return KT_EUSAGE;
    }
    s->step = iteration;
    return KT_OK;
}

static bool in_selection(const kt_diff_side *s, const hta_steps *st, uint32_t i)
{
    if (!kept(&s->r->ev, i)) return false;
    if (s->step < 0) return true;
    return (s->hta ? hta_iteration(s, st, i) : kt_event_step(s->r, i)) == s->step;
}

static kt_status select_events(kt_diff_side *s)
{
    hta_steps st = { 0 };
    if (s->hta && s->step >= 0 && !hta_steps_build(s, &st)) {
        free(st.v);
        return KT_ENOMEM;
    }
    const kt_events *e = &s->r->ev;
    s->ev = malloc((e->n ? e->n : 1) * sizeof *s->ev);
    if (!s->ev) {
        free(st.v);
        return KT_ENOMEM;
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (in_selection(s, &st, i)) s->ev[s->n++] = i;
    free(st.v);
    return KT_OK;
}

kt_status kt_diff_side_open(const kt_trace *t, const char *label, int rank, int64_t iteration, bool hta,
                            kt_diff_side *s, char *err, size_t errlen)
{
    *s = (kt_diff_side){ .t = t, .label = label, .hta = hta, .r = t ? find_rank(t, rank) : NULL };
    if (!s->r) {
        if (err) snprintf(err, errlen, "%s trace has no rank %d", label, rank);
        return t && t->nranks ? KT_EUSAGE : KT_EINPUT;
    }
    if (s->r->ev.n == 0) {
        if (err) snprintf(err, errlen, "%s trace (rank %d, %s) has no events", label, s->r->rank,
                          s->r->file ? s->r->file : "?");
        return KT_EINPUT;
    }
    kt_status st = choose_step(s, iteration, err, errlen);
    if (st == KT_OK) st = select_events(s);
    if (st == KT_OK && s->n == 0) {
        if (err) snprintf(err, errlen, "%s trace (rank %d, %s) has no complete events: nothing to compare", label,
                          s->r->rank, s->r->file ? s->r->file : "?");
        st = KT_EINPUT;
    }
    return st;
}

void kt_diff_side_close(kt_diff_side *s)
{
    free(s->ev);
    s->ev = NULL;
    s->n = 0;
}
