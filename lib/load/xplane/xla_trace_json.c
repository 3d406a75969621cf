/*
 * xla_trace_json.c — JAX's `<host>.trace.json.gz` (the Chrome trace
 * jax.profiler writes beside the `.xplane.pb`) into the model.
 *
 * It is the same XSpace flattened: `M` records name each pid after its
 * plane ("/device:GPU:N", "/host:CPU") and each tid after its line
 * ("Stream #17(Kernel)", "Host Threads/583"); `X` events carry no `cat`,
 * their stats are strings in args (correlation_id, hlo_op, hlo_module).
 * So the Kineto parser cannot tell kernels from host calls, and this reader
 * gives the events the meaning xplane.c gives them, through the same
 * rules (xla_common.h): a GPU pid's stream lines are device N's streams,
 * the host's events are launches (with a correlation id) or annotations.
 * Times are µs with up to six decimals (ps): each end is floored to ns as
 * in the .xplane.pb, so both files of a run give the same times.
 *
 * The file is mostly small records in one layout, so a record written as
 * jax.profiler writes it is read in place with the Kineto parser's
 * scanner steps (keys in their usual order first); any other layout, and
 * damage, goes through json_doc.c's general walk, which defines what is
 * read (tests/test_read_xla_trace_fast.c checks that both agree).
 */
#include "load/json_doc.h"
#include "load/readers.h"
#include "model/i64map.h"
#include "xla_common.h"

#include <stdlib.h>

/* An X record as read in the walk: times in ns, its texts interned in the
 * reader's own table (ids into jt.local) while their bytes are at hand;
 * the rank's string table takes them when the event is built, in the
 * order the events are built.                                         */
typedef struct xrec {
    int64_t pid, tid, ts, dur, corr;
    uint32_t name, op, module; /* jt.local ids, KT_NONE: absent        */
    bool timed;                /* ts and dur readable                  */
    bool module_first;         /* hlo_module written before hlo_op     */
} xrec;

/* A growing array of records (X records, or M records' members). */
typedef struct recs {
    void *v;
    size_t n, cap;
    size_t faulted; /* bytes of v faulted in ahead of the records */
} recs;

/* The last text read at a slot of jt.memo: the names of a trace repeat,
 * and a compare with the last one costs less than decoding and hashing. */
typedef struct memo {
    const char *s; /* its span (quotes included) in the document, NULL: none */
    size_t n;
    uint32_t id;
} memo;
#define MEMO_BITS 10

typedef struct jt {
    kt_build *b;
    kt_i64map planes;  /* pid -> kt_xla_plane() + 2 (0: host, 1: other)   */
    kt_i64map threads; /* pid << 32 | tid -> strtab id of the line name    */
    kt_xla_ops ops;    /* GPU events' ops by correlation id               */
    kt_strtab *local;  /* the X records' texts, as read                   */
    uint32_t *global;  /* local id -> the rank's strtab id (KT_NONE: not yet) */
    memo memo[1 << MEMO_BITS];
    char *buf;
    size_t cap;
    uint64_t events, dropped;
} jt;

static uint32_t str_id(jt *j, kt_jv v)
{
    const char *t;
    size_t n;
    return kt_jv_str(v, &j->buf, &j->cap, &t, &n) ? kt_build_str(j->b, t, n) : KT_NONE;
}

static bool text_of(jt *j, kt_jv v, const char **t, size_t *n) { return kt_jv_str(v, &j->buf, &j->cap, t, n); }

/* A text of an X record into the reader's table (KT_NONE: not a string;
 * out of memory sets oom).                                           */
static uint32_t local_id(jt *j, kt_jv v)
{
    if (!v.s) return KT_NONE;
    size_t len = (size_t)(v.e - v.s);
    uint64_t head, tail = 0; /* the span's first and last 8 bytes: its slot */
    memcpy(&head, v.s, 8);   /* readable: the document is followed by zeros */
    if (len >= 8) memcpy(&tail, v.e - 8, 8);
    else head &= ((uint64_t)1 << 8 * len) - 1;
    memo *m = &j->memo[((head ^ tail * 31 ^ len) * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS)];
    if (m->s && m->n == len && !memcmp(m->s, v.s, len)) return m->id;
    const char *t;
    size_t n;
    if (!kt_jv_str(v, &j->buf, &j->cap, &t, &n)) return KT_NONE;
    uint32_t id = kt_strtab_intern(j->local, t, n);
    if (id == KT_NONE) j->b->oom = true;
    else *m = (memo){ v.s, len, id };
    return id;
}

