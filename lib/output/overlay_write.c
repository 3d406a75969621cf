/*
 * overlay_write.c — see overlay_write.h.
 *
 * The appended events follow the formats of the tools whose files users
 * already read: HTA's flow arrows ({"ph": "s"|"f", "id", "pid", "tid",
 * "ts", "cat", "name", "args": {"weight", "critical", "type"}}, "bp": "e"
 * on the "f") and HTA's counter events ({"ph": "C", "name", "pid", "ts",
 * "id"?, "args"}).  Numbers are written without printf where it showed in
 * profiles (a gigabyte's counter tracks are millions of events).
 */
#include "output/overlay_write.h"
#include "output/trace_edit.h"
#include "model/json_number.h"
#include "model/radix.h"
#include "table/number_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct writing {
    const kt_trace *t;
    const kt_rank *r;
    const kt_overlay *o;
    size_t next_edit;        /* the edits, met in file order   */
    size_t next_event;       /* appended: 2 per arrow, then the samples */
} writing;

static void edit_event(void *user, uint64_t args_off, kt_event_edit *e)
{
    writing *w = user;
    const kt_overlay *o = w->o;
    while (w->next_edit < o->nedits && o->edits[w->next_edit].args_off < args_off) w->next_edit++;
    if (w->next_edit >= o->nedits || o->edits[w->next_edit].args_off != args_off) return;
    const kt_overlay_edit *x = &o->edits[w->next_edit];
    if (x->args_len) e->add_args = o->text + x->args, e->add_args_len = x->args_len;
    if (x->rename) e->name = o->text + x->name, e->name_len = x->name_len;
}

static size_t put_text(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return n;
}

/* A model id as written: a number, or a string id as a JSON string
 * (escaped, at most ~200 bytes of it).                                   */
static size_t put_id(char *b, const kt_trace *t, int64_t id)
{
    if (!kt_id_is_str(id)) return kt_int_text(b, id);
    const char *s = kt_strtab_get(t->strs, kt_id_str(id));
    size_t k = 0;
    b[k++] = '"';
    for (; *s && k < 200; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') b[k++] = '\\', b[k++] = (char)ch;
        else if (ch < 0x20) k += (size_t)snprintf(b + k, 8, "\\u%04x", ch);
        else b[k++] = (char)ch;
    }
    b[k++] = '"';
    return k;
}

/* ns as µs: three decimals always (decimals) or only when not whole. */
static size_t put_ts(char *b, int64_t ns, bool decimals)
{
    int64_t us = ns / 1000, frac = ns % 1000;
    if (frac < 0) us--, frac += 1000;
    size_t n = kt_int_text(b, us);
    if (!decimals && frac == 0) return n;
    b[n++] = '.';
    for (int i = 2; i >= 0; i--, frac /= 10) b[n + (size_t)i] = (char)('0' + frac % 10);
    return n + 3;
}

/* Shortest round-trip form; whole values (half the points of a copy
 * kind's idle stretches are 0) without printf.  JSON needs '.' as the
 * radix whatever LC_NUMERIC the host program set (json_number.h).        */
static size_t put_double(char *b, double v)
{
    if (v >= 0 && v < 1e15 && !signbit(v) && v == (double)(int64_t)v) return kt_int_text(b, (int64_t)v);
    int n = kt_c_snprintf(b, 40, "%.15g", v);
    kt_num back;
    if (n > 0 && n < 40 && kt_parse_number(b, b + n, &back) && back.f != v) n = kt_c_snprintf(b, 40, "%.17g", v);
    return n > 0 ? (size_t)n : 0;
}

/* Where an arrow end lands, in µs: from the file's numbers when it has
 * them (HTA computes from the float µs written), else the plan's.       */
static int64_t point_ts(const kt_overlay_point *p, const kt_edit_doc *d)
{
    double ts, dur;
    if (!p->args_off || !kt_edit_event_number(d, p->args_off, "ts", &ts) ||
        !kt_edit_event_number(d, p->args_off, "dur", &dur))
        return p->ts_us;
    if (!p->at_end) return (int64_t)ts;
    double end = ts + dur, inset = (double)p->inset_us;
    if (p->inset_us > 0) end -= dur < inset ? dur : inset;
    return (int64_t)end;
}

static size_t arrow_event(const writing *w, const kt_edit_doc *d, const kt_overlay_arrow *a, size_t id, bool start,
                          char *b)
{
    const kt_overlay_point *p = start ? &a->from : &a->to;
    size_t n = put_text(b, start ? ",\n{\"ph\": \"s\", \"id\": " : ",\n{\"ph\": \"f\", \"id\": ");
    n += kt_int_text(b + n, (int64_t)id);
    n += put_text(b + n, ", \"pid\": ");
    n += put_id(b + n, w->t, p->pid);
    n += put_text(b + n, ", \"tid\": ");
    n += put_id(b + n, w->t, p->tid);
    n += put_text(b + n, ", \"ts\": ");
    n += kt_int_text(b + n, point_ts(p, d));
    n += put_text(b + n, ", \"cat\": \"");
    n += put_text(b + n, w->o->arrow_cat);
    n += put_text(b + n, "\", \"name\": \"");
    n += put_text(b + n, w->o->arrow_cat);
    n += put_text(b + n, "\", \"args\": {\"weight\": ");
    n += kt_int_text(b + n, a->weight_us);
    n += put_text(b + n, a->critical ? ", \"critical\": true, \"type\": \"" : ", \"critical\": false, \"type\": \"");
    n += put_text(b + n, a->type);
    n += put_text(b + n, start ? "\"}}" : "\"}, \"bp\": \"e\"}");
    return n;
}

