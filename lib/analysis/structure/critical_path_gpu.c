/*
 * critical_path_gpu.c — the GPU side of the critical-path graph (spec A4.11
 * step 3c): each GPU event's span, what it waited for before starting (its
 * launch, the previous event on its stream, or an event it was made to wait
 * on through cudaStreamWaitEvent), and the CPU calls that waited for the GPU
 * (stream, event and device synchronization).
 *
 * HTA decides "launch delay" by queue lengths of its own launch list, so
 * kernels of graph launches, cuLaunchKernel or hip* calls are never launch
 * bound there; by default every launch API counts and a GPU event is launch
 * bound when its stream was idle (previous event done) when the launch call
 * began.
 */
#include "analysis/structure/critical_path_graph.h"
#include "analysis/common/launch_api.h"
#include "analysis/common/launch_pairs.h"
#include "analysis/common/np_sort.h"
#include "model/i64map.h"
#include "model/radix.h"

#include <stdlib.h>

#define NO_QUEUE INT32_MIN
/* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: a longer gap between two kernels
 * of a stream is not the GPU's own overhead (something else held the next
 * kernel back), so no kernel-kernel edge spans it (nor, by default, a
 * launch edge).                                                            */
#define KERNEL_KERNEL_MAX_GAP (1500 * 1000)

/* Names of the cuda_sync events. */
typedef struct sync_names {
    uint32_t context, stream, event, wait, record;
} sync_names;

static uint32_t find_name(const kt_strtab *strs, const char *s)
{
    return kt_strtab_find(strs, s, strlen(s));
}

/* A launch on one GPU queue, for the cudaEventRecord / cudaStreamWaitEvent
 * lookups: the call, its start and the GPU event it points at.            */
typedef struct launch {
    int64_t ts;
    uint32_t call, gpu;
} launch;

/* Per (device, stream) of the index: its launches sorted by call start. */
typedef struct stream_launches {
    launch *l;
    size_t n;
} stream_launches;

typedef struct gpu_ctx {
    const kt_rank *r;
    const kt_strtab *strs;
    const cp_config *cfg;
    cp_graph *g;
    sync_names nm;
    int32_t *queue;          /* HTA queue length after each event (compat)  */
    kt_i64map corr_call;     /* correlation → runtime call (device syncs)  */
    bool have_corr_map;
    stream_launches *sl;     /* one per r->idx->streams, NULL when unneeded */
    kt_i64map kernel_sync;   /* dest GPU event → GPU event it waits for    */
    struct last { int64_t dev; int32_t stream; uint32_t node; } *last;
    size_t nlast;
    uint32_t memo_name;      /* memo of the launch-API name test           */
    bool memo_launch;
} gpu_ctx;

/* ---- which calls launch ------------------------------------------------- */
static bool is_launch(gpu_ctx *c, uint32_t call)
{
    uint32_t name = c->r->ev.name[call];
    if (name == KT_NONE) return false;
    if (name != c->memo_name) {
        const char *s = kt_strtab_get(c->strs, name);
        c->memo_name = name;
        c->memo_launch = c->cfg->hta ? kt_is_hta_runtime_launch_api(s) : kt_is_launch_api(s);
    }
    return c->memo_launch;
}

