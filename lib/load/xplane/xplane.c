/*
 * xplane.c — a JAX/XLA profile (`.xplane.pb`, a protobuf XSpace) into the
 * model, with the wire reader of pb_wire.h (field numbers: tensorflow/tsl
 * xplane.proto).
 *
 * Planes "/device:GPU:N" are device N; their "Stream #S(...)" lines are
 * stream S, each event a kernel (or a copy / set when the line or the
 * event is named so).  The host plane's lines are threads (tid = line id);
 * an event with a correlation_id stat is the runtime call that launched
 * the GPU event of the same id, the others are annotations.  The hlo_op
 * and hlo_module stats of a launch (or of its GPU event) name the ops
 * around the call (xla_common.h); GPU planes are read before the host
 * plane so a launch finds its GPU event's op.  An event's
 * time is line.timestamp_ns + offset_ps: kept in ns by flooring its start
 * and its end separately (a duration never drifts from the two ends).
 */
#include "load/readers.h"
#include "model/i64map.h"
#include "pb_wire.h"
#include "xla_common.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct xplane {
    kt_build *b;
    kt_i64map names;     /* event metadata id -> strtab id of its name  */
    kt_i64map stats;     /* stat metadata id -> strtab id of its name   */
    uint32_t corr_name, op_name, module_name; /* the stats read, by name */
    kt_xla_ops ops;      /* GPU events' ops by correlation id           */
    uint64_t events, dropped;
    bool damaged;
} xplane;

static uint32_t text_id(xplane *x, const kt_pb *s) { return kt_build_str(x->b, (const char *)s->p, kt_pb_len(s)); }

/* A map entry (key = 1, value = 2). */
static bool map_entry(kt_pb m, int64_t *key, kt_pb *value)
{
    kt_pb_field f;
    bool have = false;
    *key = 0;
    while (kt_pb_next(&m, &f)) {
        if (f.num == 1 && f.wire == 0) *key = (int64_t)f.v;
        if (f.num == 2 && f.wire == 2) *value = f.sub, have = true;
    }
    return have;
}

/* The message's field 2 (both metadata kinds keep their name there). */
static kt_pb name_of(kt_pb m)
{
    kt_pb_field f;
    kt_pb name = { 0 };
    while (kt_pb_next(&m, &f))
        if (f.num == 2 && f.wire == 2) name = f.sub;
    return name;
}

/* The plane's event and stat names (a stat's ref_value is the name of
 * the stat metadata it refers to). */
static bool read_metadata(xplane *x, kt_pb plane)
{
    size_t n[2] = { 0, 0 };
    kt_pb_field f;
    for (kt_pb m = plane; kt_pb_next(&m, &f);)
        if ((f.num == 4 || f.num == 5) && f.wire == 2) n[f.num - 4]++;
    kt_i64map_free(&x->names);
    kt_i64map_free(&x->stats);
    if (!kt_i64map_init(&x->names, n[0]) || !kt_i64map_init(&x->stats, n[1])) return false;
    for (kt_pb m = plane; kt_pb_next(&m, &f);) {
        int64_t key;
        kt_pb value;
        if (f.wire != 2 || (f.num != 4 && f.num != 5) || !map_entry(f.sub, &key, &value)) continue;
        kt_pb name = name_of(value);
        *kt_i64map_slot(f.num == 4 ? &x->names : &x->stats, key, KT_NONE) = name.p ? text_id(x, &name) : KT_NONE;
    }
    return !x->b->oom;
}

typedef struct xevent {
    uint32_t name;
    int64_t ts, dur, corr;
    kt_xla_op op;
} xevent;

/* One XStat into e: the correlation id, or the text of hlo_op / hlo_module
 * (a string, or a ref_value naming a stat metadata).                      */