static size_t put_value(char *b, const kt_counter_track *tr, kt_counter_value v)
{
    return tr->floats ? put_double(b, v.f) : kt_int_text(b, v.i);
}

static size_t sample_event(const writing *w, const kt_counter_sample *s, char *b)
{
    const kt_overlay *o = w->o;
    const kt_counter_track *tr = &o->tracks[s->track];
    size_t n = put_text(b, ",\n  {\"ph\": \"C\", \"name\": \"");
    memcpy(b + n, o->text + tr->name, tr->name_len);
    n += tr->name_len;
    n += put_text(b + n, "\", \"pid\": ");
    n += put_id(b + n, w->t, s->pid);
    n += put_text(b + n, ", \"ts\": ");
    n += put_ts(b + n, s->ts, tr->ts_decimals);
    if (tr->with_id) {
        n += put_text(b + n, ", \"id\": ");
        n += kt_int_text(b + n, s->id);
    }
    for (size_t k = 0; k < 2 && tr->keys[k]; k++) {
        n += put_text(b + n, k ? ", \"" : ", \"args\": {\"");
        n += put_text(b + n, tr->keys[k]);
        n += put_text(b + n, "\": ");
        n += put_value(b + n, tr, s->v[k]);
    }
    n += put_text(b + n, "}}");
    return n;
}

/* Room the next appended event may need: an arrow end's two ids take up
 * to ~200 bytes each (KT_EDIT_EVENT_MAX); a counter sample at most ~450
 * and its track's name.  The samples' 512 is what the counter tracks
 * always left, so their chunks, and a gzip copy's deflate calls and
 * bytes, stay as they were.                                              */
static size_t room_for(const writing *w, size_t i)
{
    const kt_overlay *o = w->o;
    if (i < 2 * o->narrows) return KT_EDIT_EVENT_MAX;
    size_t named = 448 + o->tracks[o->samples[i - 2 * o->narrows].track].name_len;
    return named > 512 ? named : 512;
}

/* The trace_edit extra: the arrows' two ends, then the samples. */
static size_t appended_text(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    writing *w = user;
    const kt_overlay *o = w->o;
    size_t n = 0, total = 2 * o->narrows + o->nsamples;
    while (w->next_event < total && cap - n > room_for(w, w->next_event)) {
        size_t i = w->next_event++;
        n += i < 2 * o->narrows ? arrow_event(w, d, &o->arrows[i / 2], i / 2, i % 2 == 0, buf + n)
                                : sample_event(w, &o->samples[i - 2 * o->narrows], buf + n);
    }
    return n;
}

/* The events whose numbers the arrows read (point_ts): their args
 * objects, ascending, once each (malloc'd; *n of them), or NULL.        */
static uint64_t *arrow_ends(const kt_overlay *o, size_t *n)
{
    uint64_t *at = malloc((2 * o->narrows + 1) * sizeof *at);
    *n = 0;
    for (size_t k = 0; at && k < 2 * o->narrows; k++) {
        uint64_t off = k % 2 ? o->arrows[k / 2].to.args_off : o->arrows[k / 2].from.args_off;
        if (off) at[(*n)++] = off;
    }
    if (at && !kt_radix_sort(at, NULL, *n)) {
        free(at);
        return NULL;
    }
    size_t w = 0;
    for (size_t k = 0; at && k < *n; k++)
        if (!w || at[k] != at[w - 1]) at[w++] = at[k];
    *n = w;
    return at;
}

kt_status kt_write_overlay(const kt_trace *t, const kt_rank *r, const kt_overlay *o, const char *out_path,
                           kt_overlay_written *res, char *err, size_t errlen)
{
    *res = (kt_overlay_written){ 0 };
    if (!r->events_end) {
        snprintf(err, errlen, "%s: the end of traceEvents was not found (file cut off?)", r->file);
        return KT_EINPUT;
    }
    static const char *const point_keys[] = { "ts", "dur", NULL };
    size_t nends = 0;
    uint64_t *marks = malloc((o->nedits ? o->nedits : 1) * sizeof *marks), *ends = arrow_ends(o, &nends);
    if (!marks || !ends) {
        free(marks);
        free(ends);
        return KT_ENOMEM;
    }
    for (size_t k = 0; k < o->nedits; k++) marks[k] = o->edits[k].args_off;
    writing w = { .t = t, .r = r, .o = o };
    bool appends = o->narrows || o->nsamples;
    kt_trace_edit c = { .in_path = r->file, .events_open = r->events_open, .events_end = r->events_end,
                        .nevents = r->total_events, .args_at = r->ev.args_at, .nargs = r->ev.n,
                        .out_path = out_path, .marks = marks, .nmarks = o->nedits, .edit = edit_event,
                        .only_marked = o->only_marked, .keep_cats = o->keep_cats,
                        .extra = appends ? appended_text : NULL, .extra_at_close = o->nsamples > 0,
                        .extra_looks_up = o->narrows > 0, .lookups = ends, .nlookups = nends,
                        .lookup_keys = point_keys, .user = &w };
    kt_edit_result done;
    kt_status s = kt_write_trace_edit(&c, &done, err, errlen);
    res->edited = done.edited;
    res->json_bytes = done.json_bytes;
    free(marks);
    free(ends);
    return s;
}
