/*
 * json_stream.c — json_doc's walks over a streamed window (see
 * json_stream.h for why).  Each step runs json_doc's step on the
 * window's text; where the text ends first, the window keeps the bytes
 * from where the step started, reads more, and the step runs again.
 */
#include "json_stream.h"

#include <stdlib.h>

/* Containers nested deeper than this are skipped whole, not walked. */
enum { SKIP_DEPTH = 32 };

void kt_js_held(kt_jstream *s, const char *data, size_t len)
{
    *s = (kt_jstream){ .w = { .data = (char *)data, .len = len, .eof = true } };
}

bool kt_js_open(kt_jstream *s, kt_src *src, size_t read_max)
{
    *s = (kt_jstream){ .src = src };
    if (!kt_window_init(&s->w, 0)) return false;
    s->w.read_max = read_max;
    return true;
}

void kt_js_close(kt_jstream *s)
{
    if (s->src) kt_window_free(&s->w);
}

/* The bytes from *keep on kept, more read after them (*keep: where they
 * are now); false when no more come (held, the end, a read error).   */
static bool more(kt_jstream *s, const char **keep)
{
    if (s->w.eof || !s->src) return false;
    if (!kt_window_refill(&s->w, s->src, *keep)) {
        s->read_error = true;
        return false;
    }
    *keep = s->w.data;
    return true;
}

static bool stop(kt_jstream *s)
{
    s->broke = true;
    return false;
}

kt_jiter kt_js_root(kt_jstream *s)
{
    const char *q = s->w.data;
    while ((q = kt_skip_ws(q, s->w.data + s->w.len)) == s->w.data + s->w.len && more(s, &q)) {}
    return (kt_jiter){ .at = *q == '{' || *q == '[' ? q : NULL };
}

/* One step of the walk of it's container (member: pr). */
static bool walk(kt_jstream *s, kt_jiter *it, char close, kt_pair *pr, kt_jv *val)
{
    if (s->broke || !it->at || (!it->started && *it->at != (close == ']' ? '[' : '{'))) return false;
    for (;;) {
        const char *end = kt_js_end(s), *q, *next;
        bool closed;
        kt_scan_res r = kt_walk_step(it->started ? it->at : NULL, it->at + 1, close, end, s->w.eof, &q, &closed);
        if (r == KT_SCAN_OK && closed) {
            *it = (kt_jiter){ q, true };
            return false;
        }
        if (r == KT_SCAN_OK)
            r = pr ? kt_walk_member(q, end, s->w.eof, pr, val, &next) : kt_walk_item(q, end, s->w.eof, val, &next);
        if (r == KT_SCAN_OK) {
            *it = (kt_jiter){ next, true };
            return true;
        }
        if (r != KT_SCAN_MORE || !more(s, &it->at)) return stop(s);
    }
}

bool kt_js_walk(kt_jstream *s, kt_jiter *it, kt_jv *item) { return walk(s, it, ']', NULL, item); }

bool kt_js_walk_member(kt_jstream *s, kt_jiter *it, kt_pair *pr, kt_jv *val) { return walk(s, it, '}', pr, val); }

void kt_js_whole(kt_jstream *s, kt_jiter *parent, kt_jv *v)
{
    for (;;) {
        const char *next;
        unsigned fl;
        kt_scan_res r = kt_skip_value(parent->at, kt_js_end(s), s->w.eof, &next, &fl);
        if (r == KT_SCAN_OK) {
            *v = (kt_jv){ parent->at, next };
            parent->at = next;
            return;
        }
        if (r != KT_SCAN_MORE || !more(s, &parent->at)) {
            *v = (kt_jv){ parent->at, kt_js_end(s) };
            stop(s);
            return;
        }
    }
}

static void skip(kt_jstream *s, kt_jiter *parent, kt_jv v, int depth)
{
    kt_jiter it = { v.s, false };
    kt_jv x;
    kt_pair pr;
    bool obj = kt_jv_is(v, '{'); /* v.s moves as the window does */
    if (depth >= SKIP_DEPTH) return; /* the parent's next step skips it whole */
    while (obj ? kt_js_walk_member(s, &it, &pr, &x) : kt_js_walk(s, &it, &x))
        if (kt_jv_is(x, '{') || kt_jv_is(x, '[')) skip(s, &it, x, depth + 1);
    parent->at = it.at;
}

void kt_js_skip(kt_jstream *s, kt_jiter *parent, kt_jv v)
{
    if (kt_jv_is(v, '{') || kt_jv_is(v, '[')) skip(s, parent, v, 0);
}

uint64_t kt_js_length(const kt_jstream *s)
{
    return s->w.eof || !s->src ? s->w.base + s->w.len : kt_src_file_bytes(s->src);
}

const char *kt_js_at(const kt_jstream *s, uint64_t off, size_t n, char **buf, size_t *cap)
{
    if (off >= s->w.base && s->w.data + (off - s->w.base) + n <= kt_js_end(s)) return s->w.data + (off - s->w.base);
    if (!s->src) return NULL;
    if (n + KT_WIN_PAD > *cap) {
        char *b = realloc(*buf, n + KT_WIN_PAD);
        if (!b) return NULL;
        *buf = b;
        *cap = n + KT_WIN_PAD;
    }
    ptrdiff_t got = kt_src_pread(s->src, off, *buf, n);
    if (got < 0) return NULL;
    memset(*buf + got, 0, n + KT_WIN_PAD - (size_t)got);
    return *buf;
}
