/*
 * trace_rewrite.c — see trace_rewrite.h.
 *
 * The scanner keeps only nesting depth, string state and, inside one
 * event, where its name, ph, cat and args are.  Bytes outside events go
 * straight to the sink; an event is held (across buffer refills, moved to
 * the buffer's front) until its closing brace; an edited one is then
 * written piecewise, the others go out with the bytes around them.
 */
#include "trace_rewrite.h"
#include "trace_sink.h"
#include "load/load_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (4u << 20)

enum { KEY_OTHER, KEY_NAME, KEY_PH, KEY_CAT, KEY_ARGS };

/* Where a string value sits in the current event (relative to its '{'). */
typedef struct span {
    size_t s, e;
    bool set;
} span;

typedef struct scanner {
    int depth;
    bool in_str, esc;
    bool in_events, events_seen;
    bool events_lost;       /* no '[' at the loader's events_open          */
    char key1[16];          /* last string at depth 1 (a top-level key)    */
    size_t key1_len;
    /* the event being read */
    bool in_event, expect_value, str_is_key, members;
    int cur_key;
    char kbuf[8];
    size_t klen, str_start;
    span name, ph, cat;
    size_t args_at;
    bool has_args;          /* an args object (at args_at)                 */
    bool args_key;          /* an "args" key, whatever its value           */
    uint64_t ordinal;
} scanner;

typedef struct rewriter {
    const kt_trace_rewrite *c;
    kt_sink *sink;
    char *buf;
    size_t cap, have, ev_start, flushed;
    uint64_t base;          /* offset of buf[0] in the decompressed JSON   */
    scanner s;
    char *text;             /* room for appended event text                */
} rewriter;

static int key_of(const char *k, size_t n)
{
    if (n == 4 && !memcmp(k, "name", 4)) return KEY_NAME;
    if (n == 2 && !memcmp(k, "ph", 2)) return KEY_PH;
    if (n == 3 && !memcmp(k, "cat", 3)) return KEY_CAT;
    if (n == 4 && !memcmp(k, "args", 4)) return KEY_ARGS;
    return KEY_OTHER;
}

static void flush_to(rewriter *w, size_t upto)
{
    if (upto > w->flushed) kt_sink_emit(w->sink, w->buf + w->flushed, upto - w->flushed);
    w->flushed = upto;
}

typedef struct splice {
    size_t at, del;
    const char *text[3];
    size_t len[3];
} splice;

static void emit_splices(rewriter *w, size_t from, size_t end, splice *sp, size_t n)
{
    if (n == 2 && sp[1].at < sp[0].at) {
        splice t = sp[0];
        sp[0] = sp[1];
        sp[1] = t;
    }
    size_t at = from;
    for (size_t i = 0; i < n; i++) {
        kt_sink_emit(w->sink, w->buf + at, sp[i].at - at);
        for (int k = 0; k < 3; k++)
            if (sp[i].len[k]) kt_sink_emit(w->sink, sp[i].text[k], sp[i].len[k]);
        at = sp[i].at + sp[i].del;
    }
    kt_sink_emit(w->sink, w->buf + at, end - at);
}

static const char *str_at(const rewriter *w, const span *sp, size_t *len)
{
    *len = sp->set ? sp->e - sp->s : 0;
    return sp->set ? w->buf + w->ev_start + sp->s : NULL;
}