/* ---- HTA queue lengths (A4.7), per event ------------------------------- */
static kt_status hta_queue_lengths(gpu_ctx *c)
{
    const kt_rank *r = c->r;
    const kt_events *e = &r->ev;
    kt_launch_pair *p;
    size_t np;
    kt_status s = kt_launch_pairs(r, c->strs, KT_PAIRS_HTA_QUEUE, &p, &np);
    if (s != KT_OK) return s;
    size_t n = 0, cap = np ? 2 * np : 1;
    int64_t *ts = malloc(cap * sizeof *ts);
    uint32_t *ev = malloc(cap * sizeof *ev), *gpu = malloc(cap * sizeof *gpu), *ord = malloc(cap * sizeof *ord);
    int8_t *delta = malloc(cap);
    uint64_t *keys = malloc(cap * sizeof *keys);
    c->queue = malloc((e->n ? e->n : 1) * sizeof *c->queue);
    bool ok = ts && ev && gpu && ord && delta && keys && c->queue;
    for (size_t i = 0; ok && i < np; i++, n++)
        ts[n] = e->ts[p[i].call], ev[n] = p[i].call, gpu[n] = p[i].gpu, delta[n] = 1;
    /* the GPU rows once each, in file order */
    for (size_t i = 0; ok && i < np; i++) keys[i] = p[i].gpu, ord[i] = p[i].gpu;
    ok = ok && kt_radix_sort(keys, ord, np);
    for (size_t i = 0; ok && i < np; i++)
        if (i == 0 || ord[i] != ord[i - 1]) ts[n] = e->ts[ord[i]], ev[n] = gpu[n] = ord[i], delta[n] = -1, n++;
    for (size_t i = 0; ok && i < n; i++) ord[i] = (uint32_t)i;
    if (ok) kt_np_argsort_i64(ts, ord, n);
    for (size_t i = 0; ok && i < n; i++) keys[i] = kt_radix_key_i64(kt_ev_stream(e, gpu[ord[i]]));
    ok = ok && kt_radix_sort(keys, ord, n);
    for (size_t i = 0; ok && i < e->n; i++) c->queue[i] = NO_QUEUE;
    int32_t len = 0;
    for (size_t k = 0; ok && k < n; k++) {
        size_t i = ord[k];
        if (k == 0 || kt_ev_stream(e, gpu[i]) != kt_ev_stream(e, gpu[ord[k - 1]])) len = 0;
        len += delta[i];
        c->queue[ev[i]] = len;
    }
    free(p);
    free(ts), free(ev), free(gpu), free(ord), free(delta), free(keys);
    return ok ? KT_OK : KT_ENOMEM;
}

/* ---- launches per GPU queue -------------------------------------------- */
/* A stream's launches by (call ts, call): radix, not qsort (its comparator
 * calls were 6% of the analysis on a real trace).                       */
static bool sort_launches(stream_launches *sl)
{
    uint64_t *major = malloc((sl->n ? sl->n : 1) * sizeof *major);
    uint64_t *minor = malloc((sl->n ? sl->n : 1) * sizeof *minor);
    bool ok = major && minor;
    for (size_t k = 0; ok && k < sl->n; k++) {
        major[k] = kt_radix_key_i64(sl->l[k].ts);
        minor[k] = sl->l[k].call;
    }
    ok = ok && kt_radix_sort_records(sl->l, sizeof *sl->l, sl->n, major, minor);
    free(major);
    free(minor);
    return ok;
}

static kt_status build_stream_launches(gpu_ctx *c)
{
    const kt_index *idx = c->r->idx;
    c->sl = calloc(idx->nstreams ? idx->nstreams : 1, sizeof *c->sl);
    if (!c->sl) return KT_ENOMEM;
    for (size_t s = 0; s < idx->nstreams; s++) {
        const kt_gpu_stream *st = &idx->streams[s];
        stream_launches *sl = &c->sl[s];
        sl->l = malloc((st->n ? st->n : 1) * sizeof *sl->l);
        if (!sl->l) return KT_ENOMEM;
        for (size_t k = 0; k < st->n; k++) {
            uint32_t call = kt_gpu_launcher(c->r, st->ev[k]);
            if (call == KT_NONE || !is_launch(c, call)) continue;
            if (c->cfg->hta && cp_hta_pointed_gpu(c->r, call) != st->ev[k]) continue;
            sl->l[sl->n++] = (launch){ c->r->ev.ts[call], call, st->ev[k] };
        }
        if (!sort_launches(sl)) return KT_ENOMEM;
    }
    return KT_OK;
}

static const stream_launches *launches_of(const gpu_ctx *c, int64_t dev, int32_t stream)
{
    const kt_index *idx = c->r->idx;
    for (size_t s = 0; s < idx->nstreams; s++)
        if (idx->streams[s].device == dev && idx->streams[s].stream == stream) return &c->sl[s];
    return NULL;
}