static void read_stat(xplane *x, kt_pb s, xevent *e)
{
    kt_pb_field g;
    uint32_t stat = KT_NONE, text = KT_NONE;
    int64_t v = -1;
    while (kt_pb_next(&s, &g)) {
        if (g.num == 1 && g.wire == 0) stat = kt_i64map_get(&x->stats, (int64_t)g.v, KT_NONE);
        else if ((g.num == 3 || g.num == 4) && g.wire == 0) v = (int64_t)g.v;
        else if (g.num == 5 && g.wire == 2) text = text_id(x, &g.sub);
        else if (g.num == 7 && g.wire == 0) text = kt_i64map_get(&x->stats, (int64_t)g.v, KT_NONE);
    }
    if (stat == KT_NONE) return;
    if (stat == x->corr_name) e->corr = v;
    else if (stat == x->op_name) e->op.op = text;
    else if (stat == x->module_name) e->op.module = text;
}

/* An event's name, times (ns) and correlation id; false if unusable. */
static bool read_event(xplane *x, kt_pb m, int64_t line_ns, xevent *e)
{
    kt_pb_field f;
    uint64_t off = 0, dur = 0;
    *e = (xevent){ .name = KT_NONE, .corr = -1, .op = { KT_NONE, KT_NONE } };
    while (kt_pb_next(&m, &f)) {
        if (f.num == 1 && f.wire == 0) e->name = kt_i64map_get(&x->names, (int64_t)f.v, KT_NONE);
        else if (f.num == 2 && f.wire == 0) off = f.v;
        else if (f.num == 3 && f.wire == 0) dur = f.v;
        else if (f.num == 4 && f.wire == 2) read_stat(x, f.sub, e);
    }
    x->damaged |= m.bad;
    uint64_t start = off / 1000, end = (off % 1000 + dur) / 1000 + start; /* floors of both ends */
    if (off > INT64_MAX / 2 || dur > INT64_MAX / 2 || start > (uint64_t)(INT64_MAX - line_ns) ||
        end > (uint64_t)(INT64_MAX - line_ns)) {
        x->dropped++;
        return false;
    }
    e->ts = line_ns + (int64_t)start;
    e->dur = (int64_t)(end - start);
    return true;
}

typedef struct xline {
    int64_t id, ns;
    kt_pb name;
} xline;

static xline line_head(kt_pb m)
{
    xline l = { 0 };
    kt_pb_field f;
    while (kt_pb_next(&m, &f)) {
        if (f.num == 1 && f.wire == 0) l.id = (int64_t)f.v;
        else if (f.num == 2 && f.wire == 2) l.name = f.sub;
        else if (f.num == 3 && f.wire == 0 && f.v <= INT64_MAX / 2) l.ns = (int64_t)f.v;
    }
    return l;
}

static void gpu_line(xplane *x, kt_pb line, int64_t device)
{
    xline l = line_head(line);
    const char *lname = (const char *)l.name.p;
    size_t lname_n = l.name.p ? kt_pb_len(&l.name) : 0;
    int64_t stream = l.name.p ? kt_xla_stream(lname, lname_n) : -1;
    if (stream < 0) return; /* XLA Ops, XLA Modules, Steps: derived lines */
    kt_pb_field f;
    for (kt_pb m = line; kt_pb_next(&m, &f) && !x->b->oom;) {
        xevent e;
        if (f.num != 4 || f.wire != 2 || !read_event(x, f.sub, l.ns, &e)) continue;
        const char *name = e.name == KT_NONE ? "" : kt_strtab_get(x->b->strs, e.name);
        kt_gpu_op op = kt_gpu_op_blank(kt_xla_gpu_kind(lname, lname_n, name));
        op.name = e.name;
        op.device = device;
        op.stream = stream;
        op.ts = e.ts;
        op.dur = e.dur;
        op.corr = e.corr;
        kt_build_gpu(x->b, &op);
        if (!kt_xla_ops_add(&x->ops, e.corr, e.op)) x->b->oom = true;
        x->events++;
    }
}

static void host_line(xplane *x, kt_pb line)
{
    xline l = line_head(line);
    kt_pb_field f;
    for (kt_pb m = line; kt_pb_next(&m, &f) && !x->b->oom;) {
        xevent e;
        if (f.num != 4 || f.wire != 2 || !read_event(x, f.sub, l.ns, &e)) continue;
        kt_host_op op = { .name = e.name, .pid = KT_XLA_HOST_PID, .tid = l.id, .ts = e.ts, .dur = e.dur, .corr = e.corr };
        kt_xla_host_event(x->b, &op, e.op.op != KT_NONE ? e.op : kt_xla_ops_get(&x->ops, e.corr));
        x->events++;
    }
}

