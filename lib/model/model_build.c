/*
 * model_build.c — another profiler's events into a rank, laid out as the
 * Kineto parser lays out the same events (see model_build.h for why).
 */
#include "model_build.h"
#include "corr_index.h"
#include "index_build.h"

#include <stdio.h>
#include <stdlib.h>

/* The category Kineto writes for each kind a reader may add. */
static const char *kind_category(kt_kind k)
{
    switch (k) {
    case KT_K_KERNEL: return "kernel";
    case KT_K_MEMCPY: return "gpu_memcpy";
    case KT_K_MEMSET: return "gpu_memset";
    case KT_K_CUDA_SYNC: return "cuda_sync";
    case KT_K_RUNTIME: return "cuda_runtime";
    case KT_K_DRIVER: return "cuda_driver";
    case KT_K_USER_ANNOTATION: return "user_annotation";
    case KT_K_CPU_OP: return "cpu_op";
    case KT_K_FLOW_START: case KT_K_FLOW_END: return "ac2g";
    default: return NULL;
    }
}

void kt_build_init(kt_build *b, kt_rank *r, kt_strtab *strs)
{
    *b = (kt_build){ .r = r, .strs = strs };
    for (size_t k = 0; k < KT_K__COUNT; k++) {
        const char *c = kind_category((kt_kind)k);
        b->cats[k] = c ? kt_build_str(b, c, strlen(c)) : KT_NONE;
    }
}

void kt_build_free(kt_build *b)
{
    free(b->meta);
    b->meta = NULL;
}

uint32_t kt_build_str(kt_build *b, const char *s, size_t n)
{
    uint32_t id = kt_strtab_intern(b->strs, s, n);
    if (id == KT_NONE) b->oom = true;
    return id;
}

/* One event row with everything the analyses read; KT_NONE on OOM. */
static uint32_t push(kt_build *b, char ph, kt_kind kind, uint32_t name, int64_t pid, int64_t tid,
                     int32_t stream, int64_t ts, int64_t dur, int64_t corr)
{
    kt_rank *r = b->r;
    int32_t pc, tc, cc = -1;
    if (!kt_rank_id_put(r, pid, &pc) || !kt_rank_id_put(r, tid, &tc) || (corr >= 0 && !kt_rank_id_put(r, corr, &cc))) {
        b->oom = true;
        return KT_NONE;
    }
    uint32_t i = r->ev.n < b->ready ? (uint32_t)r->ev.n++ : kt_events_push_unset(&r->ev);
    if (i == KT_NONE || (r->ev.thread[i] = kt_events_thread(&r->ev, pc, tc, stream)) == KT_NONE) {
        if (i != KT_NONE) r->ev.n--;
        b->oom = true;
        return KT_NONE;
    }
    uint32_t cat = b->cats[kind];
    r->ev.ts[i] = ts;
    r->ev.dur[i] = dur;
    r->ev.name[i] = name;
    r->ev.cat[i] = cat;
    r->ev.ph[i] = (uint8_t)ph;
    r->ev.kind[i] = (uint8_t)kind;
    r->ev.corr[i] = cc;
    r->total_events++;
    r->by_ph[(unsigned char)ph]++;
    if (ph == 'X') b->counts[kind]++;
    kt_summary_add(&r->summary, b->strs, ph, (uint8_t)kind, cat, name, ts, dur);
    return i;
}

void kt_build_expect(kt_build *b, size_t events, size_t args)
{
    kt_rank *r = b->r; /* failing here, the pushes grow (or stop at the limits, or say OOM) */
    if (!events || !kt_rank_fits(r, events, args) || r->ev.n < b->ready ||
        !kt_events_ready_written(&r->ev, r->ev.n + events))
        return;
    b->ready = r->ev.n + events;
    if (args && kt_rank_reserve_args(r, r->nargs + args)) kt_prefault(r->args + r->nargs, args * sizeof *r->args);
}

/* One integer arg written in place; the next place.  Each key is known
 * where it is called, so an arg is two stores: building key and value
 * arrays and copying them arg by arg was a tenth of a reader's model
 * building.                                                            */
static inline kt_arg *put_int(kt_arg *a, kt_arg_key key, int64_t v)
{
    *a = (kt_arg){ .key = key, .type = KT_ARGT_INT, .v.i = v };
    return a + 1;
}