/* First launch with ts > t (binary search). */
static size_t first_after(const stream_launches *sl, int64_t t)
{
    size_t lo = 0, hi = sl->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sl->l[mid].ts <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ---- correlation of device-wide sync events ----------------------------- */
static bool is_call(const kt_events *e, uint32_t i)
{
    return (e->kind[i] == KT_K_RUNTIME || e->kind[i] == KT_K_DRIVER) && e->corr[i] >= 0;
}

static kt_status build_corr_map(gpu_ctx *c)
{
    const kt_events *e = &c->r->ev;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += is_call(e, i);
    if (!kt_i64map_init(&c->corr_call, n)) return KT_ENOMEM;
    c->have_corr_map = true;
    for (uint32_t i = 0; i < e->n; i++)
        if (is_call(e, i)) kt_i64map_slot(&c->corr_call, e->corr[i], i); /* first call wins */
    return KT_OK;
}

/* The runtime call a cuda_sync event belongs to. */
static uint32_t sync_call(const gpu_ctx *c, uint32_t ev)
{
    uint32_t call = kt_gpu_launcher(c->r, ev);
    if (call == KT_NONE && c->have_corr_map && c->r->ev.corr[ev] >= 0)
        call = kt_i64map_get(&c->corr_call, c->r->ev.corr[ev], KT_NONE);
    return call;
}

/* The GPU event launched last on the recorded stream before the
 * cudaEventRecord that sync event ev waits on (HTA index_previous_launch). */
static uint32_t recorded_kernel(const gpu_ctx *c, uint32_t ev)
{
    const kt_rank *r = c->r;
    int64_t rec_corr = kt_event_arg_int(r, ev, KT_ARG_WAIT_ON_EVENT_RECORD_CORR, -1);
    int64_t stream = kt_event_arg_int(r, ev, KT_ARG_WAIT_ON_STREAM, -1);
    if (rec_corr < 0 || stream < 0 || !c->have_corr_map) return KT_NONE;
    uint32_t rec = kt_i64map_get(&c->corr_call, rec_corr, KT_NONE);
    if (rec == KT_NONE || r->ev.name[rec] != c->nm.record) return KT_NONE;
    const stream_launches *sl = launches_of(c, kt_event_pid(r, ev), (int32_t)stream);
    size_t k = sl ? first_after(sl, r->ev.ts[rec]) : 0;
    return k ? sl->l[k - 1].gpu : KT_NONE;
}

/* The GPU event of the next launch on the waiting stream after the
 * cudaStreamWaitEvent call, from the same thread (index_next_launch).    */
static uint32_t waiting_kernel(const gpu_ctx *c, uint32_t wait_ev)
{
    const kt_rank *r = c->r;
    uint32_t call = kt_gpu_launcher(r, wait_ev);
    if (call == KT_NONE) return KT_NONE;
    const stream_launches *sl = launches_of(c, kt_event_pid(r, wait_ev), kt_ev_stream(&r->ev, wait_ev));
    for (size_t k = sl ? first_after(sl, r->ev.ts[call]) : 0; sl && k < sl->n; k++) {
        uint32_t l = sl->l[k].call;
        if (kt_ev_pid(&r->ev, l) == kt_ev_pid(&r->ev, call) && kt_ev_tid(&r->ev, l) == kt_ev_tid(&r->ev, call)) return sl->l[k].gpu;
    }
    return KT_NONE;
}

/* ---- last GPU event per stream ----------------------------------------- */
static uint32_t *last_slot(gpu_ctx *c, uint32_t ev, bool create)
{
    int64_t dev = c->cfg->hta ? 0 : kt_event_pid(c->r, ev);
    int32_t stream = kt_ev_stream(&c->r->ev, ev);
    for (size_t i = 0; i < c->nlast; i++)
        if (c->last[i].dev == dev && c->last[i].stream == stream) return &c->last[i].node;
    if (!create) return NULL;
    void *grown = realloc(c->last, (c->nlast + 1) * sizeof *c->last);
    if (!grown) {
        c->g->oom = true;
        return NULL;
    }
    c->last = grown;
    c->last[c->nlast] = (struct last){ dev, stream, KT_NONE };
    return &c->last[c->nlast++].node;
}

/* ---- the events --------------------------------------------------------- */
static void handle_sync(gpu_ctx *c, uint32_t ev)
{
    cp_graph *g = c->g;
    uint32_t name = c->r->ev.name[ev];
    uint32_t call = sync_call(c, ev);
    uint32_t call_end = call == KT_NONE ? KT_NONE : cp_end_of(g, call);
    if (name == c->nm.wait || name == c->nm.event) {
        uint32_t src = recorded_kernel(c, ev);
        if (src == KT_NONE) return;
        if (name == c->nm.wait) {
            uint32_t dest = waiting_kernel(c, ev);
            if (dest != KT_NONE) *kt_i64map_slot(&c->kernel_sync, dest, src) = src;
        } else if (cp_end_of(g, src) != KT_NONE) {
            cp_add_edge(g, cp_end_of(g, src), call_end, CP_SYNC, false);
        }
        return;
    }
    if (name == c->nm.context) {
        for (size_t i = 0; i < c->nlast; i++) cp_add_edge(g, c->last[i].node, call_end, CP_SYNC, false);
    } else if (name == c->nm.stream) {
        uint32_t *last = last_slot(c, ev, false);
        if (last) cp_add_edge(g, *last, call_end, CP_SYNC, false);
    }
}

/* Launch bound: HTA — the queue was empty at the launch and nothing else
 * was queued when the kernel started; ours — the stream had nothing left
 * to run when the launch call began, and the event is the first of its
 * launch (a graph's later kernels wait for the graph, not the call).
 * Either way the previous kernel and the event waited on must have ended
 * before the launch call started.  We also ask the kernel to start within
 * the kernel-kernel gap bound of its launch: a kernel that sat 46 ms on an
 * idle stream (an NCCL kernel on its own stream, held by an event wait the
 * trace does not record) waited for something, not for its launch.       */
static bool launch_bound(const gpu_ctx *c, uint32_t ev, uint32_t call, uint32_t last, uint32_t sync_end,
                         bool later_in_graph)
{
    const cp_graph *g = c->g;
    if (call == KT_NONE || g->start_of[call] == KT_NONE || later_in_graph) return false;
    if (c->cfg->hta && (!is_launch((gpu_ctx *)c, call) || c->queue[call] != 1 || c->queue[ev] != 0)) return false;
    int64_t launch_ts = c->r->ev.ts[call];
    if (!c->cfg->hta && g->ts[g->start_of[ev]] - launch_ts >= KERNEL_KERNEL_MAX_GAP) return false;
    return (last == KT_NONE || g->ts[last] < launch_ts) && (sync_end == KT_NONE || g->ts[sync_end] < launch_ts);
}

/* Inside a graph launch, a kernel with nothing before it on its stream
 * waited for the graph's kernels on other streams: the edge comes from the
 * one that ended last before it started.                                  */
static uint32_t graph_predecessor(const gpu_ctx *c, const uint32_t *grp, size_t ng, uint32_t ev)
{
    const cp_graph *g = c->g;
    int64_t start = g->ts[g->start_of[ev]];
    uint32_t best = KT_NONE;
    for (size_t j = 0; j < ng && grp[j] != ev; j++) {
        uint32_t end = cp_end_of(g, grp[j]);
        if (end != KT_NONE && g->ts[end] <= start && (best == KT_NONE || g->ts[end] > g->ts[best])) best = end;
    }
    return best;
}

static void handle_kernel(gpu_ctx *c, uint32_t ev)
{
    cp_graph *g = c->g;
    uint32_t start = g->start_of[ev];
    if (start == KT_NONE) return;
    uint32_t end = g->end_node[start];
    cp_add_edge(g, start, end, CP_OPERATOR, false);
    cp_attribute(g, KT_NONE);
    uint32_t sync_end = KT_NONE;
    uint32_t src = kt_i64map_get(&c->kernel_sync, ev, KT_NONE);
    if (src != KT_NONE && cp_end_of(g, src) != KT_NONE) {
        sync_end = cp_end_of(g, src);
        cp_add_edge(g, sync_end, start, CP_SYNC, false);
    }
    if (src != KT_NONE) *kt_i64map_slot(&c->kernel_sync, ev, KT_NONE) = KT_NONE;
    uint32_t *slot = last_slot(c, ev, true);
    if (!slot) return;
    uint32_t last = *slot, call = kt_gpu_launcher(c->r, ev);
    const uint32_t *grp = NULL;
    size_t ng = call != KT_NONE && !c->cfg->hta ? kt_launched_events(c->r, call, &grp) : 0;
    bool later_in_graph = ng > 1 && grp[0] != ev;
    bool edge = sync_end != KT_NONE;
    if (launch_bound(c, ev, call, last, sync_end, later_in_graph)) {
        cp_add_edge(g, g->start_of[call], start, CP_LAUNCH, false);
        edge = true;
    } else if (last != KT_NONE && (sync_end == KT_NONE || g->ts[sync_end] < g->ts[last]) &&
               g->ts[start] - g->ts[last] < KERNEL_KERNEL_MAX_GAP) {
        cp_add_edge(g, last, start, CP_KERNEL_KERNEL, false);
        cp_attribute(g, KT_NONE);
        edge = true;
    } else if (later_in_graph && (last = graph_predecessor(c, grp, ng, ev)) != KT_NONE) {
        cp_add_edge(g, last, start, CP_KERNEL_KERNEL, false);
        cp_attribute(g, KT_NONE);
        edge = true;
    }
    g->no_edge_kernels += !edge;
    *slot = end;
}

static bool is_device_sync(const gpu_ctx *c, uint32_t i)
{
    uint32_t name = c->r->ev.name[i];
    return name != KT_NONE && (name == c->nm.event || name == c->nm.context);
}

static bool is_row(const gpu_ctx *c, uint32_t i)
{
    const kt_events *e = &c->r->ev;
    return (cp_is_stream_event(e, i) || is_device_sync(c, i)) && e->corr[i] >= 0;
}

/* HTA's row order: by start, cuda_sync events by their end (a Stream Sync
 * overlapping a copy comes after it), numpy's quicksort on file order.   */
static uint32_t *gpu_rows(const gpu_ctx *c, const uint32_t *kept, size_t nkept, size_t *n)
{
    const kt_events *e = &c->r->ev;
    *n = 0;
    uint32_t *rows = malloc((nkept ? nkept : 1) * sizeof *rows); /* room for all: one pass, not two */
    int64_t *key = malloc((e->n ? e->n : 1) * sizeof *key);
    if (!rows || !key) {
        free(rows);
        free(key);
        return NULL;
    }
    size_t k = 0;
    for (size_t j = 0; j < nkept; j++) {
        uint32_t i = kept[j];
        if (!is_row(c, i)) continue;
        rows[k++] = i;
        key[i] = e->ts[i] + (e->kind[i] == KT_K_CUDA_SYNC ? e->dur[i] : 0);
    }
    *n = k;
    if (c->cfg->hta) {
        kt_np_argsort_i64(key, rows, k);
    } else if (!kt_sort_ids_by_i64(rows, k, key)) {
        free(rows);
        rows = NULL;
    }
    free(key);
    return rows;
}

static kt_status prepare(gpu_ctx *c, const uint32_t *rows, size_t n)
{
    kt_status st = c->cfg->hta ? hta_queue_lengths(c) : KT_OK;
    size_t waits = 0;
    for (size_t k = 0; k < n; k++) waits += c->r->ev.name[rows[k]] == c->nm.wait && c->nm.wait != KT_NONE;
    if (st == KT_OK && !kt_i64map_init(&c->kernel_sync, waits + 1)) st = KT_ENOMEM;
    return st;
}

/* What sync events look up (the calls by correlation, each stream's
 * launches), made at the first one: most traces have none, and these
 * were a third of the GPU side's cost.                                     */
static kt_status prepare_sync(gpu_ctx *c)
{
    kt_status st = build_corr_map(c);
    return st == KT_OK ? build_stream_launches(c) : st;
}

static void release(gpu_ctx *c)
{
    free(c->queue);
    if (c->have_corr_map) kt_i64map_free(&c->corr_call);
    for (size_t s = 0; c->sl && s < c->r->idx->nstreams; s++) free(c->sl[s].l);
    free(c->sl);
    kt_i64map_free(&c->kernel_sync);
    free(c->last);
}

kt_status cp_add_gpu_edges(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, const uint32_t *kept,
                           size_t nkept, cp_graph *g)
{
    gpu_ctx c = { .r = r, .strs = strs, .cfg = cfg, .g = g, .memo_name = KT_NONE };
    c.nm = (sync_names){ find_name(strs, "Context Sync"), find_name(strs, "Stream Sync"), find_name(strs, "Event Sync"),
                         find_name(strs, "Stream Wait Event"), find_name(strs, "cudaEventRecord") };
    size_t n = 0;
    uint32_t *rows = gpu_rows(&c, kept, nkept, &n);
    kt_status s = rows ? prepare(&c, rows, n) : KT_ENOMEM;
    for (size_t k = 0; s == KT_OK && k < n; k++) {
        if (r->ev.kind[rows[k]] != KT_K_CUDA_SYNC) handle_kernel(&c, rows[k]);
        else if (c.have_corr_map || (s = prepare_sync(&c)) == KT_OK) handle_sync(&c, rows[k]);
    }
    free(rows);
    release(&c);
    return s;
}