/* The rank's id of a local text, interned at its first use. */
static uint32_t global_id(jt *j, uint32_t local)
{
    if (local == KT_NONE) return KT_NONE;
    if (j->global[local] == KT_NONE)
        j->global[local] = kt_build_str(j->b, kt_strtab_get(j->local, local), kt_strtab_len(j->local, local));
    return j->global[local];
}

/* µs as written (a number or a string of one): whole µs and ps below. */
typedef struct us_ps {
    int64_t us, ps;
} us_ps;

static bool read_us_slow(const char *s, const char *e, us_ps *out)
{
    int64_t us = 0, ps = 0, scale = 100000;
    const char *p = s;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        if (us > INT64_MAX / 10000) return false; /* ns must fit int64 */
        us = us * 10 + (*p - '0');
    }
    if (p == s) return false;
    if (p < e && *p == '.')
        for (p++; p < e && *p >= '0' && *p <= '9'; p++, scale /= 10) ps += scale * (*p - '0'); /* digits past ps: floored */
    if (p != e) return false;
    *out = (us_ps){ us, ps };
    return true;
}

/* The usual "49448050.336": up to 14 whole digits and 6 decimals, 8 digits
 * a step (the document is followed by zero padding); the rest as above. */
static bool read_us(kt_jv v, us_ps *out)
{
    if (!v.s) return false;
    const char *s = v.s, *e = v.e;
    if (*s == '"') s++, e--;
    uint64_t us, frac = 0;
    unsigned n = kt_digits16(s, &us), nd = 0;
    const char *p = s + n;
    if (n == 0 || n > 14 || (p != e && *p != '.')) return read_us_slow(s, e, out);
    if (p != e && (nd = kt_digits8(p + 1, &frac), p + 1 + nd != e || nd > 6)) return read_us_slow(s, e, out);
    *out = (us_ps){ (int64_t)us, (int64_t)(frac * kt_pow10_8[6 - nd]) };
    return true;
}

/* An integer as kt_jv_int reads it: plain digits (quoted or not) here. */
static bool int_of(kt_jv v, int64_t *out)
{
    const char *s = v.s + (*v.s == '"'), *e = v.e - (*v.s == '"');
    uint64_t u;
    unsigned n = kt_digits16(s, &u);
    if (n == 0 || n > 15 || s + n != e || (*s == '0' && n > 1)) return kt_jv_int(v, out);
    *out = (int64_t)u;
    return true;
}

/* A tid as written; host line ids are uint64 (wrapped as xplane.c reads
 * them), so not through the JSON number reader: 8 digits a step, modulo
 * 2^64 as one at a time would wrap them.                               */
static int64_t tid_of(kt_jv v)
{
    const char *p = v.s + (*v.s == '"');
    uint64_t t = 0, x;
    unsigned n;
    do {
        n = kt_digits8(p, &x);
        t = t * kt_pow10_8[n] + x;
        p += n;
    } while (n == 8);
    return (int64_t)t;
}

/* One traceEvents record's members as written: the last of each, but
 * args' name, the first (an M record's label).                       */
typedef struct fields {
    char ph;
    bool module_first;
    int64_t pid, tid, corr;
    kt_jv ts, dur, name, label, op, module;
} fields;

static const fields no_fields = { .pid = INT64_MIN, .corr = -1 };


/* An args member into f. */
static inline void arg_member(fields *f, const kt_pair *pr, kt_jv v)
{
    if (KT_KEY_IS(pr, "correlation_id")) {
        if (!int_of(v, &f->corr)) f->corr = -1;
    } else if (KT_KEY_IS(pr, "hlo_op")) {
        f->op = v;
    } else if (KT_KEY_IS(pr, "hlo_module")) {
        f->module = v;
        f->module_first = !f->op.s;
    } else if (KT_KEY_IS(pr, "name") && !f->label.s) {
        f->label = v;
    }
}

/* The record members read (M_OTHER: any other key). */
typedef enum { M_PH, M_PID, M_TID, M_TS, M_DUR, M_NAME, M_ARGS, M_OTHER } member_id;

