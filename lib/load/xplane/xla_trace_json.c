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
    kt_i64map threads; /* GPU pid << 32 | tid -> strtab id of the line name */
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

/* ts and ts + dur floored to ns separately (xplane.c's rule). */
static bool event_times(kt_jv ev, int64_t *ts, int64_t *dur)
{
    us_ps t, d = { 0, 0 };
    if (!read_us(kt_jv_get(ev, "ts"), &t)) return false;
    kt_jv dv = kt_jv_get(ev, "dur");
    if (kt_jv_ok(dv) && !read_us(dv, &d)) return false;
    if (d.us > INT64_MAX / 1000 - 1 - t.us) return false;
    *ts = t.us * 1000 + t.ps / 1000;
    *dur = (t.us + d.us) * 1000 + (t.ps + d.ps) / 1000 - *ts;
    return true;
}

/* A tid as written; host line ids are uint64 (wrapped as xplane.c reads
 * them), so not through the JSON number reader.                        */
static int64_t tid_of(kt_jv ev)
{
    kt_jv v = kt_jv_get(ev, "tid");
    uint64_t t = 0;
    for (const char *p = v.s ? v.s + (*v.s == '"') : NULL; p && p < v.e && *p >= '0' && *p <= '9'; p++)
        t = t * 10 + (uint64_t)(*p - '0');
    return (int64_t)t;
}

static int64_t plane_of(const jt *j, int64_t pid) { return (int64_t)kt_i64map_get(&j->planes, pid, 1) - 2; }

static int64_t thread_key(int64_t pid, int64_t tid) { return (int64_t)((uint64_t)pid << 32 | (uint32_t)tid); }

/* The M records: planes by pid, GPU lines by (pid, tid). */
static bool read_names(jt *j, kt_jv events)
{
    size_t n = 0;
    const char *it = NULL;
    kt_jv ev;
    while (kt_jv_next(events, &it, &ev)) n += kt_jv_is(kt_jv_get(ev, "ph"), '"') && kt_jv_get(ev, "ph").s[1] == 'M';
    if (!kt_i64map_init(&j->planes, n) || !kt_i64map_init(&j->threads, n)) return false;
    for (it = NULL; kt_jv_next(events, &it, &ev);) {
        kt_jv ph = kt_jv_get(ev, "ph"), what = kt_jv_get(ev, "name");
        const char *w, *name;
        size_t wn, nn;
        int64_t pid;
        if (!kt_jv_is(ph, '"') || ph.s[1] != 'M' || !kt_jv_int(kt_jv_get(ev, "pid"), &pid) || !text_of(j, what, &w, &wn))
            continue;
        bool proc = wn == 12 && !memcmp(w, "process_name", 12), thread = wn == 11 && !memcmp(w, "thread_name", 11);
        kt_jv label = kt_jv_get(kt_jv_get(ev, "args"), "name");
        if (proc && text_of(j, label, &name, &nn)) *kt_i64map_slot(&j->planes, pid, 1) = (uint32_t)(kt_xla_plane(name, nn) + 2);
        else if (thread) *kt_i64map_slot(&j->threads, thread_key(pid, tid_of(ev)), KT_NONE) = str_id(j, label);
    }
    return !j->b->oom;
}

static kt_xla_op op_of(jt *j, kt_jv args)
{
    return (kt_xla_op){ str_id(j, kt_jv_get(args, "hlo_op")), str_id(j, kt_jv_get(args, "hlo_module")) };
}

