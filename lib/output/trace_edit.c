/*
 * trace_edit.c — see trace_edit.h.
 */
#include "trace_edit.h"
#include "trace_edit_gzip.h"
#include "event_locate.h"
#include "event_spans.h"
#include "trace_sink.h"
#include "write_behind.h"
#include "load/load_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The input: a plain file is read through windows (fd, len; doc NULL);
 * a gzip file is inflated into doc whole, unless the copy streams it
 * (then stream or src is the reader, and doc NULL).  Nothing is mapped:
 * a file cut short by another program while it is copied is an error
 * reading it, not a SIGBUS.                                              */
typedef struct input {
    char *doc;
    size_t len;
    int fd;     /* the plain file, else -1 */
    bool gzip;
    kt_src *stream; /* a copy that only appends (trace_edit_gzip.h) */
    kt_src *src;    /* a copy read through the window as it is inflated */
} input;

/* The plain file at path, open (its length in in->len); false when it
 * cannot be opened, is empty or is gzip (kt_src then reads it).          */
static bool open_plain(const char *path, input *in)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char magic[2] = { 0 };
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, magic, 2, 0) == 2 &&
              !(magic[0] == 0x1f && magic[1] == 0x8b);
    if (!ok) {
        if (fd >= 0) close(fd);
        return false;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    *in = (input){ .len = (size_t)st.st_size, .fd = fd };
    return true;
}

/* A copy that only appends events before the ']' and does not look
 * events up streams a gzip input (trace_edit_gzip.h).                    */
static bool streams(const kt_trace_edit *c)
{
    return !c->nmarks && !c->only_marked && (!c->extra || (c->extra_at_close && !c->extra_looks_up));
}

/* A copy that keeps every event, finds the edited ones from the loader's
 * offsets and is told which events' numbers extra reads reads a gzip
 * input through the window as it is inflated, never holding it whole.   */
static bool windows(const kt_trace_edit *c)
{
    return !c->only_marked && c->args_at && (!c->extra_looks_up || c->lookup_keys);
}

static kt_status read_whole(const char *path, input *in, char *err, size_t errlen)
{
    kt_src *src;
    kt_status st = kt_src_open_file(path, &src, err, errlen);
    if (st == KT_OK) st = kt_edit_read_whole(src, path, &in->doc, &in->len, err, errlen);
    kt_src_close(src);
    return st;
}

static kt_status read_all(const kt_trace_edit *c, input *in, char *err, size_t errlen)
{
    const char *path = c->in_path;
    if (open_plain(path, in)) return KT_OK;
    kt_src *src;
    kt_status st = kt_src_open_file(path, &src, err, errlen);
    if (st != KT_OK) return st;
    *in = (input){ .fd = -1, .gzip = kt_src_is_gzip(src) };
    if (in->gzip && (streams(c) || windows(c))) {
        *(streams(c) ? &in->stream : &in->src) = src;
        return KT_OK;
    }
    kt_src_close(src);
    return read_whole(path, in, err, errlen);
}

/* A gzip input read through the window held whole after all (the loader's
 * offsets do not fit it: the array is walked): read again from the start. */
static kt_status hold_input(const kt_trace_edit *c, input *in, char *err, size_t errlen)
{
    kt_src_close(in->src);
    in->src = NULL;
    return read_whole(c->in_path, in, err, errlen);
}

static void input_free(input *in)
{
    free(in->doc);
    kt_src_close(in->stream);
    kt_src_close(in->src);
    if (in->fd >= 0) close(in->fd);
}

/* A piece of a plain input read from the file (pread) into memory that
 * is used again: the bytes the writer reads of an input whose edited
 * events it finds from the loader's offsets.  Two buffers in turn: the
 * copy's previous batch, written on the write-behind thread, may still
 * name the other one's bytes (trace_sink.h).  A gzip input read as it
 * is inflated uses the first buffer alone, moving forward (its sink
 * takes what it is given at once), WINDOW bytes at a time.  A plain
 * file is read PLAIN_WINDOW at a time: each window switch hands a batch
 * to the write-behind thread and wakes it, and on synth-1g.json 1 MiB
 * pieces made the copy 0.06 s faster than 256 KiB ones (4.2 k batches
 * to 1.3 k; 2 MiB gained no more).                                       */
typedef struct window {
    char *buf[2];
    size_t cap[2];
    int cur;                    /* the buffer holding the piece        */
    size_t n;
    uint64_t base;              /* the piece's offset in the file      */
    bool tail;                  /* the piece goes on past n: being read
                                   on the write-behind thread          */
    bool behind;                /* bytes before a gzip input's window
                                   were asked for: walk instead         */
} window;
#define WINDOW ((size_t)256 << 10)
#define PLAIN_WINDOW ((size_t)1 << 20)

/* The last event kt_edit_event_number read from a plain file. */
typedef struct lookup {
    char *buf;
    size_t cap;
    uint64_t args_off;          /* its args object's offset, 0: none   */
    kt_span s;                  /* its bytes: buf[0, s.end - s.start)  */
} lookup;

