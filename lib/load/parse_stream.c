/*
 * parse_stream.c — the top level of a trace file: metadata keys, the
 * traceEvents array, damage recovery, and the problem reports.
 *
 * A file is consumed one unit at a time (a top-level key with its value, one
 * event, one separator).  A unit must lie wholly in the window; when it does
 * not, the window is refilled from the unit's start and the unit is scanned
 * again, so the scanners never need to suspend mid-value.  Damage inside
 * traceEvents (syntax errors, a file cut off mid-write) costs only the
 * damaged events: the scanner resynchronizes on the next event start and
 * every problem is reported once per kind with its first byte offset.
 */
#include "load_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KT_LOW_WATER ((size_t)64 << 10)

bool kt_parser_init(kt_parser *p, kt_rank *r, kt_strtab *strs, kt_icache *cache,
                    const char *file, kt_window *w)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->strs = strs;
    p->cache = cache;
    p->file = file;
    p->w = w;
    p->state = KT_PS_TOP_START;
    p->limit = UINT64_MAX;
    p->dist_rank = -1;
    p->empty_str = kt_strtab_intern(strs, "", 0);
    return p->empty_str != KT_NONE;
}

void kt_parser_free(kt_parser *p)
{
    free(p->scratch);
    free(p->meta);
    kt_catcount_free(&p->xcat);
    p->scratch = p->meta = NULL;
}

static void pdiag_vnote(kt_parser *p, kt_pdiag_kind k, uint64_t n, int64_t offset, const char *fmt, va_list ap)
{
    kt_pdiag *d = &p->pd[k];
    uint64_t before = d->count;
    d->count += n;
    if (before > 0 && (offset < 0 || (d->offset >= 0 && d->offset <= offset))) return;
    d->offset = offset;
    vsnprintf(d->detail, sizeof d->detail, fmt, ap);
}

void kt_pdiag_note(kt_parser *p, kt_pdiag_kind k, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pdiag_vnote(p, k, 1, offset, fmt, ap);
    va_end(ap);
}

void kt_pdiag_note_n(kt_parser *p, kt_pdiag_kind k, uint64_t n, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pdiag_vnote(p, k, n, offset, fmt, ap);
    va_end(ap);
}

bool kt_pdiag_flush(kt_parser *p, kt_diags *out)
{
    for (int k = 0; k < KT_PD__COUNT; k++) {
        const kt_pdiag *d = &p->pd[k];
        if (!d->count) continue;
        bool ok = d->count == 1
                      ? kt_diags_add(out, KT_DIAG_WARNING, p->file, d->offset, "%s", d->detail)
                      : kt_diags_add(out, KT_DIAG_WARNING, p->file, d->offset,
                                     "%s (%llu times in this file; first here)", d->detail,
                                     (unsigned long long)d->count);
        if (!ok) return false;
    }
    return true;
}

static void fail(kt_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(kt_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->fail, sizeof p->fail, fmt, ap);
    va_end(ap);
    p->state = KT_PS_FAILED;
}

typedef struct cursor {
    const char *q, *end;
    bool eof;
} cursor;

/* ---- top level ---------------------------------------------------------------- */
static kt_scan_res top_start(kt_parser *p, cursor *c)
{
    const char *q = kt_skip_ws(c->q, c->end);
    if (c->end - q >= 3 && !memcmp(q, "\xEF\xBB\xBF", 3)) q = kt_skip_ws(q + 3, c->end); /* BOM */
    if (q >= c->end) {
        if (!c->eof) return KT_SCAN_MORE;
        fail(p, "not a Kineto trace (the file is empty)");
        return KT_SCAN_OK;
    }
    if (*q == '{') {
        c->q = q + 1;
        p->state = KT_PS_TOP_KEY;
    } else if (*q == '[') {
        fail(p, "not a Kineto trace (the JSON is a list, e.g. a memory timeline, not an object "
                "with traceEvents)");
        p->not_trace = true;
    } else {
        fail(p, "not a Kineto trace (not JSON: byte %lld is '%c')", (long long)kt_offset_of(p, q),
             (*q >= 0x20 && *q < 0x7f) ? *q : '?');
    }
    return KT_SCAN_OK;
}