static inline member_id member_of(const kt_pair *pr)
{
    switch (pr->klen) {
    case 2: return KT_KEY_IS(pr, "ph") ? M_PH : KT_KEY_IS(pr, "ts") ? M_TS : M_OTHER;
    case 3: return KT_KEY_IS(pr, "pid") ? M_PID : KT_KEY_IS(pr, "tid") ? M_TID : KT_KEY_IS(pr, "dur") ? M_DUR : M_OTHER;
    case 4: return KT_KEY_IS(pr, "name") ? M_NAME : KT_KEY_IS(pr, "args") ? M_ARGS : M_OTHER;
    default: return M_OTHER;
    }
}

/* A record member (other than an args object) into f. */
static inline void record_member(fields *f, member_id m, kt_jv v)
{
    switch (m) {
    case M_PH: f->ph = kt_jv_is(v, '"') && v.e - v.s == 3 ? v.s[1] : 0; break;
    case M_PID:
        if (!int_of(v, &f->pid)) f->pid = INT64_MIN;
        break;
    case M_TID: f->tid = tid_of(v); break;
    case M_TS: f->ts = v; break;
    case M_DUR: f->dur = v; break;
    case M_NAME: f->name = v; break;
    default: break;
    }
}

/* The args of f read anew (the last args object counts). */
static void args_reset(fields *f)
{
    f->corr = -1;
    f->module_first = false;
    f->label = f->op = f->module = (kt_jv){ NULL, NULL };
}

/* ---- the general walk: any layout, damage stops where it starts ---- */

/* The container value v of a walked member, skipped to its end: its
 * exact span (absent when it breaks; the walk then breaks there too). */
static kt_jv skipped(kt_jv v, const char **it)
{
    const char *end;
    unsigned fl;
    if (kt_skip_value(v.s, v.e, true, &end, &fl) != KT_SCAN_OK) return (kt_jv){ NULL, NULL };
    *it = end;
    return (kt_jv){ v.s, end };
}

/* The record's members in one walk; where the walk ended (NULL: not an
 * object, skipped by the caller's walk).                               */
static const char *fields_walked(kt_jv rec, fields *f)
{
    *f = no_fields;
    kt_jv v, args = { NULL, NULL };
    kt_pair pr;
    const char *it = NULL;
    while (kt_jv_walk_member(rec, &it, &pr, &v)) {
        member_id m = member_of(&pr);
        if (m == M_ARGS && kt_jv_is(v, '{')) args = skipped(v, &it);
        else record_member(f, m, v);
    }
    for (const char *a = NULL; kt_jv_next_member(args, &a, &pr, &v);) arg_member(f, &pr, v);
    return it;
}

/* ---- the compact layout jax.profiler writes, in place ---------------- */

/* The next member of o, written "key": value (a plain key right before its
 * colon), its value delimited; false at the '}' (*closed) or otherwise. */
static inline bool next_member(kt_obj *o, kt_pair *pr, bool *closed)
{
    return kt_member_key(o, pr, closed) == KT_SCAN_OK && !*closed && !pr->kflags && pr->key[pr->klen + 1] == ':';
}

/* Past the decimal digits at p, 8 a step (the document is followed by
 * zero padding).                                                       */
static inline const char *digits_end(const char *p)
{
    uint64_t x;
    unsigned n;
    do {
        memcpy(&x, p, 8);
        p += n = kt_leading_digits(x);
    } while (n == 8);
    return p;
}

/* pr's value delimited as kt_member_skip delimits it, without its calls
 * for what jax.profiler writes: strings, integers and decimals (times,
 * 19-digit thread ids).                                              */
static inline bool value_end(kt_obj *o, kt_pair *pr)
{
    const char *p = pr->v, *close;
    unsigned fl;
    if (*p == '"') {
        if ((close = kt_short_plain_string(p, o->end))) pr->vend = close;
        else if (kt_scan_string(p + 1, o->end, true, &close, &fl) == KT_SCAN_OK) pr->vend = close + 1;
        else return false;
        return true;
    }
    if (kt_is_digit(*p)) {
        p = digits_end(p);
        if (*p == '.') p = digits_end(p + 1);
        if (p < o->end && !kt_is_scalar_char(*p)) {
            pr->vend = p;
            return true;
        }
    }
    return kt_member_skip(o, pr) == KT_SCAN_OK;
}