struct kt_edit_doc {
    const char *text;           /* the input held whole, else NULL      */
    int fd;                     /* the plain file read through win, else -1 */
    kt_spans *events;           /* every event, or only the edited ones */
    const kt_args_index *args;  /* with the latter: to find the others  */
    kt_spans_walk *walk;        /* events still to be walked to, or NULL */
    bool keep_events;           /* the walked ones stay in events       */
    kt_src *stream;             /* a gzip input copied as it is read (no
                                   text, no events), else NULL          */
    kt_src *src;                /* a gzip input read through win as it
                                   is inflated (no text), else NULL     */
    const uint64_t *want;       /* the args objects of the events found */
    size_t nwant;               /* through win: the edited ones, and with
                                   src those whose numbers are kept     */
    double *nums;               /* with src: want[k]'s number of key j at
                                   k * nkeys + j (NAN: none), else NULL */
    const char *const *keys;
    size_t nkeys;
    window *win;                /* the edited events are found as the
                                   copy goes, read here (NULL: found
                                   before, read from text)              */
    lookup *look;               /* with win: kt_edit_event_number's     */
    const char *path;           /* the input, for errors reading it     */
    size_t len;                 /* its length                           */
    size_t hint, last_end;      /* the search's (event_locate.h)        */
    bool lost;                  /* an edited event was not where the
                                   loader's offsets say: walk instead   */
    bool cut;                   /* the file could not be read (o->err)  */
};

/* Reading the input failed: the copy stops, as an input error. */
static void say_cut(kt_sink *o, kt_edit_doc *d, uint64_t at)
{
    if (o->failed) return;
    snprintf(o->err, o->errlen, "%s: cannot read byte %llu: the file was cut short or changed since it was loaded",
             d->path, (unsigned long long)at);
    o->failed = true;
    d->cut = true;
}

/* window_bytes on a gzip input, which is read forward only: the window
 * keeps what it holds from `from` on and reads on to at least WINDOW (n
 * = 0: as much as is left, none at the end).  The copy has its bytes
 * already (a gzip sink takes what it is given at once).                  */
static const char *stream_bytes(kt_sink *o, kt_edit_doc *d, size_t from, size_t n)
{
    window *w = d->win;
    size_t want = n > WINDOW ? n : WINDOW, have = w->base + w->n > from ? (size_t)(w->base + w->n - from) : 0;
    char *grown = from < w->base ? NULL : want > w->cap[0] ? realloc(w->buf[0], want) : w->buf[0];
    if (!grown) {
        snprintf(o->err, o->errlen, "%s", from < w->base ? "the input is read forward only" : "out of memory");
        w->behind = from < w->base, o->failed = true;
        return NULL;
    }
    if (want > w->cap[0]) w->buf[0] = grown, w->cap[0] = want;
    if (have) memmove(w->buf[0], w->buf[0] + (from - w->base), have);
    ptrdiff_t r = 1;
    for (uint64_t at = w->base + w->n; at < from && r > 0; at += (uint64_t)r) /* a stretch not asked for */
        r = kt_src_read(d->src, w->buf[0], from - at < w->cap[0] ? (size_t)(from - at) : w->cap[0]);
    w->base = from, w->n = have;
    while (r > 0 && w->n < want && (r = kt_src_read(d->src, w->buf[0] + w->n, want - w->n)) > 0) w->n += (size_t)r;
    if (r >= 0 && w->n >= n) return w->buf[0];
    snprintf(o->err, o->errlen, "%s: cannot read byte %zu (inflated): %s", d->path, from + w->n,
             r < 0 ? kt_src_error(d->src) : "it is shorter than when it was loaded");
    o->failed = d->cut = true;
    return NULL;
}

/* The rest of a plain file's window, read on the write-behind thread. */
static void take_tail(kt_sink *o, window *w)
{
    w->n += kt_sink_read_wait(o);
    w->tail = false;
}

/* The input's bytes [from, from + n) in the window (read there when they
 * are not, after what the copy holds of the other buffer is handed over:
 * the window's last quarter on the write-behind thread while this one
 * reads the rest, when the buffer has room), or NULL when they cannot be
 * read (o->failed says why).  A quarter evens out the two threads: on
 * synth-1g.json (patterns -o) the copy took 0.36-0.39 s with a quarter,
 * 0.39-0.41 s with a third and 0.38-0.45 s with a half.                  */
static const char *window_bytes(kt_sink *o, kt_edit_doc *d, size_t from, size_t n)
{
    window *w = d->win;
    if (w->tail && from >= w->base && from + n > w->base + w->n) take_tail(o, w);
    if (from >= w->base && from + n <= w->base + w->n) return w->buf[w->cur] + (from - w->base);
    if (d->src) return stream_bytes(o, d, from, n);
    size_t want = n > PLAIN_WINDOW ? n : PLAIN_WINDOW, head = want - want / 4;
    int next = 1 - w->cur;
    bool fits = w->buf[next] && want <= w->cap[next], split = false;
    if (fits) {
        kt_read_job tail = { d->fd, w->buf[next] + head, want - head, from + head };
        split = kt_sink_flush_reading(o, &tail);
    } else {
        kt_sink_flush(o);
    }
    w->cur = next;
    if (want > w->cap[w->cur]) {
        free(w->buf[w->cur]);
        w->cap[w->cur] = want;
        w->buf[w->cur] = malloc(want);
    }
    char *buf = w->buf[w->cur];
    size_t got = buf && !o->failed ? kt_pread_full(d->fd, buf, split ? head : want, from, NULL) : 0;
    w->base = from, w->n = got, w->tail = split && got == head;
    if (w->tail && got < n) take_tail(o, w);
    if (w->n >= n && !o->failed) return buf;
    if (!buf && !o->failed) {
        snprintf(o->err, o->errlen, "out of memory");
        o->failed = true;
    }
    say_cut(o, d, from + w->n);
    return NULL;
}