/* Syntax damage outside traceEvents: fatal before it, a warning after. */
static kt_scan_res top_damage(kt_parser *p, const char *at)
{
    int64_t off = kt_offset_of(p, at);
    if (!p->seen_events) {
        fail(p, "not a Kineto trace (invalid JSON at byte %lld before traceEvents)", (long long)off);
    } else {
        kt_pdiag_note(p, KT_PD_GARBAGE, off,
                      "invalid JSON after traceEvents at byte %lld: the rest of the file was ignored",
                      (long long)off);
        p->state = KT_PS_DONE;
    }
    return KT_SCAN_OK;
}

static kt_scan_res top_key(kt_parser *p, cursor *c)
{
    kt_obj o = { .q = c->q, .end = c->end, .eof = c->eof };
    const char *q = kt_skip_ws(c->q, c->end);
    if (c->end - q < 14 && !c->eof) return KT_SCAN_MORE; /* room to recognize traceEvents */
    if (q >= c->end) return KT_SCAN_TRUNC;
    if (*q == '"' && c->end - q >= 14 && !memcmp(q, "\"traceEvents\"", 13)) {
        const char *t = kt_skip_ws(q + 13, c->end);
        if (t < c->end && *t == ':') t = kt_skip_ws(t + 1, c->end);
        if (t >= c->end) return c->eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
        if (*t != '[') {
            fail(p, "not a Kineto trace (traceEvents is not a list)");
            p->not_trace = true;
            return KT_SCAN_OK;
        }
        p->seen_events = true;
        p->r->events_open = (uint64_t)kt_offset_of(p, t);
        p->state = KT_PS_EVENT;
        c->q = t + 1;
        return KT_SCAN_OK;
    }
    kt_pair pr;
    bool done;
    kt_scan_res r = kt_obj_next(&o, &pr, &done);
    if (r == KT_SCAN_ERR) return top_damage(p, o.err);
    if (r != KT_SCAN_OK) return r;
    const char *after = done || o.closed ? NULL : kt_skip_ws(o.q, c->end);
    if (after && after >= c->end && !c->eof) return KT_SCAN_MORE; /* before any side effect */
    if (!done && !kt_meta_handle(p, pr.key, pr.klen, pr.kflags, pr.v, pr.vend)) {
        p->oom = true;
        fail(p, "out of memory");
        return KT_SCAN_OK;
    }
    if (!after) {
        if (o.trailing_comma)
            kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, o.comma),
                          "trailing comma before '}' (ignored)");
        p->state = KT_PS_DONE;
    } else if (after < c->end && *after == '}') {
        kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, after), "trailing comma before '}' (ignored)");
    }
    c->q = o.q;
    return KT_SCAN_OK;
}

static kt_scan_res top_next(kt_parser *p, cursor *c)
{
    const char *q = kt_skip_ws(c->q, c->end);
    if (q >= c->end) return c->eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
    if (*q == ',') {
        const char *t = kt_skip_ws(q + 1, c->end);
        if (t >= c->end && !c->eof) return KT_SCAN_MORE;
        if (t < c->end && *t == '}')
            kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, q), "trailing comma before '}' (ignored)");
        p->state = KT_PS_TOP_KEY;
    } else if (*q == '}') {
        p->state = KT_PS_DONE;
    } else {
        return top_damage(p, q);
    }
    c->q = q + 1;
    return KT_SCAN_OK;
}

/* ---- traceEvents ------------------------------------------------------------- */
/* Start of the next event after damage: a '{' after ',' whose first member
 * begins with a quote.  Returns NULL when not found in [q, end).          */
static const char *next_event_start(const char *q, const char *end, const char **resume)
{
    for (;;) {
        const char *comma = memchr(q, ',', (size_t)(end - q));
        if (!comma) {
            *resume = end;
            return NULL;
        }
        const char *b = kt_skip_ws(comma + 1, end);
        const char *k = b < end && *b == '{' ? kt_skip_ws(b + 1, end) : b;
        if (k >= end) { /* pattern cut by the window end: look again after refill */
            *resume = comma;
            return NULL;
        }
        if (*b == '{' && (*k == '"' || *k == '}')) return b;
        q = comma + 1;
    }
}