/* Events of one line: its event fields, their bytes skipped. */
static size_t line_events(kt_pb line)
{
    size_t n = 0;
    kt_pb_field f;
    while (kt_pb_next(&line, &f)) n += f.num == 4 && f.wire == 2;
    return n;
}

/* The model's room for the planes' events, taken at once: a GPU stream
 * event, the ac2g pair to its launch and the two ops around the launch;
 * a host event.                                                        */
static void expect_events(const kt_reader_in *in, kt_build *b)
{
    size_t gpu = 0, host = 0;
    kt_pb_field f, g;
    for (kt_pb space = kt_pb_of(in->data, in->len); kt_pb_next(&space, &f);) {
        kt_pb name = f.num == 1 && f.wire == 2 ? name_of(f.sub) : (kt_pb){ 0 };
        int64_t kind = name.p ? kt_xla_plane((const char *)name.p, kt_pb_len(&name)) : -1;
        for (kt_pb plane = f.sub; kind != -1 && kt_pb_next(&plane, &g);) {
            if (g.num != 3 || g.wire != 2) continue;
            xline l = kind == KT_XLA_HOST ? (xline){ 0 } : line_head(g.sub);
            if (kind == KT_XLA_HOST) host += line_events(g.sub);
            else if (l.name.p && kt_xla_stream((const char *)l.name.p, kt_pb_len(&l.name)) >= 0) gpu += line_events(g.sub);
        }
    }
    kt_build_expect(b, 5 * gpu + host, gpu);
}

/* A GPU plane (host false) or the host plane (host true). */
static bool read_plane(xplane *x, kt_pb plane, bool host)
{
    kt_pb name = name_of(plane);
    int64_t kind = name.p ? kt_xla_plane((const char *)name.p, kt_pb_len(&name)) : -1;
    if (kind == -1 || (kind == KT_XLA_HOST) != host) return true;
    if (!read_metadata(x, plane)) return false;
    kt_pb_field f;
    for (kt_pb m = plane; kt_pb_next(&m, &f) && !x->b->oom;)
        if (f.num == 3 && f.wire == 2) {
            if (kind >= 0) gpu_line(x, f.sub, kind);
            else host_line(x, f.sub);
        }
    x->damaged |= plane.bad;
    return !x->b->oom;
}

kt_status kt_read_xplane(const kt_reader_in *in, kt_build *b)
{
    xplane x = { .b = b, .corr_name = kt_build_str(b, "correlation_id", 14), .op_name = kt_build_str(b, "hlo_op", 6),
                 .module_name = kt_build_str(b, "hlo_module", 10) };
    kt_build_source(b, "XLA XSpace protobuf", "JAX/XLA profiler", NULL);
    expect_events(in, b);
    kt_pb space = kt_pb_of(in->data, in->len);
    kt_pb_field f;
    bool ok = true;
    size_t planes = 0;
    for (int host = 0; host < 2; host++)
        for (space = kt_pb_of(in->data, in->len); ok && kt_pb_next(&space, &f);) {
            if (f.num == 1 && f.wire == 2) ok = read_plane(&x, f.sub, host), planes += host;
            else if (f.num == 4 && f.wire == 2 && host)
                kt_build_meta_str(b, "hostname", (const char *)f.sub.p, kt_pb_len(&f.sub));
        }
    kt_i64map_free(&x.names);
    kt_i64map_free(&x.stats);
    kt_xla_ops_free(&x.ops);
    if (!ok || b->oom) return KT_ENOMEM;
    if (space.bad || x.damaged)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, (int64_t)(space.p - (const uint8_t *)in->data),
                     "the protobuf is cut short or malformed: kept the %llu events of the %zu planes read before it",
                     (unsigned long long)x.events, planes);
    if (x.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu events with times out of range (skipped)",
                     (unsigned long long)x.dropped);
    if (b->r->ev.n == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "an XSpace protobuf with no GPU or host events (%zu planes)", planes);
        return KT_EINPUT;
    }
    return KT_OK;
}