/* The args object at pr->v read in place: pr->vend past its '}'. */
static bool args_in_place(const kt_obj *rec, kt_pair *pr, fields *f)
{
    kt_obj o = { .q = pr->v + 1, .end = rec->end, .eof = true };
    kt_pair a;
    bool closed = false;
    args_reset(f);
    while (!closed) {
        if (!next_member(&o, &a, &closed)) {
            if (closed) break;
            return false;
        }
        if (!value_end(&o, &a)) return false;
        arg_member(f, &a, (kt_jv){ a.v, a.vend });
        if (kt_member_sep(&o, a.vend, &closed) != KT_SCAN_OK) return false;
    }
    pr->vend = o.q;
    return true;
}

/* The keys in the order jax.profiler writes them: each is tried first,
 * one compare instead of a key scan and a dispatch.                   */
static const struct {
    uint64_t w, mask;
    unsigned len;
} jax_order[] = { { KEY2('p', 'h') }, { KEY3('p', 'i', 'd') }, { KEY3('t', 'i', 'd') }, { KEY2('t', 's') },
                  { KEY3('d', 'u', 'r') }, { KEY4('n', 'a', 'm', 'e') }, { KEY4('a', 'r', 'g', 's') } };

/* The next member's key: the expected one (*at then advances), else any. */
static inline bool next_record_member(kt_obj *o, kt_pair *pr, bool *closed, unsigned *at, member_id *m)
{
    if (*at < M_OTHER && kt_member_key_expected(o, pr, jax_order[*at].w, jax_order[*at].mask, jax_order[*at].len)) {
        *m = (member_id)(*at)++;
        return true;
    }
    *at = M_OTHER; /* another layout: no more guesses for this record */
    if (!next_member(o, pr, closed)) return false;
    *m = member_of(pr);
    return true;
}

/* The record at s read in place: past its '}', or NULL where it leaves
 * that layout (the general walk then reads it).                        */
static const char *fields_in_place(const char *s, const char *end, fields *f)
{
    *f = no_fields;
    kt_obj o = { .q = s + 1, .end = end, .eof = true };
    kt_pair pr;
    bool closed = false;
    unsigned at = 0;
    member_id m;
    while (!closed) {
        if (!next_record_member(&o, &pr, &closed, &at, &m)) {
            if (closed) break;
            return NULL;
        }
        if (m == M_ARGS && *pr.v == '{') {
            if (!args_in_place(&o, &pr, f)) return NULL;
        } else if (!value_end(&o, &pr)) {
            return NULL;
        } else {
            record_member(f, m, (kt_jv){ pr.v, pr.vend });
        }
        if (kt_member_sep(&o, pr.vend, &closed) != KT_SCAN_OK) return NULL;
    }
    return o.q;
}

/* One record's members; where the caller's walk goes on (NULL: skip). */
static const char *read_fields(kt_jv rec, fields *f)
{
    const char *end = *rec.s == '{' ? fields_in_place(rec.s, rec.e, f) : NULL;
    return end ? end : fields_walked(rec, f);
}

static bool recs_push(recs *a, const void *x, size_t size)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 1024;
        void *v = realloc(a->v, cap * size);
        if (!v) return false;
        a->v = v;
        a->cap = cap;
    }
    if ((a->n + 1) * size > a->faulted) { /* the pages ahead faulted in at once, 1 MiB at a time */
        size_t to = a->faulted + ((size_t)1 << 20) < a->cap * size ? a->faulted + ((size_t)1 << 20) : a->cap * size;
        kt_prefault((char *)a->v + a->faulted, to - a->faulted);
        a->faulted = to;
    }
    memcpy((char *)a->v + a->n++ * size, x, size);
    return true;
}

/* An X record: its times in ns, its texts interned. */
static bool add_x(jt *j, const fields *f, recs *xs)
{
    xrec x = { .pid = f->pid, .tid = f->tid, .corr = f->corr, .module_first = f->module_first };
    us_ps t, d = { 0, 0 };
    /* ts and ts + dur floored to ns separately (xplane.c's rule) */
    x.timed = read_us(f->ts, &t) && (!kt_jv_ok(f->dur) || read_us(f->dur, &d)) && d.us <= INT64_MAX / 1000 - 1 - t.us;
    if (x.timed) {
        x.ts = t.us * 1000 + t.ps / 1000;
        x.dur = (t.us + d.us) * 1000 + (t.ps + d.ps) / 1000 - x.ts;
    }
    x.name = local_id(j, f->name);
    x.op = local_id(j, f->op);
    x.module = local_id(j, f->module);
    return recs_push(xs, &x, sizeof x) && !j->b->oom;
}