static kt_scan_res resync(kt_parser *p, cursor *c, const char *err, const char *ev_start)
{
    const char *resume;
    const char *b = next_event_start(err > ev_start ? err : ev_start + 1, c->end, &resume);
    int64_t from = kt_offset_of(p, ev_start);
    if (b) {
        kt_pdiag_note(p, KT_PD_SYNTAX, kt_offset_of(p, err),
                      "invalid JSON in traceEvents at byte %lld: skipped bytes %lld-%lld (the "
                      "damaged event(s) were not loaded)",
                      (long long)kt_offset_of(p, err), (long long)from,
                      (long long)kt_offset_of(p, b));
        c->q = b;
        return KT_SCAN_OK;
    }
    if (!c->eof) { /* keep searching after a refill, from where we stopped */
        p->resync_from = from;
        p->resync_err = kt_offset_of(p, err);
        p->state = KT_PS_RESYNC;
        c->q = resume;
        return KT_SCAN_OK;
    }
    kt_pdiag_note(p, KT_PD_SYNTAX, kt_offset_of(p, err),
                  "invalid JSON in traceEvents at byte %lld: no event follows; skipped bytes "
                  "%lld-%lld (end of file)",
                  (long long)kt_offset_of(p, err), (long long)from,
                  (long long)kt_offset_of(p, c->end));
    p->state = KT_PS_DONE;
    c->q = c->end;
    return KT_SCAN_OK;
}

static kt_scan_res resync_more(kt_parser *p, cursor *c)
{
    const char *resume;
    const char *b = next_event_start(c->q, c->end, &resume);
    if (!b && !c->eof) {
        c->q = resume;
        return KT_SCAN_MORE;
    }
    int64_t to = b ? kt_offset_of(p, b) : kt_offset_of(p, c->end);
    kt_pdiag_note(p, KT_PD_SYNTAX, p->resync_err,
                  "invalid JSON in traceEvents at byte %lld: skipped bytes %lld-%lld%s",
                  (long long)p->resync_err, (long long)p->resync_from, (long long)to,
                  b ? " (the damaged event(s) were not loaded)" : " (end of file)");
    p->state = b ? KT_PS_EVENT : KT_PS_DONE;
    c->q = b ? b : c->end;
    return KT_SCAN_OK;
}

/* The traceEvents entry at q: an event, or anything else counted and
 * skipped; *next after it, left NULL when damage sent the parser to
 * resync (whose result is returned).                                    */
static inline kt_scan_res entry(kt_parser *p, cursor *c, const char *q, const char **next)
{
    if (*q == '{') {
        const char *err = q;
        kt_scan_res r = kt_parse_event(p, q, c->end, c->eof, next, &err);
        if (r != KT_SCAN_ERR) return r;
        *next = NULL;
        return resync(p, c, err, q);
    }
    unsigned fl;
    kt_scan_res r = kt_skip_value(q, c->end, c->eof, next, &fl);
    if (r == KT_SCAN_ERR) {
        *next = NULL;
        return resync(p, c, q, q);
    }
    if (r == KT_SCAN_OK) {
        p->r->total_events++;
        p->r->by_ph[0]++; /* counted as an entry without ph */
        kt_pdiag_note(p, KT_PD_NON_OBJECT, kt_offset_of(p, q),
                      "traceEvents entry at byte %lld is not an object (skipped)", (long long)kt_offset_of(p, q));
    }
    return r;
}

/* The ',' after an event at next and the blanks up to the next event's
 * '{' (kt_skip_ws's), as sep's pattern when they fit: ",\n{" compact,
 * ",\n  {" Kineto's, deeper indents.                                    */
static void learn_event_sep(kt_sep_memo *sep, const char *next, const char *end)
{
    const char *b = kt_skip_ws(next + 1, end);
    if (b >= end || *b != '{' || b - next >= 16) return;
    kt_sep_set(sep, next, (size_t)(b + 1 - next));
}

/* Where entries from q on need the checks of entries(): at the range's
 * limit, or within KT_LOW_WATER of the window's end when more will come. */
static const char *entries_stop(const kt_parser *p, const cursor *c, const char *q)
{
    const char *stop = c->eof ? c->end : c->end - q <= (ptrdiff_t)KT_LOW_WATER ? q : c->end - KT_LOW_WATER;
    uint64_t off = (uint64_t)kt_offset_of(p, q);
    if (p->limit == UINT64_MAX) return stop;
    if (p->limit <= off) return q; /* past it already (after an entry that is not an event) */
    return p->limit - off < (uint64_t)(stop - q) ? q + (p->limit - off) : stop;
}

