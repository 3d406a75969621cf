/*
 * xplane.c — a JAX/XLA profile (`.xplane.pb`, a protobuf XSpace) into the
 * model, with the wire reader of pb_wire.h (field numbers: tensorflow/tsl
 * xplane.proto).
 *
 * Planes "/device:GPU:N" are device N; their "Stream #S(...)" lines are
 * stream S, each event a kernel (or a copy / set when the line or the
 * event is named so).  The host plane's lines are threads (tid = line id);
 * an event with a correlation_id stat is the runtime call that launched
 * the GPU event of the same id, the others are annotations.  An event's
 * time is line.timestamp_ns + offset_ps: kept in ns by flooring its start
 * and its end separately (a duration never drifts from the two ends).
 */
#include "load/readers.h"
#include "model/i64map.h"
#include "pb_wire.h"

#include <stdio.h>
#include <stdlib.h>

#define XLA_HOST_PID ((int64_t)1 << 20) /* one host process drives every GPU plane */

typedef struct xplane {
    kt_build *b;
    kt_i64map names;     /* event metadata id -> strtab id of its name  */
    int64_t corr_stat[4]; /* stat metadata ids named correlation_id      */
    size_t ncorr;
    uint64_t events, dropped;
    bool damaged;
} xplane;

static uint32_t text_id(xplane *x, const kt_pb *s) { return kt_build_str(x->b, (const char *)s->p, kt_pb_len(s)); }

static bool text_is(const kt_pb *s, const char *lit)
{
    size_t n = strlen(lit);
    return kt_pb_len(s) == n && !memcmp(s->p, lit, n);
}

static bool text_has(const kt_pb *s, const char *lit)
{
    size_t n = strlen(lit), len = kt_pb_len(s);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(s->p + i, lit, n)) return true;
    return false;
}

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

/* The plane's event names and correlation stat ids. */
static bool read_metadata(xplane *x, kt_pb plane)
{
    size_t n = 0;
    kt_pb_field f;
    for (kt_pb m = plane; kt_pb_next(&m, &f);) n += f.num == 4 && f.wire == 2;
    kt_i64map_free(&x->names);
    if (!kt_i64map_init(&x->names, n)) return false;
    x->ncorr = 0;
    for (kt_pb m = plane; kt_pb_next(&m, &f);) {
        int64_t key;
        kt_pb value;
        if (f.wire != 2 || (f.num != 4 && f.num != 5) || !map_entry(f.sub, &key, &value)) continue;
        kt_pb name = name_of(value);
        if (f.num == 4) *kt_i64map_slot(&x->names, key, KT_NONE) = name.p ? text_id(x, &name) : KT_NONE;
        else if (name.p && text_is(&name, "correlation_id") && x->ncorr < 4) x->corr_stat[x->ncorr++] = key;
    }
    return !x->b->oom;
}

static bool is_corr_stat(const xplane *x, int64_t id)
{
    for (size_t i = 0; i < x->ncorr; i++)
        if (x->corr_stat[i] == id) return true;
    return false;
}

typedef struct xevent {
    uint32_t name;
    int64_t ts, dur, corr;
} xevent;