static const char *win_text(const window *w) { return w->buf[w->cur]; }

/* The input's bytes [from, from + n) into the copy, from where the
 * writer holds them.  A plain file's window gives what it holds of them
 * before the next piece is read from where it ends (a piece asked for
 * whole would read the window's tail again).                            */
static void emit_input(kt_sink *o, kt_edit_doc *d, size_t from, size_t n)
{
    if (!d->win) {
        kt_sink_emit_ref(o, d->text + from, n);
        return;
    }
    const window *w = d->win;
    for (size_t k; n && !o->failed; from += k, n -= k) {
        bool held = !d->src && from >= w->base && from < w->base + w->n;
        size_t left = held ? (size_t)(w->base + w->n - from) : WINDOW;
        k = n < left ? n : left;
        const char *p = held ? win_text(w) + (from - w->base) : window_bytes(o, d, from, k);
        if (p) kt_sink_emit_ref(o, p, k);
    }
}

/* A gzip input read through the window, from byte from to its end. */
static void emit_rest(kt_sink *o, kt_edit_doc *d, size_t from)
{
    for (const char *p; !o->failed && (p = stream_bytes(o, d, from, 0)) && d->win->n; from += d->win->n)
        kt_sink_emit(o, p, d->win->n);
}

/* The event (object span) holding byte offset off: spans are in file order. */
static const kt_span *event_at(const kt_spans *v, uint64_t off)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->s[mid].end <= off) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->n && v->s[lo].start <= off ? &v->s[lo] : NULL;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    return p;
}

/* Where the value of a top-level key of the object o starts, or NULL.  A
 * string is a key when a ':' follows it ("cat": "name" has no key name). */
static const char *top_value(const char *doc, kt_span o, const char *key)
{
    size_t klen = strlen(key);
    int depth = 0;
    const char *end = doc + o.end;
    for (const char *p = doc + o.start; p < end; p++) {
        char ch = *p;
        if (ch != '"') {
            depth += kt_json_bracket_step[(unsigned char)ch];
            continue;
        }
        const char *s = p + 1;
        p = kt_json_string_end(s, end);
        if (depth != 1 || (size_t)(p - s) != klen || memcmp(s, key, klen)) continue;
        const char *colon = skip_blanks(p + 1, end);
        if (colon < end && *colon == ':') {
            const char *v = skip_blanks(colon + 1, end);
            return v < end ? v : NULL;
        }
    }
    return NULL;
}

/* Room for n bytes in the lookup's buffer. */
static bool lookup_room(lookup *l, size_t n)
{
    if (n <= l->cap) return true;
    free(l->buf);
    l->buf = malloc(n);
    l->cap = l->buf ? n : 0;
    return l->buf != NULL;
}

/* The event whose args object opens at args_off, read from the plain
 * file into d->look: an edited one from its span, another where the
 * locate asks (a few reads at most); its bytes, or NULL.                 */
static const char *looked_up(const kt_edit_doc *d, uint64_t args_off)
{
    lookup *l = d->look;
    if (l->args_off == args_off) return l->buf;
    l->args_off = 0;
    const kt_span *e = event_at(d->events, args_off);
    kt_span s = e ? *e : (kt_span){ 0, 0 }, need;
    uint64_t base = s.start;
    size_t n = 0;
    if (!e && !d->args) return NULL;
    for (int tries = 0; !e && !kt_locate_event_in(l->buf, base, n, d->args, args_off, NULL, &s, &need); tries++) {
        if (!need.end || tries == 4) return NULL;
        base = need.start, n = need.end - need.start + (tries ? 0 : 512); /* its end, most likely */
        if (!lookup_room(l, n)) return NULL;
        n = kt_pread_full(d->fd, l->buf, n, base, NULL);
    }
    size_t len = s.end - s.start;
    if (e && (!lookup_room(l, len) || kt_pread_full(d->fd, l->buf, len, s.start, NULL) != len)) return NULL;
    if (!e) memmove(l->buf, l->buf + (s.start - base), len);
    l->args_off = args_off, l->s = s;
    return l->buf;
}

/* The number a top-level key of the object ev[o] has, or false. */
static bool number_of(const char *ev, kt_span o, const char *key, double *out)
{
    const char *v = top_value(ev, o, key);
    kt_num num;
    if (!v || !(*v == '-' || (*v >= '0' && *v <= '9')) || !kt_parse_number(v, ev + o.end, &num)) return false;
    *out = num.f;
    return true;
}