/* The entry at q (in the data, not ']'), and the ones after it while
 * each is followed by the learnt separator (sep): then the next entry
 * starts at its '{', which needs none of the checks event() makes first,
 * nor those below until stop.  *next: after the last entry read; NULL
 * when it did not end (the result says why) or the parser stopped at its
 * range's limit.                                                          */
static kt_scan_res entries(kt_parser *p, cursor *c, const char *q, const kt_sep_memo *sep, const char **next)
{
    const char *stop = entries_stop(p, c, q);
    for (;;) {
        *next = NULL;
        if (q >= stop && *q == '{' && p->limit != UINT64_MAX && (uint64_t)kt_offset_of(p, q) >= p->limit) {
            p->end_off = (uint64_t)kt_offset_of(p, q); /* range mode */
            p->state = KT_PS_STOPPED;
            c->q = q;
            return KT_SCAN_OK;
        }
        /* Keep a margin of data ahead so that an event rarely straddles the
         * window end (a straddling event is scanned again after the refill).  */
        if (q >= stop && !c->eof && (size_t)(c->end - q) < KT_LOW_WATER) return KT_SCAN_MORE;
        kt_scan_res r = entry(p, c, q, next);
        if (r != KT_SCAN_OK || !*next || !kt_sep_at(sep, *next)) return r; /* !*next: resync took over */
        p->after_comma = true;
        c->q = q = *next + sep->len - 1;
        if (p->oom) { /* kt_parse_stream fails the load */
            *next = NULL;
            return KT_SCAN_OK;
        }
    }
}

/* Events one after the other while each is followed by its ',' (the
 * state stays KT_PS_EVENT): a step per event through kt_parse_stream's
 * loop cost more than the separator, which is one compare once learnt
 * (sep, from this call's first events): its '{' is in the data (zero
 * bytes follow it), the bytes before it what kt_skip_ws skips.          */
static kt_scan_res event(kt_parser *p, cursor *c)
{
    kt_sep_memo sep = { .miss = 0 }; /* nothing learnt: never matches */
    for (;;) {
        const char *q = kt_skip_ws(c->q, c->end), *next;
        if (q >= c->end) return c->eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
        if (*q == ']') {
            if (p->after_comma)
                kt_pdiag_note(p, KT_PD_TRAILING_COMMA, kt_offset_of(p, q), "trailing comma before ']' (ignored)");
            p->r->events_end = (uint64_t)kt_offset_of(p, q);
            p->state = KT_PS_TOP_NEXT;
            c->q = q + 1;
            return KT_SCAN_OK;
        }
        kt_scan_res r = entries(p, c, q, &sep, &next);
        if (r != KT_SCAN_OK || !next) return r;
        if (next < c->end && *next == ',') { /* a ',' at once: the next event, after the blanks learnt */
            learn_event_sep(&sep, next, c->end);
            p->after_comma = true;
            c->q = next + 1;
            if (p->oom) return KT_SCAN_OK; /* kt_parse_stream fails the load */
            continue;
        }
        c->q = next;
        p->state = KT_PS_EVENT_NEXT;
        return KT_SCAN_OK;
    }
}

static kt_scan_res event_next(kt_parser *p, cursor *c)
{
    const char *q = kt_skip_ws(c->q, c->end);
    if (q >= c->end) return c->eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
    if (*q == ',') {
        p->after_comma = true;
        p->state = KT_PS_EVENT;
        c->q = q + 1;
    } else if (*q == ']') {
        p->r->events_end = (uint64_t)kt_offset_of(p, q);
        p->state = KT_PS_TOP_NEXT;
        c->q = q + 1;
    } else if (*q == '{') { /* a missing comma: take the event anyway */
        kt_pdiag_note(p, KT_PD_MISSING_COMMA, kt_offset_of(p, q), "missing ',' between events at byte %lld (assumed)",
                      (long long)kt_offset_of(p, q));
        p->state = KT_PS_EVENT;
        c->q = q;
    } else {
        return resync(p, c, q, q);
    }
    return KT_SCAN_OK;
}