/* An event's name, times (ns) and correlation id; false if unusable. */
static bool read_event(xplane *x, kt_pb m, int64_t line_ns, xevent *e)
{
    kt_pb_field f;
    uint64_t off = 0, dur = 0;
    *e = (xevent){ .name = KT_NONE, .corr = -1 };
    while (kt_pb_next(&m, &f)) {
        if (f.num == 1 && f.wire == 0) e->name = kt_i64map_get(&x->names, (int64_t)f.v, KT_NONE);
        else if (f.num == 2 && f.wire == 0) off = f.v;
        else if (f.num == 3 && f.wire == 0) dur = f.v;
        else if (f.num == 4 && f.wire == 2) {
            kt_pb s = f.sub;
            kt_pb_field g;
            int64_t id = -1, v = -1;
            while (kt_pb_next(&s, &g)) {
                if (g.num == 1 && g.wire == 0) id = (int64_t)g.v;
                else if ((g.num == 3 || g.num == 4) && g.wire == 0) v = (int64_t)g.v;
            }
            if (id >= 0 && is_corr_stat(x, id)) e->corr = v;
        }
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

/* "Stream #17(Kernel)" -> 17; -1 for lines that are not streams. */
static int64_t stream_of(const kt_pb *name)
{
    size_t n = kt_pb_len(name);
    if (n < 9 || memcmp(name->p, "Stream #", 8)) return -1;
    int64_t s = 0;
    for (size_t i = 8; i < n && name->p[i] >= '0' && name->p[i] <= '9' && s < (1 << 30); i++) s = s * 10 + (name->p[i] - '0');
    return s;
}

static void gpu_line(xplane *x, kt_pb line, int64_t device)
{
    xline l = line_head(line);
    int64_t stream = l.name.p ? stream_of(&l.name) : -1;
    if (stream < 0) return; /* XLA Ops, XLA Modules, Steps: derived lines */
    kt_kind lk = text_has(&l.name, "Memcpy") ? KT_K_MEMCPY : text_has(&l.name, "Memset") ? KT_K_MEMSET : KT_K_KERNEL;
    kt_pb_field f;
    for (kt_pb m = line; kt_pb_next(&m, &f) && !x->b->oom;) {
        xevent e;
        if (f.num != 4 || f.wire != 2 || !read_event(x, f.sub, l.ns, &e)) continue;
        kt_gpu_op op = kt_gpu_op_blank(lk);
        const char *name = e.name == KT_NONE ? "" : kt_strtab_get(x->b->strs, e.name);
        if (kt_starts_with(name, "Memcpy") || kt_starts_with(name, "memcpy")) op.kind = KT_K_MEMCPY;
        if (kt_starts_with(name, "Memset") || kt_starts_with(name, "memset")) op.kind = KT_K_MEMSET;
        op.name = e.name;
        op.device = device;
        op.stream = stream;
        op.ts = e.ts;
        op.dur = e.dur;
        op.corr = e.corr;
        kt_build_gpu(x->b, &op);
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
        kt_host_op op = { .kind = e.corr >= 0 ? KT_K_RUNTIME : KT_K_USER_ANNOTATION, .name = e.name,
                          .pid = XLA_HOST_PID, .tid = l.id, .ts = e.ts, .dur = e.dur, .corr = e.corr };
        kt_build_host(x->b, &op);
        x->events++;
    }
}

/* "/device:GPU:7" -> 7, "/host:CPU" -> -2, others -1. */
static int64_t plane_kind(const kt_pb *name)
{
    if (text_is(name, "/host:CPU")) return -2;
    size_t n = kt_pb_len(name);
    if (n < 13 || memcmp(name->p, "/device:GPU:", 12)) return -1;
    int64_t d = 0;
    for (size_t i = 12; i < n && name->p[i] >= '0' && name->p[i] <= '9' && d < 4096; i++) d = d * 10 + (name->p[i] - '0');
    return d;
}

static bool read_plane(xplane *x, kt_pb plane)
{
    kt_pb name = name_of(plane);
    int64_t kind = name.p ? plane_kind(&name) : -1;
    if (kind == -1) return true;
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
    xplane x = { .b = b };
    kt_build_source(b, "XLA XSpace protobuf", "JAX/XLA profiler", NULL);
    kt_pb space = kt_pb_of(in->data, in->len);
    kt_pb_field f;
    bool ok = true;
    size_t planes = 0;
    while (ok && kt_pb_next(&space, &f)) {
        if (f.num == 1 && f.wire == 2) ok = read_plane(&x, f.sub), planes++;
        else if (f.num == 4 && f.wire == 2) kt_build_meta_str(b, "hostname", (const char *)f.sub.p, kt_pb_len(&f.sub));
    }
    kt_i64map_free(&x.names);
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