static int64_t plane_of(const jt *j, int64_t pid) { return (int64_t)kt_i64map_get(&j->planes, pid, 1) - 2; }

static int64_t thread_key(int64_t pid, int64_t tid) { return (int64_t)((uint64_t)pid << 32 | (uint32_t)tid); }

/* The M records' names into the plane and line maps. */
static bool name_planes(jt *j, const recs *ms)
{
    bool ok = kt_i64map_init(&j->planes, ms->n) && kt_i64map_init(&j->threads, ms->n);
    for (size_t i = 0; ok && i < ms->n; i++) {
        const fields *x = (const fields *)ms->v + i;
        const char *w, *name;
        size_t wn, nn;
        if (!text_of(j, x->name, &w, &wn)) continue;
        bool proc = wn == 12 && !memcmp(w, "process_name", 12), thread = wn == 11 && !memcmp(w, "thread_name", 11);
        if (proc && text_of(j, x->label, &name, &nn)) *kt_i64map_slot(&j->planes, x->pid, 1) = (uint32_t)(kt_xla_plane(name, nn) + 2);
        else if (thread) *kt_i64map_slot(&j->threads, thread_key(x->pid, x->tid), KT_NONE) = str_id(j, x->label);
    }
    return ok;
}

/* The next record: where a ',' and an object follow the one just read,
 * taken as kt_jv_walk takes it, without its steps; else through it.   */
static inline bool next_record(kt_jv events, const char **it, kt_jv *rec)
{
    const char *q = *it ? kt_skip_ws(*it, events.e) : events.e;
    if (q < events.e && *q == ',' && (q = kt_skip_ws(q + 1, events.e)) < events.e && *q == '{') {
        *rec = (kt_jv){ q, events.e };
        *it = q;
        return true;
    }
    return kt_jv_walk(events, it, rec);
}

/* Every record read once, in one walk: the X records into xs, the M
 * records' names into the plane and line maps.  *end: where the walk
 * ended.                                                               */
static bool read_records(jt *j, kt_jv events, recs *xs, const char **end)
{
    recs ms = { 0 };
    const char *it = NULL, *rec_end;
    kt_jv rec;
    bool ok = true;
    while (ok && next_record(events, &it, &rec)) {
        fields f;
        if ((rec_end = read_fields(rec, &f))) it = rec_end;
        if (f.pid == INT64_MIN) continue;
        if (f.ph == 'X') ok = add_x(j, &f, xs);
        else if (f.ph == 'M') ok = recs_push(&ms, &f, sizeof f);
    }
    *end = it;
    ok = ok && name_planes(j, &ms) && (j->global = malloc((kt_strtab_count(j->local) + 1) * sizeof *j->global));
    if (ok) memset(j->global, 0xff, (kt_strtab_count(j->local) + 1) * sizeof *j->global); /* KT_NONE */
    free(ms.v);
    return ok && !j->b->oom;
}

/* The XLA op a record names, interned in the order it wrote them. */
static kt_xla_op xla_op(jt *j, const xrec *x)
{
    kt_xla_op op;
    if (x->module_first) op.module = global_id(j, x->module), op.op = global_id(j, x->op);
    else op.op = global_id(j, x->op), op.module = global_id(j, x->module);
    return op;
}

/* A GPU pid's event: on a stream line (or an unnamed one: tid = stream). */
static void gpu_event(jt *j, const xrec *x, int64_t device)
{
    uint32_t line = kt_i64map_get(&j->threads, thread_key(x->pid, x->tid), KT_NONE);
    const char *lname = line != KT_NONE ? kt_strtab_get(j->b->strs, line) : "";
    int64_t stream = line != KT_NONE ? kt_xla_stream(lname, strlen(lname)) : x->tid;
    if (stream < 0) return; /* XLA Ops, XLA Modules, Steps: derived lines */
    uint32_t name = global_id(j, x->name);
    kt_gpu_op op = kt_gpu_op_blank(kt_xla_gpu_kind(lname, strlen(lname), name != KT_NONE ? kt_strtab_get(j->b->strs, name) : ""));
    op.name = name;
    op.device = device;
    op.stream = stream;
    op.ts = x->ts;
    op.dur = x->dur;
    op.corr = x->corr;
    kt_build_gpu(j->b, &op);
    if (!kt_xla_ops_add(&j->ops, op.corr, xla_op(j, x))) j->b->oom = true;
    j->events++;
}