/* One unit at c->q. */
static kt_scan_res step(kt_parser *p, cursor *c)
{
    switch (p->state) {
    case KT_PS_TOP_START: return top_start(p, c);
    case KT_PS_TOP_KEY: return top_key(p, c);
    case KT_PS_TOP_NEXT: return top_next(p, c);
    case KT_PS_EVENT: {
        kt_scan_res r = event(p, c);
        if (p->state != KT_PS_EVENT) p->after_comma = false;
        return r;
    }
    case KT_PS_EVENT_NEXT: return event_next(p, c);
    case KT_PS_RESYNC: return resync_more(p, c);
    default: return KT_SCAN_OK;
    }
}

/* The data ended inside a unit: the rest of the window is that unit. */
static void ended_early(kt_parser *p, cursor *c)
{
    int64_t at = kt_offset_of(p, kt_skip_ws(c->q, c->end));
    int64_t end = kt_offset_of(p, c->end);
    if (!p->seen_events && !p->in_range) { /* a range starts inside traceEvents */
        fail(p, "not a Kineto trace (no traceEvents list%s)",
             p->state == KT_PS_TOP_START ? "" : "; or the file is cut off before it");
        return;
    }
    if (p->state == KT_PS_EVENT || p->state == KT_PS_EVENT_NEXT) {
        if (end > at)
            kt_pdiag_note(p, KT_PD_TRUNCATED, at,
                          "file ends inside traceEvents (cut off while being written?): the "
                          "incomplete event at bytes %lld-%lld was skipped, every complete event "
                          "was loaded",
                          (long long)at, (long long)end);
        else
            kt_pdiag_note(p, KT_PD_TRUNCATED, at,
                          "file ends inside traceEvents (cut off while being written?): every "
                          "event was loaded");
    } else {
        kt_pdiag_note(p, KT_PD_TRUNCATED, at,
                      "file ends before the end of the top-level object (cut off after "
                      "traceEvents): metadata after byte %lld is missing",
                      (long long)at);
    }
    p->state = KT_PS_DONE;
    c->q = c->end;
}

static void report_progress(kt_parser *p, kt_src *src)
{
    if (!p->progress_done) return;
    uint64_t now = kt_src_consumed(src);
    uint64_t delta = now - p->reported;
    p->reported = now;
    uint64_t done = atomic_fetch_add(p->progress_done, delta) + delta;
    if (done > p->progress_total) done = p->progress_total; /* split ranges overlap a little */
    if (p->opt && p->opt->progress) p->opt->progress(p->opt->progress_user, done, p->progress_total);
}

static void after_done(kt_parser *p, const cursor *c)
{
    const char *q = kt_skip_ws(c->q, c->end);
    if (q < c->end)
        kt_pdiag_note(p, KT_PD_GARBAGE, kt_offset_of(p, q),
                      "%lld bytes after the end of the JSON were ignored",
                      (long long)(c->end - q));
}

bool kt_parse_stream(kt_parser *p, kt_src *src)
{
    kt_window *w = p->w;
    cursor c = { .q = w->data, .end = w->data + w->len, .eof = w->eof };
    while (p->state != KT_PS_DONE && p->state != KT_PS_FAILED && p->state != KT_PS_STOPPED) {
        kt_scan_res r = step(p, &c);
        if (p->oom) {
            fail(p, "out of memory");
            break;
        }
        if (r == KT_SCAN_OK) continue;
        if (r != KT_SCAN_MORE || w->eof) {
            ended_early(p, &c);
            break;
        }
        if (!kt_window_refill(w, src, c.q)) {
            fail(p, "cannot read: %s", kt_src_error(src));
            break;
        }
        report_progress(p, src);
        c = (cursor){ .q = w->data, .end = w->data + w->len, .eof = w->eof };
    }
    if (p->state == KT_PS_DONE) {
        after_done(p, &c);
        p->end_off = (uint64_t)kt_offset_of(p, c.end);
    }
    report_progress(p, src);
    if (p->state == KT_PS_FAILED) return false;
    if (p->state == KT_PS_DONE && !p->seen_events && !p->in_range) {
        fail(p, "not a Kineto trace (no traceEvents%s)",
             p->looks_et ? "; looks like a PyTorch execution trace" : "");
        p->not_trace = true;
        return false;
    }
    return true;
}