/* Is the object whose '{' is at p empty? */
static bool empty_object(const char *p, const char *end)
{
    for (p++; p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'); p++) {}
    return p < end && *p == '}';
}

/* The event buf[ev_start, end) is complete: ask for its edits; write it
 * edited now, or leave it unflushed to go out with what follows.       */
static void finish_event(rewriter *w, size_t end)
{
    scanner *s = &w->s;
    size_t ev = w->ev_start;
    kt_event_view v = { .ordinal = s->ordinal++, .offset = w->base + ev,
                        .args_off = s->has_args ? w->base + ev + s->args_at : 0 };
    v.ph = str_at(w, &s->ph, &v.ph_len);
    v.name = str_at(w, &s->name, &v.name_len);
    v.cat = str_at(w, &s->cat, &v.cat_len);
    kt_event_edit e = { 0 };
    if (w->c->edit) w->c->edit(w->c->user, &v, &e);
    s->in_event = false;
    if (!e.add_args && !e.name) return; /* its bytes go out with the rest */
    flush_to(w, ev);
    splice sp[2];
    size_t n = 0;
    if (e.name && s->name.set)
        sp[n++] = (splice){ .at = ev + s->name.s, .del = s->name.e - s->name.s, .text = { e.name }, .len = { e.name_len } };
    if (e.add_args && s->has_args) {
        size_t at = ev + s->args_at + 1;
        bool empty = empty_object(w->buf + at - 1, w->buf + end);
        sp[n++] = (splice){ .at = at, .text = { e.add_args, ", " }, .len = { e.add_args_len, empty ? 0 : 2 } };
    } else if (e.add_args && !s->args_key) { /* not next to an args: null */
        sp[n++] = (splice){ .at = end - 1, .text = { s->members ? ", \"args\": {" : "\"args\": {", e.add_args, "}" },
                            .len = { s->members ? 11 : 9, e.add_args_len, 1 } };
    }
    emit_splices(w, ev, end, sp, n);
    w->flushed = end;
}

static void start_event(rewriter *w, size_t at)
{
    scanner *s = &w->s;
    w->ev_start = at;
    s->in_event = true;
    s->expect_value = false;
    s->members = false;
    s->has_args = s->args_key = false;
    s->cur_key = KEY_OTHER;
    s->name.set = s->ph.set = s->cat.set = false;
}

/* traceEvents ends at buf[at] (its ']'): the appended events go before it. */
static void end_events(rewriter *w, size_t at)
{
    flush_to(w, at);
    if (!w->c->append) return;
    size_t n;
    while (!w->sink->failed && (n = w->c->append(w->c->user, w->text, CHUNK)) > 0) kt_sink_emit(w->sink, w->text, n);
}

static void string_ended(rewriter *w, size_t at)
{
    scanner *s = &w->s;
    if (s->depth != 3 || !s->in_event) return;
    if (s->str_is_key) {
        s->cur_key = key_of(s->kbuf, s->klen);
        s->members = true;
        s->args_key |= s->cur_key == KEY_ARGS;
        return;
    }
    span sp = { s->str_start, at - w->ev_start, true };
    if (s->cur_key == KEY_NAME) s->name = sp;
    else if (s->cur_key == KEY_PH) s->ph = sp;
    else if (s->cur_key == KEY_CAT) s->cat = sp;
}

/* Characters of a string: the short keys we look for are captured. */
static size_t scan_string(rewriter *w, size_t i)
{
    scanner *s = &w->s;
    bool capture1 = s->depth == 1, capture3 = s->depth == 3 && s->in_event && s->str_is_key;
    for (; i < w->have; i++) {
        char ch = w->buf[i];
        if (s->esc) {
            s->esc = false;
        } else if (ch == '\\') {
            s->esc = true;
        } else if (ch == '"') {
            s->in_str = false;
            string_ended(w, i);
            return i + 1;
        } else if (!capture1 && !capture3) {
            /* plain characters: on to the next quote or backslash */
            i = (size_t)(kt_next_quote_or_escape(w->buf + i, w->buf + w->have) - w->buf) - 1;
            continue;
        }
        if (capture1 && s->key1_len < sizeof s->key1) s->key1[s->key1_len++] = ch;
        if (capture3 && s->klen < sizeof s->kbuf) s->kbuf[s->klen++] = ch;
    }
    return i;
}

static void open_bracket(rewriter *w, size_t i, char ch)
{
    scanner *s = &w->s;
    if (s->depth == 2 && s->in_events && ch == '{') start_event(w, i);
    else if (s->depth == 3 && s->in_event && ch == '{' && s->expect_value && s->cur_key == KEY_ARGS && !s->has_args) {
        s->args_at = i - w->ev_start;
        s->has_args = true;
    } else if (s->depth == 1 && ch == '[' && !s->events_seen && s->key1_len == 11 &&
               !memcmp(s->key1, "traceEvents", 11)) {
        s->in_events = s->events_seen = true;
    }
    s->depth++;
}

static void close_bracket(rewriter *w, size_t i, char ch)
{
    scanner *s = &w->s;
    if (s->depth > 0) s->depth--;
    if (s->depth == 2 && s->in_event && ch == '}') finish_event(w, i + 1);
    else if (s->depth == 1 && s->in_events && ch == ']') {
        s->in_events = false;
        end_events(w, i);
    }
}

/* The loader saw traceEvents open at c->events_open: the bytes before it
 * go out unscanned, so a damaged top level the loader recovered from is
 * neither taken for the array nor able to hide it.  Returns where to go on;
 * a file without its '[' there changed since it was loaded (then nothing
 * more is scanned and the rewrite fails with "no traceEvents array").     */
static size_t skip_to_events(rewriter *w, size_t i)
{
    uint64_t at = w->c->events_open;
    if (w->base + i < at) return at - w->base < w->have ? (size_t)(at - w->base) : w->have;
    if (w->base + i > at || w->buf[i] != '[') {
        w->s.events_lost = true;
        return w->have;
    }
    w->s.depth = 2;
    w->s.in_events = w->s.events_seen = true;
    return i + 1;
}

static void scan_buffer(rewriter *w, size_t i)
{
    scanner *s = &w->s;
    while (i < w->have) {
        if (w->c->events_open && !s->events_seen) {
            i = s->events_lost ? w->have : skip_to_events(w, i);
            continue;
        }
        if (s->in_str) {
            i = scan_string(w, i);
            continue;
        }
        /* past blanks, numbers and literals; ':' and ',' matter only
         * between an event's members */
        i = (size_t)(kt_next_structural(w->buf + i, w->buf + w->have, s->depth == 3) - w->buf);
        if (i >= w->have) break;
        char ch = w->buf[i];
        switch (ch) {
        case '"':
            s->in_str = true;
            if (s->depth == 1) s->key1_len = 0;
            if (s->in_event && s->depth == 3) {
                s->str_is_key = !s->expect_value;
                s->klen = 0;
                s->str_start = i + 1 - w->ev_start;
            }
            break;
        case '{': case '[': open_bracket(w, i, ch); break;
        case '}': case ']': close_bracket(w, i, ch); break;
        case ':': if (s->depth == 3) s->expect_value = true; break;
        case ',': if (s->depth == 3) { s->expect_value = false; s->cur_key = KEY_OTHER; } break;
        default: break;
        }
        i++;
    }
}

/* Keep the unfinished event (if any) at the front, read more behind it. */
static ptrdiff_t refill(rewriter *w, kt_src *src)
{
    if (!w->s.in_event) {
        flush_to(w, w->have);
        w->base += w->have;
        w->have = w->flushed = 0;
    } else {
        flush_to(w, w->ev_start);
        size_t keep = w->have - w->ev_start;
        memmove(w->buf, w->buf + w->ev_start, keep);
        w->base += w->ev_start;
        w->have = keep;
        w->ev_start = w->flushed = 0;
        if (w->have == w->cap) { /* an event larger than the buffer */
            char *nb = realloc(w->buf, w->cap * 2);
            if (!nb) return -2;
            w->buf = nb;
            w->cap *= 2;
        }
    }
    return kt_src_read(src, w->buf + w->have, w->cap - w->have);
}

static kt_status stream(rewriter *w, kt_src *src, char *err, size_t errlen)
{
    ptrdiff_t n = 0;
    while (!w->sink->failed && (n = refill(w, src)) > 0) {
        size_t from = w->have;
        w->have += (size_t)n;
        scan_buffer(w, from);
    }
    if (w->sink->failed) return KT_EANALYSIS;
    if (n == -2) return KT_ENOMEM;
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s: %s", w->c->in_path, kt_src_error(src));
        return KT_EINPUT;
    }
    flush_to(w, w->have); /* a file cut inside an event: the rest as is */
    if (!w->s.events_seen) {
        snprintf(err, errlen, "%s has no traceEvents array", w->c->in_path);
        return KT_EINPUT;
    }
    return KT_OK;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

kt_status kt_rewrite_trace(const kt_trace_rewrite *c, uint64_t *json_bytes, uint64_t *nevents, char *err,
                           size_t errlen)
{
    *json_bytes = 0;
    *nevents = 0;
    if (errlen) err[0] = '\0';
    if (same_file(c->in_path, c->out_path)) {
        snprintf(err, errlen, "refusing to overwrite the input %s", c->in_path);
        return KT_EUSAGE;
    }
    kt_src *src;
    kt_status st = kt_src_open_file(c->in_path, &src, err, errlen);
    if (st != KT_OK) return st;
    bool gzip = kt_src_is_gzip(src);
    if (gzip) kt_src_start_prefetch(src);
    kt_sink sink = { .fd = -1 };
    rewriter w = { .c = c, .sink = &sink, .cap = CHUNK };
    w.buf = malloc(w.cap);
    w.text = malloc(CHUNK);
    if (!w.buf || !w.text) st = KT_ENOMEM;
    else if (!kt_sink_open(&sink, c->out_path, gzip, err, errlen)) st = KT_EANALYSIS;
    else st = stream(&w, src, err, errlen);
    if (!kt_sink_close(&sink) && st == KT_OK) st = KT_EANALYSIS;
    if (st != KT_OK && sink.fd >= 0) unlink(c->out_path);
    *json_bytes = sink.json_bytes;
    *nevents = w.s.ordinal;
    free(w.buf);
    free(w.text);
    kt_src_close(src);
    return st;
}