/* The three ints of a grid or block (x, y, z keys in a row). */
static inline kt_arg *put_xyz(kt_arg *a, kt_arg_key x, const int64_t *v)
{
    a = put_int(a, x, v[0]);
    a = put_int(a, (kt_arg_key)(x + 1), v[1]);
    return put_int(a, (kt_arg_key)(x + 2), v[2]);
}

void kt_build_gpu(kt_build *b, const kt_gpu_op *op)
{
    if (!kt_kind_is_gpu_side((uint8_t)op->kind)) return;
    int32_t stream = op->stream >= INT32_MIN && op->stream <= INT32_MAX ? (int32_t)op->stream : -1;
    if (push(b, 'X', op->kind, op->name, op->device, op->stream, stream, op->ts, op->dur, op->corr) == KT_NONE) return;
    kt_rank *r = b->r; /* the args of the event just pushed (it has none yet), room made once */
    size_t n = 1 + (op->bytes >= 0) + (op->regs >= 0) + (op->shared_mem >= 0) + 3 * (op->grid[0] > 0) +
               3 * (op->block[0] > 0);
    if (!kt_rank_reserve_args(r, r->nargs + n)) {
        b->oom = true;
        return;
    }
    kt_arg *a = put_int(r->args + r->nargs, KT_ARG_DEVICE, op->device);
    if (op->bytes >= 0) a = put_int(a, KT_ARG_BYTES, op->bytes);
    if (op->regs >= 0) a = put_int(a, KT_ARG_REGISTERS_PER_THREAD, op->regs);
    if (op->shared_mem >= 0) a = put_int(a, KT_ARG_SHARED_MEMORY, op->shared_mem);
    if (op->grid[0] > 0) a = put_xyz(a, KT_ARG_GRID_X, op->grid);
    if (op->block[0] > 0) put_xyz(a, KT_ARG_BLOCK_X, op->block);
    r->ev.argi[r->ev.n - 1] = (uint32_t)r->nargs;
    r->ev.nargs[r->ev.n - 1] = (uint8_t)n;
    r->nargs += n;
}

void kt_build_host(kt_build *b, const kt_host_op *op)
{
    if (!kind_category(op->kind) || kt_kind_is_gpu_side((uint8_t)op->kind)) return;
    push(b, 'X', op->kind, op->name, op->pid, op->tid, -1, op->ts, op->dur, op->corr);
}

void kt_build_device(kt_build *b, int64_t id, const char *name, size_t n)
{
    kt_rank *r = b->r;
    if (id < 0 || id >= 4096) return;
    uint32_t s = kt_build_str(b, name, n);
    if ((size_t)id >= r->ndevices) {
        uint32_t *d = realloc(r->device_names, ((size_t)id + 1) * sizeof *d);
        if (!d) {
            b->oom = true;
            return;
        }
        for (size_t i = r->ndevices; i <= (size_t)id; i++) d[i] = KT_NONE;
        r->device_names = d;
        r->ndevices = (size_t)id + 1;
    }
    r->device_names[id] = s;
}

void kt_build_name_thread(kt_build *b, int64_t pid, int64_t tid, const char *name, size_t n)
{
    const char *what = tid < 0 ? "process_name" : "thread_name";
    uint32_t i = push(b, 'M', KT_K_METADATA, kt_build_str(b, what, strlen(what)), pid, tid < 0 ? 0 : tid, -1, 0,
                      -1, -1);
    if (i == KT_NONE) return;
    b->r->ev.cat[i] = KT_NONE;
    if (!kt_rank_push_arg(b->r, KT_ARG_META_NAME, KT_ARGT_STR, 0, 0, kt_build_str(b, name, n))) b->oom = true;
}

static void meta_put(kt_build *b, const char *s, size_t n)
{
    if (b->meta_len + n + 1 > b->meta_cap) {
        size_t cap = b->meta_cap ? b->meta_cap * 2 : 256;
        while (cap < b->meta_len + n + 1) cap *= 2;
        char *m = realloc(b->meta, cap);
        if (!m) {
            b->oom = true;
            return;
        }
        b->meta = m;
        b->meta_cap = cap;
    }
    memcpy(b->meta + b->meta_len, s, n);
    b->meta_len += n;
    b->meta[b->meta_len] = '\0';
}