static void host_event(jt *j, const xrec *x)
{
    kt_host_op h = { .name = global_id(j, x->name), .pid = KT_XLA_HOST_PID, .tid = x->tid, .ts = x->ts, .dur = x->dur,
                     .corr = x->corr };
    kt_xla_op op = xla_op(j, x);
    kt_xla_host_event(j->b, &h, op.op != KT_NONE ? op : kt_xla_ops_get(&j->ops, h.corr));
    j->events++;
}

/* Rows for the events to build: each GPU op with the launch that wraps
 * it in its op and module and their flow pair, and the host's events. */
static void expect_rows(jt *j, const recs *xs)
{
    size_t gpu = 0, host = 0;
    int64_t pid = INT64_MIN, plane = -1;
    for (size_t i = 0; i < xs->n; i++) {
        const xrec *x = (const xrec *)xs->v + i;
        if (x->pid != pid) pid = x->pid, plane = plane_of(j, pid);
        gpu += plane >= 0;
        host += plane == KT_XLA_HOST;
    }
    kt_build_expect(j->b, 5 * gpu + host, gpu);
}

/* The X events of GPU planes (host false) or of the host plane (true). */
static void read_events(jt *j, const recs *xs, bool host)
{
    int64_t pid = INT64_MIN, plane = -1; /* the last record's: runs of one pid */
    for (size_t i = 0; i < xs->n && !j->b->oom; i++) {
        const xrec *x = (const xrec *)xs->v + i;
        if (x->pid != pid) pid = x->pid, plane = plane_of(j, pid);
        if (plane == -1 || (plane == KT_XLA_HOST) != host) continue;
        if (!x->timed) j->dropped++;
        else if (host) host_event(j, x);
        else gpu_event(j, x, plane);
    }
}

/* The traceEvents list, in one walk over the document (no pass to check
 * it first: where the walk breaks, the file is cut short or broken).  */
kt_status kt_read_xla_trace_json(const kt_reader_in *in, kt_build *b)
{
    kt_jv root = kt_jv_walk_root(in->data, in->len), events = { NULL, NULL }, v;
    const char *it = NULL;
    kt_pair pr;
    while (!events.s && kt_jv_walk_member(root, &it, &pr, &v))
        if (KT_KEY_IS(&pr, "traceEvents") && kt_jv_is(v, '[')) events = v;
    if (!events.s) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "a JAX trace without a \"traceEvents\" list");
        return KT_EINPUT;
    }
    kt_build_source(b, "JAX Chrome trace JSON", "JAX/XLA profiler", NULL);
    jt j = { .b = b, .local = kt_strtab_new() };
    recs xs = { 0 };
    const char *end;
    bool ok = j.local && read_records(&j, events, &xs, &end);
    if (ok) it = end;
    while (ok && kt_jv_walk_member(root, &it, &pr, &v)) continue; /* to the document's end */
    if (ok) expect_rows(&j, &xs);
    if (ok) read_events(&j, &xs, false);
    if (ok) read_events(&j, &xs, true);
    free(xs.v);
    free(j.global);
    if (j.local) kt_strtab_free(j.local);
    kt_i64map_free(&j.planes);
    kt_i64map_free(&j.threads);
    kt_xla_ops_free(&j.ops);
    free(j.buf);
    if (!ok || b->oom) return KT_ENOMEM;
    if (j.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu events without a readable ts/dur (skipped)",
                     (unsigned long long)j.dropped);
    if (kt_jv_walk_broke(root, it))
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, (int64_t)in->len,
                     "the JSON is cut short or broken before byte %lld: kept the %llu events read before it",
                     (long long)in->len, (unsigned long long)j.events);
    if (b->r->ev.n == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "a JAX trace with no GPU or host events");
        return KT_EINPUT;
    }
    return KT_OK;
}