/* With src: the numbers of want[k], whose bytes are ev[0, len). */
static void keep_numbers(kt_edit_doc *d, size_t k, const char *ev, size_t len)
{
    double *num = &d->nums[k * d->nkeys];
    for (size_t j = 0; j < d->nkeys; j++)
        if (!number_of(ev, (kt_span){ 0, len }, d->keys[j], &num[j])) num[j] = NAN;
}

/* With src: the number kept for the event whose args open at args_off. */
static bool kept_number(const kt_edit_doc *d, uint64_t args_off, const char *key, double *out)
{
    size_t lo = 0, hi = d->nwant, j = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->want[mid] < args_off) lo = mid + 1;
        else hi = mid;
    }
    while (j < d->nkeys && strcmp(d->keys[j], key)) j++;
    if (lo >= d->events->n || d->want[lo] != args_off || j == d->nkeys || isnan(d->nums[lo * d->nkeys + j]))
        return false;
    *out = d->nums[lo * d->nkeys + j];
    return true;
}

bool kt_edit_event_number(const kt_edit_doc *d, uint64_t args_off, const char *key, double *out)
{
    if (d->src) return d->nums && kept_number(d, args_off, key, out);
    const char *ev = NULL;
    kt_span o = { 0, 0 }, found;
    if (d->win) {
        ev = looked_up(d, args_off);
        o.end = d->look->s.end - d->look->s.start;
    } else {
        const kt_span *e = event_at(d->events, args_off);
        if (!e && d->args && kt_locate_event(d->text, d->args, args_off, NULL, &found)) e = &found;
        if (e) ev = d->text + e->start, o.end = e->end - e->start;
    }
    return ev && number_of(ev, o, key, out);
}

/* The string value of a top-level key of the object [start, end), or NULL. */
static const char *top_string(const char *doc, kt_span o, const char *key, size_t *len)
{
    const char *v = top_value(doc, o, key);
    if (!v || *v != '"') return NULL;
    *len = (size_t)(kt_json_string_end(v + 1, doc + o.end) - v - 1);
    return v + 1;
}

static bool str_is(const char *s, size_t len, const char *want)
{
    return s && strlen(want) == len && !memcmp(s, want, len);
}

/* An event left unmarked kept (true unless it is complete and not of a
 * category kept); read where the writer holds it.                        */
static bool keep_unmarked(kt_sink *o, const kt_trace_edit *c, kt_edit_doc *d, kt_span s)
{
    size_t len = s.end - s.start;
    const char *ev = d->win ? window_bytes(o, d, s.start, len) : d->text + s.start;
    if (!ev) return true;
    kt_span e = { 0, len };
    const char *ph = top_string(ev, e, "ph", &len);
    if (!str_is(ph, len, "X")) return true;
    const char *cat = top_string(ev, e, "cat", &len);
    for (size_t k = 0; cat && c->keep_cats && c->keep_cats[k]; k++)
        if (str_is(cat, len, c->keep_cats[k])) return true;
    return false;
}

/* A change inside one event: text[at, at + del) becomes text, then tail. */
typedef struct edit_piece {
    size_t at, del;
    const char *text, *tail;
    size_t len, tail_len;
} edit_piece;

