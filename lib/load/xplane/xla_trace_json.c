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
 */
#include "load/json_doc.h"
#include "load/readers.h"
#include "model/i64map.h"
#include "xla_common.h"

#include <stdlib.h>

typedef struct jt {
    kt_build *b;
    kt_i64map planes;  /* pid -> kt_xla_plane() + 2 (0: host, 1: other)   */
    kt_i64map threads; /* pid << 32 | tid -> strtab id of the line name    */
    kt_xla_ops ops;    /* GPU events' ops by correlation id               */
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

/* µs as written (a number or a string of one): whole µs and ps below. */
typedef struct us_ps {
    int64_t us, ps;
} us_ps;

static bool read_us(kt_jv v, us_ps *out)
{
    if (!v.s) return false;
    const char *s = v.s, *e = v.e;
    if (*s == '"') s++, e--;
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

/* A tid as written; host line ids are uint64 (wrapped as xplane.c reads
 * them), so not through the JSON number reader.                        */
static int64_t tid_of(kt_jv v)
{
    uint64_t t = 0;
    for (const char *p = v.s ? v.s + (*v.s == '"') : NULL; p && p < v.e && *p >= '0' && *p <= '9'; p++)
        t = t * 10 + (uint64_t)(*p - '0');
    return (int64_t)t;
}

/* One traceEvents record, its members read in one pass. */
typedef struct xev {
    char ph;
    bool timed;           /* ts and dur readable                      */
    int64_t pid, tid, ts, dur;
    kt_jv name, args;
} xev;

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
static const char *read_record(kt_jv rec, xev *x)
{
    *x = (xev){ .pid = INT64_MIN };
    kt_jv v, ts = { 0 }, dur = { 0 };
    kt_pair pr;
    const char *it = NULL;
    while (kt_jv_walk_member(rec, &it, &pr, &v)) {
        if (KT_KEY_IS(&pr, "ph")) x->ph = kt_jv_is(v, '"') && v.e - v.s == 3 ? v.s[1] : 0;
        else if (KT_KEY_IS(&pr, "pid") && !kt_jv_int(v, &x->pid)) x->pid = INT64_MIN;
        else if (KT_KEY_IS(&pr, "tid")) x->tid = tid_of(v);
        else if (KT_KEY_IS(&pr, "ts")) ts = v;
        else if (KT_KEY_IS(&pr, "dur")) dur = v;
        else if (KT_KEY_IS(&pr, "name")) x->name = v;
        else if (KT_KEY_IS(&pr, "args") && kt_jv_is(v, '{')) x->args = skipped(v, &it);
    }
    us_ps t, d = { 0, 0 };
    /* ts and ts + dur floored to ns separately (xplane.c's rule) */
    x->timed = read_us(ts, &t) && (!kt_jv_ok(dur) || read_us(dur, &d)) && d.us <= INT64_MAX / 1000 - 1 - t.us;
    if (x->timed) {
        x->ts = t.us * 1000 + t.ps / 1000;
        x->dur = (t.us + d.us) * 1000 + (t.ps + d.ps) / 1000 - x->ts;
    }
    return it;
}

/* An X event's args: correlation id and XLA op. */
static int64_t read_args(jt *j, kt_jv args, kt_xla_op *op)
{
    int64_t corr = -1;
    *op = (kt_xla_op){ KT_NONE, KT_NONE };
    kt_jv v;
    kt_pair pr;
    for (const char *it = NULL; kt_jv_next_member(args, &it, &pr, &v);) {
        if (KT_KEY_IS(&pr, "correlation_id")) corr = kt_jv_int_or(v, -1);
        else if (KT_KEY_IS(&pr, "hlo_op")) op->op = str_id(j, v);
        else if (KT_KEY_IS(&pr, "hlo_module")) op->module = str_id(j, v);
    }
    return corr;
}

static int64_t plane_of(const jt *j, int64_t pid) { return (int64_t)kt_i64map_get(&j->planes, pid, 1) - 2; }

static int64_t thread_key(int64_t pid, int64_t tid) { return (int64_t)((uint64_t)pid << 32 | (uint32_t)tid); }

/* A growing array of records. */
typedef struct xevs {
    xev *v;
    size_t n, cap;
} xevs;

static bool xevs_push(xevs *a, const xev *x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 1024;
        xev *v = realloc(a->v, cap * sizeof *v);
        if (!v) return false;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = *x;
    return true;
}

/* Every record read once, in one walk: the X records into xs, the M
 * records' names into the plane and line maps.  *end: where the walk
 * ended.                                                               */
static bool read_records(jt *j, kt_jv events, xevs *xs, const char **end)
{
    xevs ms = { 0 };
    const char *it = NULL, *rec_end;
    kt_jv rec;
    bool ok = true;
    while (ok && kt_jv_walk(events, &it, &rec)) {
        xev x;
        if ((rec_end = read_record(rec, &x))) it = rec_end;
        if (x.pid != INT64_MIN && (x.ph == 'X' || x.ph == 'M')) ok = xevs_push(x.ph == 'X' ? xs : &ms, &x);
    }
    *end = it;
    ok = ok && kt_i64map_init(&j->planes, ms.n) && kt_i64map_init(&j->threads, ms.n);
    for (size_t i = 0; ok && i < ms.n; i++) {
        const xev *x = &ms.v[i];
        const char *w, *name;
        size_t wn, nn;
        kt_jv label = kt_jv_get(x->args, "name");
        if (!text_of(j, x->name, &w, &wn)) continue;
        bool proc = wn == 12 && !memcmp(w, "process_name", 12), thread = wn == 11 && !memcmp(w, "thread_name", 11);
        if (proc && text_of(j, label, &name, &nn)) *kt_i64map_slot(&j->planes, x->pid, 1) = (uint32_t)(kt_xla_plane(name, nn) + 2);
        else if (thread) *kt_i64map_slot(&j->threads, thread_key(x->pid, x->tid), KT_NONE) = str_id(j, label);
    }
    free(ms.v);
    return ok && !j->b->oom;
}

/* A GPU pid's event: on a stream line (or an unnamed one: tid = stream). */
static void gpu_event(jt *j, const xev *x, int64_t device)
{
    uint32_t line = kt_i64map_get(&j->threads, thread_key(x->pid, x->tid), KT_NONE);
    const char *lname = line != KT_NONE ? kt_strtab_get(j->b->strs, line) : "";
    int64_t stream = line != KT_NONE ? kt_xla_stream(lname, strlen(lname)) : x->tid;
    if (stream < 0) return; /* XLA Ops, XLA Modules, Steps: derived lines */
    uint32_t name = str_id(j, x->name);
    kt_gpu_op op = kt_gpu_op_blank(kt_xla_gpu_kind(lname, strlen(lname), name != KT_NONE ? kt_strtab_get(j->b->strs, name) : ""));
    kt_xla_op xop;
    op.name = name;
    op.device = device;
    op.stream = stream;
    op.ts = x->ts;
    op.dur = x->dur;
    op.corr = read_args(j, x->args, &xop);
    kt_build_gpu(j->b, &op);
    if (!kt_xla_ops_add(&j->ops, op.corr, xop)) j->b->oom = true;
    j->events++;
}

static void host_event(jt *j, const xev *x)
{
    kt_xla_op op;
    kt_host_op h = { .name = str_id(j, x->name), .pid = KT_XLA_HOST_PID, .tid = x->tid, .ts = x->ts, .dur = x->dur };
    h.corr = read_args(j, x->args, &op);
    kt_xla_host_event(j->b, &h, op.op != KT_NONE ? op : kt_xla_ops_get(&j->ops, h.corr));
    j->events++;
}

/* The X events of GPU planes (host false) or of the host plane (true). */
static void read_events(jt *j, const xevs *xs, bool host)
{
    int64_t pid = INT64_MIN, plane = -1; /* the last record's: runs of one pid */
    for (size_t i = 0; i < xs->n && !j->b->oom; i++) {
        const xev *x = &xs->v[i];
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
    jt j = { .b = b };
    xevs xs = { 0 };
    const char *end;
    bool ok = read_records(&j, events, &xs, &end);
    if (ok) it = end;
    while (ok && kt_jv_walk_member(root, &it, &pr, &v)) continue; /* to the document's end */
    if (ok) read_events(&j, &xs, false);
    if (ok) read_events(&j, &xs, true);
    free(xs.v);
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