/* A GPU pid's event: on a stream line (or an unnamed one: tid = stream). */
static void gpu_event(jt *j, kt_jv ev, int64_t device, int64_t tid, int64_t ts, int64_t dur)
{
    uint32_t line = kt_i64map_get(&j->threads, thread_key(kt_jv_int_or(kt_jv_get(ev, "pid"), 0), tid), KT_NONE);
    const char *lname = line != KT_NONE ? kt_strtab_get(j->b->strs, line) : "";
    int64_t stream = line != KT_NONE ? kt_xla_stream(lname, strlen(lname)) : tid;
    if (stream < 0) return; /* XLA Ops, XLA Modules, Steps: derived lines */
    kt_jv args = kt_jv_get(ev, "args");
    uint32_t name = str_id(j, kt_jv_get(ev, "name"));
    kt_gpu_op op = kt_gpu_op_blank(kt_xla_gpu_kind(lname, strlen(lname), name != KT_NONE ? kt_strtab_get(j->b->strs, name) : ""));
    op.name = name;
    op.device = device;
    op.stream = stream;
    op.ts = ts;
    op.dur = dur;
    op.corr = kt_jv_int_or(kt_jv_get(args, "correlation_id"), -1);
    kt_build_gpu(j->b, &op);
    if (!kt_xla_ops_add(&j->ops, op.corr, op_of(j, args))) j->b->oom = true;
    j->events++;
}

static void host_event(jt *j, kt_jv ev, int64_t tid, int64_t ts, int64_t dur)
{
    kt_jv args = kt_jv_get(ev, "args");
    kt_host_op h = { .name = str_id(j, kt_jv_get(ev, "name")), .pid = KT_XLA_HOST_PID, .tid = tid, .ts = ts, .dur = dur,
                     .corr = kt_jv_int_or(kt_jv_get(args, "correlation_id"), -1) };
    kt_xla_op op = op_of(j, args);
    kt_xla_host_event(j->b, &h, op.op != KT_NONE ? op : kt_xla_ops_get(&j->ops, h.corr));
    j->events++;
}

/* The X events of GPU planes (host false) or of the host plane (true). */
static void read_events(jt *j, kt_jv events, bool host)
{
    const char *it = NULL;
    kt_jv ev;
    while (kt_jv_next(events, &it, &ev) && !j->b->oom) {
        kt_jv ph = kt_jv_get(ev, "ph");
        int64_t pid, ts, dur;
        if (!kt_jv_is(ph, '"') || ph.s[1] != 'X' || !kt_jv_int(kt_jv_get(ev, "pid"), &pid)) continue;
        int64_t plane = plane_of(j, pid);
        if (plane == -1 || (plane == KT_XLA_HOST) != host) continue;
        if (!event_times(ev, &ts, &dur)) {
            j->dropped++;
            continue;
        }
        int64_t tid = tid_of(ev);
        if (host) host_event(j, ev, tid, ts, dur);
        else gpu_event(j, ev, plane, tid, ts, dur);
    }
}

kt_status kt_read_xla_trace_json(const kt_reader_in *in, kt_build *b)
{
    int64_t damaged;
    kt_jv events = kt_jv_get(kt_jv_root(in->data, in->len, &damaged), "traceEvents");
    if (!kt_jv_is(events, '[')) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "a JAX trace without a \"traceEvents\" list");
        return KT_EINPUT;
    }
    kt_build_source(b, "JAX Chrome trace JSON", "JAX/XLA profiler", NULL);
    jt j = { .b = b };
    bool ok = read_names(&j, events);
    if (ok) read_events(&j, events, false);
    if (ok) read_events(&j, events, true);
    kt_i64map_free(&j.planes);
    kt_i64map_free(&j.threads);
    kt_xla_ops_free(&j.ops);
    free(j.buf);
    if (!ok || b->oom) return KT_ENOMEM;
    if (j.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu events without a readable ts/dur (skipped)",
                     (unsigned long long)j.dropped);
    if (damaged >= 0)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, damaged,
                     "the JSON is cut short or broken before byte %lld: kept the %llu events read before it",
                     (long long)damaged, (unsigned long long)j.events);
    if (b->r->ev.n == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "a JAX trace with no GPU or host events");
        return KT_EINPUT;
    }
    return KT_OK;
}