static bool empty_object(const char *p)
{
    for (p++; *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'; p++) {}
    return *p == '}';
}

/* The edits of the event s whose args object opens at doc[mark]: at most
 * a new name and members put first into args, in file order.             */
static size_t event_pieces(const char *doc, kt_span s, size_t mark, const kt_event_edit *e, edit_piece sp[2])
{
    size_t n = 0, name_len;
    const char *name = e->name ? top_string(doc, s, "name", &name_len) : NULL;
    if (name)
        sp[n++] = (edit_piece){ .at = (size_t)(name - doc), .del = name_len, .text = e->name, .len = e->name_len };
    if (e->add_args) {
        bool empty = empty_object(doc + mark);
        sp[n++] = (edit_piece){ .at = mark + 1, .text = e->add_args, .len = e->add_args_len, .tail = ", ",
                            .tail_len = empty ? 0 : 2 };
    }
    if (n == 2 && sp[1].at < sp[0].at) {
        edit_piece t = sp[0];
        sp[0] = sp[1];
        sp[1] = t;
    }
    return n;
}

/* The object, edited when one of the marks is its args object's '{';
 * its bytes ev[0, s.end - s.start) are read where the writer holds them. */
static void emit_object(kt_sink *o, const kt_trace_edit *c, kt_edit_doc *d, kt_span s, size_t *m,
                        size_t *edited)
{
    size_t mark = 0, len = s.end - s.start;
    const char *ev = d->win ? window_bytes(o, d, s.start, len) : d->text + s.start;
    if (!ev) return;
    for (; *m < c->nmarks && c->marks[*m] < s.end; (*m)++)
        if (!mark && c->marks[*m] > s.start && ev[c->marks[*m] - s.start] == '{') mark = (size_t)c->marks[*m];
    if (!mark) {
        kt_sink_emit_ref(o, ev, len);
        return;
    }
    kt_event_edit e = { 0 };
    c->edit(c->user, mark, &e);
    edit_piece sp[2];
    size_t n = event_pieces(ev, (kt_span){ 0, len }, mark - s.start, &e, sp), pos = 0;
    for (size_t k = 0; k < n; k++) {
        kt_sink_emit_ref(o, ev + pos, sp[k].at - pos);
        kt_sink_emit(o, sp[k].text, sp[k].len);
        kt_sink_emit(o, sp[k].tail, sp[k].tail_len);
        pos = sp[k].at + sp[k].del;
    }
    kt_sink_emit_ref(o, ev + pos, len - pos);
    *edited += n > 0;
}

/* The next edited event, found from the loader's offsets in the window
 * (read from *pos, the first byte not yet copied, or from before it: the
 * search starts in the previous event); a long stretch before it is
 * copied on the way and *pos moved past it.  False with d->lost when the
 * event is not where the offsets say.                                   */
static bool locate_next(kt_sink *o, kt_edit_doc *d, size_t *pos)
{
    kt_spans *v = d->events;
    window *w = d->win;
    kt_span s, need;
    for (size_t grow = 0; !kt_locate_event_in(win_text(w), w->base, w->n, d->args, d->want[v->n], &d->hint, &s, &need);
         grow = w->n) {
        if (!need.end || o->failed || (grow && need.end <= w->base + w->n)) {
            d->lost = !o->failed;
            return false;
        }
        if (need.start > *pos + KT_SINK_DIRECT) emit_input(o, d, *pos, need.start - *pos), *pos = need.start;
        size_t from = need.start < *pos ? need.start : *pos, want = need.end - from;
        if (grow && want > 2 * grow) want = 2 * grow; /* the event's end is not far, most likely */
        if (!window_bytes(o, d, from, want)) return false;
    }
    if (s.start < *pos || s.end > d->last_end) {
        d->lost = true;
        return false;
    }
    if (d->nums) keep_numbers(d, v->n, win_text(w) + (s.start - w->base), s.end - s.start);
    v->s[v->n++] = s;
    return true;
}

/* Bytes walked at a time before they are copied: the piece is still in
 * L2 when the copy reads it (a walk over the whole gigabyte first made
 * the copy read it again from memory).                                   */
#define WALK_PIECE ((size_t)128 << 10)

/* The walk's next piece: from the text held, or from the window (a
 * piece reaching past the ']' ends 64 bytes after it, or at the end of
 * the file: kt_spans_walk_piece).                                       */
static void walk_piece(kt_sink *o, kt_edit_doc *d)
{
    kt_spans_walk *w = d->walk;
    if (!d->win) {
        kt_spans_walk_on(w, w->at + WALK_PIECE);
        return;
    }
    size_t at = w->at, close = w->state.close, len = d->len, upto = at + WALK_PIECE;
    size_t end = upto > close ? close + 128 : upto;
    size_t n = (end < len ? end : len) - at;
    const char *p = window_bytes(o, d, at, n);
    if (p) kt_spans_walk_piece(w, p, at, n, upto);
}

/* Makes events->s[*k] the next event: with a walk under way, the next
 * piece walked (the events copied already dropped unless they are
 * kept), with a window the next edited event (*pos: locate_next's);
 * false when there are no more.                                          */
static bool next_event(kt_sink *o, kt_edit_doc *d, size_t *pos, size_t *k)
{
    kt_spans *v = d->events;
    if (*k < v->n) return true;
    if (!d->walk) return d->win && v->n < d->nwant && locate_next(o, d, pos);
    if (!d->keep_events) v->n = 0, *k = 0;
    while (*k == v->n && !d->walk->done && !o->failed) walk_piece(o, d);
    return *k < v->n;
}

/* Unedited events are copied in runs: doc[run, prev_end) waits to be
 * copied as it is (NO_RUN after a left-out event: the next kept one
 * gets a separator of its own).  A call per event cost a fifth of the
 * writer's instructions.                                                 */
#define NO_RUN SIZE_MAX

/* The appended events, a buffer at a time; the first one's separator
 * goes when no event precedes it (first).                               */
#define EXTRA_CHUNK ((size_t)256 << 10)
static void emit_extra(kt_sink *o, const kt_trace_edit *c, kt_edit_doc *d, bool first)
{
    if (!c->extra) return;
    if (o->gzip && !d->stream && !d->src) { /* the input is held whole: the events too (trace_edit_gzip.h) */
        kt_edit_append_whole(o, c->extra, c->user, d, first);
        return;
    }
    char *buf = malloc(EXTRA_CHUNK);
    size_t n = 0;
    while (buf && !o->failed && (n = c->extra(c->user, d, buf, EXTRA_CHUNK)) > 0 && n != SIZE_MAX) {
        size_t skip = first && buf[0] == ',';
        kt_sink_emit(o, buf + skip, n - skip);
        first = false;
    }
    if ((!buf || n == SIZE_MAX) && !o->failed) {
        snprintf(o->err, o->errlen, "the events to append could not be made (out of memory)");
        o->failed = true;
    }
    free(buf);
}

/* The appended events of a streamed copy (kt_edit_append_fn). */
typedef struct extra_args {
    const kt_trace_edit *c;
    kt_edit_doc *d;
} extra_args;

static void append_extra(kt_sink *o, void *arg)
{
    extra_args *a = arg;
    emit_extra(o, a->c, a->d, false);
}

/* One past the last event's '}' (only blanks follow it up to the ']'), 0
 * for an empty array; false when something else ends the array.  p holds
 * the input's bytes [base, close + 1), base <= open + 1 (a piece of the
 * input's end: open is then base - 1, and 0 says only blanks).          */
static bool last_event_end(const char *p, size_t base, size_t open, size_t close, size_t *end)
{
    size_t q = close;
    while (q > open + 1 && (p[q - 1 - base] == ' ' || p[q - 1 - base] == '\n' || p[q - 1 - base] == '\t' ||
                            p[q - 1 - base] == '\r'))
        q--;
    *end = q == open + 1 ? 0 : q;
    return q == open + 1 || p[q - 1 - base] == '}';
}

/* With src: the end of the last event, once the copy is at *run (all
 * before it copied, the events found through the window too), read from
 * the window's last piece (what lies before it copied first).  False
 * when the array does not end as it did when the input was loaded, and
 * with d->lost when its last event is not in that piece (blanks only).   */
static bool stream_last_end(kt_sink *o, const kt_trace_edit *c, kt_edit_doc *d, size_t *run, size_t *last_end)
{
    size_t close = (size_t)c->events_end, from = close - *run > WINDOW ? close - WINDOW : *run;
    emit_input(o, d, *run, from - *run);
    *run = from;
    const char *p = window_bytes(o, d, from, close + 1 - from);
    size_t open = (size_t)c->events_open, lower = from > open + 1 ? from - 1 : open;
    if (!p || p[close - from] != ']' || !last_event_end(p, from, lower, close, last_end)) return false;
    d->lost = !*last_end && lower > open;
    return !d->lost;
}

/* False when the walk finds the array damaged (nothing more is written). */
static bool emit_events(kt_sink *o, const kt_trace_edit *c, kt_edit_doc *d, size_t last_end, size_t *edited)
{
    const kt_spans *v = d->events;
    size_t m = 0, prev_end = (size_t)c->events_open + 1, run = prev_end;
    bool any = false;
    for (size_t k = 0; next_event(o, d, &run, &k) && !o->failed; k++) {
        kt_span s = v->s[k];
        while (m < c->nmarks && c->marks[m] < s.start) m++;
        bool has_mark = m < c->nmarks && c->marks[m] < s.end;
        if (c->only_marked && !has_mark && !keep_unmarked(o, c, d, s)) {
            if (run != NO_RUN) emit_input(o, d, run, prev_end - run);
            run = NO_RUN;
            continue;
        }
        if (run == NO_RUN) {
            kt_sink_emit(o, any ? ",\n" : "\n", any ? 2 : 1);
            run = s.start;
        }
        if (has_mark) {
            emit_input(o, d, run, s.start - run);
            emit_object(o, c, d, s, &m, edited);
            run = s.end;
        }
        prev_end = s.end, any = true;
    }
    if (d->lost || (d->src && !o->failed && !stream_last_end(o, c, d, &run, &last_end))) return false;
    if (d->src && run > prev_end) prev_end = run; /* copied: the events in it too */
    if (last_end > prev_end) prev_end = last_end, any = true; /* events after the last one edited */
    if (run != NO_RUN) emit_input(o, d, run, prev_end - run);
    if (d->walk && !o->failed && !kt_spans_walk_ok(d->walk)) return false;
    size_t blanks = run != NO_RUN ? (size_t)c->events_end - prev_end : 0; /* before the ']' */
    if (c->extra_at_close) emit_input(o, d, prev_end, blanks);
    emit_extra(o, c, d, !any && !c->extra_at_close);
    if (!c->extra_at_close) emit_input(o, d, prev_end, blanks);
    return true;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void say_damaged(const kt_trace_edit *c, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: traceEvents (bytes %llu-%llu) is damaged or changed since it was loaded: no overlay written",
             c->in_path, (unsigned long long)c->events_open, (unsigned long long)c->events_end);
}

/* The copy is written under a name of its own beside out_path and renamed
 * to it once whole: the array is walked while it is copied, so damage may
 * show only near its end, and an overlay there before (or one a viewer
 * is reading) is then neither cut nor lost.                               */
static kt_status write_copy(const kt_trace_edit *c, kt_edit_doc *d, size_t last_end, size_t len, bool gzip,
                            kt_edit_result *res, char *err, size_t errlen)
{
    char why[256] = "", *part = malloc(strlen(c->out_path) + sizeof ".partial");
    if (!part) return KT_ENOMEM;
    strcpy(part, c->out_path);
    strcat(part, ".partial");
    if (same_file(c->in_path, part)) {
        snprintf(err, errlen, "refusing to overwrite the input %s", c->in_path);
        free(part);
        return KT_EUSAGE;
    }
    kt_sink o;
    bool whole = true;
    if (kt_sink_open(&o, part, gzip, c->in_path, why, sizeof why)) {
        if (d->stream) {
            whole = kt_edit_stream_appending(&o, d->stream, c->events_end, append_extra, &(extra_args){ c, d });
        } else {
            emit_input(&o, d, 0, (size_t)c->events_open + 1);
            const char *open = d->src ? window_bytes(&o, d, (size_t)c->events_open, 1) : "[";
            whole = (o.failed || (open && *open == '[')) && emit_events(&o, c, d, last_end, &res->edited);
            if (whole && d->src) emit_rest(&o, d, (size_t)c->events_end);
            else if (whole) emit_input(&o, d, (size_t)c->events_end, len - c->events_end);
        }
    }
    res->json_bytes = o.json_bytes;
    bool opened = o.fd >= 0, written = kt_sink_close(&o) && whole;
    if (written && rename(part, c->out_path) != 0) {
        snprintf(why, sizeof why, "cannot rename %s to it: %s", part, strerror(errno));
        written = false;
    }
    if (opened && !written) unlink(part);
    free(part);
    if (written) return KT_OK;
    if (d->cut) {
        snprintf(err, errlen, "%s: no overlay written", why);
        return KT_EINPUT;
    }
    if (!whole) {
        say_damaged(c, err, errlen);
        return KT_EINPUT;
    }
    snprintf(err, errlen, "%s%s%s", opened ? c->out_path : "", opened ? ": " : "", why);
    return KT_EANALYSIS;
}

/* traceEvents' brackets where the loader found them, and one past its
 * last event (last_event_end): read from the file when it is not held,
 * with the blanks before the ']' (a few, or the array is walked).       */
static bool array_ends(const kt_trace_edit *c, const input *in, size_t *last_end)
{
    size_t open = (size_t)c->events_open, close = (size_t)c->events_end;
    if (open >= close || close >= in->len) return false;
    if (in->doc)
        return in->doc[open] == '[' && in->doc[close] == ']' && last_event_end(in->doc, 0, open, close, last_end);
    char head, tail[4096];
    size_t base = close + 1 > sizeof tail && close + 1 - sizeof tail > open ? close + 1 - sizeof tail : open;
    return kt_pread_full(in->fd, &head, 1, open, NULL) == 1 && head == '[' &&
           kt_pread_full(in->fd, tail, close + 1 - base, base, NULL) == close + 1 - base && tail[close - base] == ']' &&
           last_event_end(tail, base, open, close, last_end);
}

/* Edits on more events than this fraction of them, in an input held in
 * memory (gzip): the walk over the whole array (~50 ns an event on
 * real-1g.json) costs no more than finding each edited event alone, as
 * the copy reads every byte anyway.  A plain input is not held: its
 * edited events are found in the window as the copy reads it, which
 * costs less than walking even when every GPU event is edited (patterns
 * -o: one in ten; 1.0 s of CPU less on synth-1g.json).                  */
#define LOCATE_AT_MOST_ONE_IN 32

/* The edited events alone, found from the loader's args offsets: what an
 * overlay that keeps every event needs (event_locate.h); in an input held
 * in memory all of them now, in a plain file or a gzip input read as it
 * is inflated as the copy goes (*as_copied, read through a window).  False when the index or a mark
 * does not fit the text (then the whole array is walked, and the walk
 * says what is wrong) or a held input has many edits.                  */
static bool edited_spans(const kt_trace_edit *c, const input *in, const kt_edit_doc *d, kt_args_index *ai, kt_spans *v,
                         size_t *last_end, bool *as_copied)
{
    bool many = in->doc && c->nmarks > c->nargs / LOCATE_AT_MOST_ONE_IN;
    bool ends = in->src ? c->events_open < c->events_end : array_ends(c, in, last_end);
    if (c->only_marked || !c->args_at || many || !ends ||
        !kt_args_index_init(ai, c->args_at, c->nargs, (size_t)c->events_open, (size_t)c->events_end) ||
        !kt_spans_reserve(v, d->nwant))
        return false;
    if (in->src) *last_end = (size_t)c->events_end; /* found when the copy gets there (stream_last_end) */
    *as_copied = !in->doc;
    size_t hint = 0;
    for (size_t k = 0; in->doc && k < c->nmarks; k++) {
        kt_span s;
        if (!kt_locate_event(in->doc, ai, c->marks[k], &hint, &s) || s.end > *last_end) return false;
        if (v->n && s.start < v->s[v->n - 1].end) return false; /* marks out of order */
        v->s[v->n++] = s;
    }
    return true;
}

/* traceEvents' brackets where the loader found them, in a plain file. */
static bool brackets_in_file(const kt_trace_edit *c, const input *in)
{
    char open = 0, close = 0;
    return c->events_open < c->events_end && c->events_end < in->len &&
           kt_pread_full(in->fd, &open, 1, c->events_open, NULL) == 1 &&
           kt_pread_full(in->fd, &close, 1, c->events_end, NULL) == 1 &&
           open == '[' && close == ']';
}

/* Every event is found by walking traceEvents as the copy goes: over the
 * text held, or a plain file's window a piece at a time.                 */
static kt_status start_walk(const kt_trace_edit *c, const input *in, kt_edit_doc *d, kt_spans_walk *walk,
                            window *win, char *err, size_t errlen)
{
    d->events->n = 0;
    d->args = NULL, d->lost = false;
    d->win = in->doc ? NULL : win;
    d->walk = walk;
    d->keep_events = c->extra != NULL; /* it may look events up (kt_edit_event_number) */
    if (d->keep_events && c->nevents && !kt_spans_reserve(d->events, (size_t)c->nevents)) return KT_ENOMEM;
    if ((in->doc || brackets_in_file(c, in)) &&
        kt_spans_walk_start(walk, in->doc, in->len, (size_t)c->events_open, (size_t)c->events_end, d->events))
        return KT_OK;
    say_damaged(c, err, errlen);
    return KT_EINPUT;
}

/* With src: the events to find through the window (the edited ones and
 * those whose numbers extra reads, want_buf when that merge is made) and
 * room for their numbers (d->nums).                                      */
static kt_status find_numbers_too(const kt_trace_edit *c, kt_edit_doc *d, uint64_t **want_buf)
{
    size_t nk = 0, i = 0, j = 0, n = 0;
    while (c->extra_looks_up && c->lookup_keys[nk]) nk++;
    if (!nk) return KT_OK;
    uint64_t *w = *want_buf = malloc((c->nmarks + c->nlookups + 1) * sizeof *w);
    if (!w) return KT_ENOMEM;
    while (i < c->nmarks || j < c->nlookups) { /* both ascending: merged, once each */
        bool mark = j == c->nlookups || (i < c->nmarks && c->marks[i] <= c->lookups[j]);
        uint64_t next = mark ? c->marks[i] : c->lookups[j];
        i += i < c->nmarks && c->marks[i] == next;
        j += j < c->nlookups && c->lookups[j] == next;
        if (!n || w[n - 1] != next) w[n++] = next;
    }
    d->want = w, d->nwant = n, d->keys = c->lookup_keys, d->nkeys = nk;
    d->nums = malloc((n ? n : 1) * nk * sizeof *d->nums);
    return d->nums ? KT_OK : KT_ENOMEM;
}

/* A gzip input read through the window, held whole after all (its
 * offsets do not fit the loader's): the array is walked in memory.      */
static kt_status stop_streaming(const kt_trace_edit *c, input *in, kt_edit_doc *d, char *err, size_t errlen)
{
    kt_status st = hold_input(c, in, err, errlen);
    d->text = in->doc, d->len = in->len, d->src = NULL, d->nums = NULL;
    d->want = c->marks, d->nwant = c->nmarks;
    return st;
}

kt_status kt_write_trace_edit(const kt_trace_edit *c, kt_edit_result *res, char *err, size_t errlen)
{
    *res = (kt_edit_result){ 0 };
    if (errlen) err[0] = '\0';
    if (same_file(c->in_path, c->out_path)) {
        snprintf(err, errlen, "refusing to overwrite the input %s", c->in_path);
        return KT_EUSAGE;
    }
    input in = { 0 };
    kt_status st = read_all(c, &in, err, errlen);
    if (st != KT_OK) return st;
    if (in.stream) {
        res->held = KT_EDIT_STREAM_PIECE;
        kt_spans none = { 0 };
        kt_edit_doc d = { .text = "", .fd = -1, .events = &none, .stream = in.stream, .path = c->in_path };
        st = write_copy(c, &d, 0, 0, true, res, err, errlen);
        input_free(&in);
        return st;
    }
    kt_spans v = { 0 };
    kt_args_index ai = { 0 };
    kt_spans_walk walk;
    window win = { 0 };
    lookup look = { 0 };
    uint64_t *want = NULL;
    double *nums = NULL;
    kt_edit_doc d = { .text = in.doc, .fd = in.fd, .events = &v, .args = &ai, .src = in.src, .want = c->marks,
                      .nwant = c->nmarks, .look = &look, .path = c->in_path, .len = in.len };
    if (in.src) st = find_numbers_too(c, &d, &want), nums = d.nums;
    size_t last_end = 0;
    bool as_copied = false, sparse = st == KT_OK && edited_spans(c, &in, &d, &ai, &v, &last_end, &as_copied);
    d.win = as_copied ? &win : NULL, d.last_end = last_end;
    if (st == KT_OK && !sparse && in.src) st = stop_streaming(c, &in, &d, err, errlen);
    if (st == KT_OK && in.src) kt_src_start_prefetch(in.src); /* inflated while this thread copies */
    if (st == KT_OK && !sparse) last_end = 0, st = start_walk(c, &in, &d, &walk, &win, err, errlen); /* the walk finds all */
    if (st == KT_OK) st = write_copy(c, &d, last_end, in.len, in.gzip, res, err, errlen);
    if (d.lost || win.behind) { /* the offsets did not fit the file after all */
        *res = (kt_edit_result){ 0 };
        st = in.src ? stop_streaming(c, &in, &d, err, errlen) : KT_OK;
        if (st == KT_OK) st = start_walk(c, &in, &d, &walk, &win, err, errlen);
        if (st == KT_OK) st = write_copy(c, &d, 0, in.len, in.gzip, res, err, errlen);
    }
    res->walked = d.walk != NULL;
    res->held = in.src ? win.cap[0] : d.win ? 2 * PLAIN_WINDOW : in.len;
    free(win.buf[0]);
    free(win.buf[1]);
    free(look.buf);
    free(want);
    free(nums);
    kt_args_index_free(&ai);
    kt_spans_free(&v);
    input_free(&in);
    return st;
}