/* s as the body of a JSON string. */
static void meta_escaped(kt_build *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') meta_put(b, (char[]){ '\\', (char)c }, 2);
        else if (c < 0x20) meta_put(b, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", c));
        else meta_put(b, s + i, 1);
    }
}

void kt_build_meta_str(kt_build *b, const char *key, const char *value, size_t n)
{
    if (b->meta_len) meta_put(b, ", ", 2);
    meta_put(b, "\"", 1);
    meta_escaped(b, key, strlen(key));
    meta_put(b, "\": \"", 4);
    meta_escaped(b, value, n);
    meta_put(b, "\"", 1);
}

void kt_build_source(kt_build *b, const char *format, const char *profiler, const char *vendor)
{
    kt_build_meta_str(b, "kineta_format", format, strlen(format));
    kt_build_meta_str(b, "kineta_profiler", profiler, strlen(profiler));
    if (vendor) kt_build_meta_str(b, "kineta_vendor", vendor, strlen(vendor));
}

/* Kineto's ac2g pair for each GPU event whose launch call is in the rank:
 * a start on the call's thread at its ts, an end on the GPU event's. */
static bool add_flows(kt_build *b)
{
    kt_events *e = &b->r->ev;
    size_t n = e->n, ncalls = 0;
    uint32_t *calls = kt_select_events(e, kt_is_launch_call, &ncalls);
    if (!calls || !ncalls) {
        free(calls);
        return calls != NULL;
    }
    kt_corr_index ci;
    bool ok = kt_corr_index_init(&ci, e->corr, calls, ncalls);
    uint32_t name = b->cats[KT_K_FLOW_START];
    for (uint32_t i = 0; ok && i < n && !b->oom; i++) {
        if (!kt_kind_is_gpu_side(e->kind[i]) || e->corr[i] < 0) continue;
        uint32_t k = kt_corr_index_get(&ci, e->corr[i]);
        if (k == KT_NONE) continue;
        uint32_t c = calls[k];
        int64_t corr = kt_event_corr(b->r, i);
        push(b, 's', KT_K_FLOW_START, name, kt_event_pid(b->r, c), kt_event_tid(b->r, c), -1, e->ts[c], -1, corr);
        push(b, 'f', KT_K_FLOW_END, name, kt_event_pid(b->r, i), kt_event_tid(b->r, i), -1, e->ts[i], -1, corr);
    }
    kt_corr_index_free(&ci);
    free(calls);
    return ok && !b->oom;
}

static bool finish_counts(kt_build *b)
{
    kt_rank *r = b->r;
    r->xcat_id = malloc(KT_K__COUNT * sizeof *r->xcat_id);
    r->xcat_count = malloc(KT_K__COUNT * sizeof *r->xcat_count);
    if (!r->xcat_id || !r->xcat_count) return false;
    r->nxcat = 0;
    for (size_t k = 0; k < KT_K__COUNT; k++)
        if (b->counts[k]) {
            r->xcat_id[r->nxcat] = b->cats[k];
            r->xcat_count[r->nxcat++] = b->counts[k];
        }
    return true;
}

bool kt_build_finish(kt_build *b)
{
    if (b->oom || !add_flows(b) || !finish_counts(b)) return false;
    kt_rank *r = b->r;
    free(r->meta_json);
    size_t n = b->meta_len;
    if (!(r->meta_json = malloc(n + 3))) return false;
    r->meta_json[0] = '{';
    if (n) memcpy(r->meta_json + 1, b->meta, n);
    memcpy(r->meta_json + 1 + n, "}", 2);
    return !b->oom;
}

const char *kt_rank_source(const kt_rank *r, const char *key, char *buf, size_t cap)
{
    if (!cap) return NULL;
    buf[0] = '\0';
    char pat[64];
    int k = snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *at = r->meta_json && k > 0 && (size_t)k < sizeof pat ? strstr(r->meta_json, pat) : NULL;
    if (!at) return NULL;
    at += k;
    size_t n = 0;
    for (; *at && *at != '"' && n + 1 < cap; at++) {
        if (*at == '\\' && at[1]) at++;
        buf[n++] = *at;
    }
    buf[n] = '\0';
    return buf;
}
