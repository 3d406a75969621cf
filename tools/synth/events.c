/*
 * events.c — a step's event records as the model builds them: CPU nesting (ops,
 * annotations, Python frames, allocations) and the GPU timeline (launches, streams,
 * waits), where every activity starts no earlier than its launch and dependencies.
 */
#include "synth.h"

static Ev *ev_push(Gen *g, EvKind kind)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4096;
        g->ev = realloc(g->ev, g->cap * sizeof *g->ev);
        if (!g->ev) {
            fprintf(stderr, "kineta-synth: out of memory\n");
            exit(1);
        }
    }
    Ev *e = &g->ev[g->n++];
    *e = (Ev){.kind = (uint8_t)kind, .thread = (uint8_t)g->thread, .suffix = -1};
    return e;
}

static int64_t quantize(const Gen *g, int64_t ns)
{
    int64_t q = g->m->quantum;
    return ns < q ? q : ns - ns % q;
}

static int64_t draw(Gen *g, uint64_t lo, uint64_t hi)
{
    return quantize(g, (int64_t)rng_range(&g->rng, lo, hi));
}

/* CPU time between consecutive events; keeps children strictly inside their parents. */
static void cpu_pad(Gen *g)
{
    g->now += draw(g, 200, 1500);
}

void cpu_busy(Gen *g, uint64_t lo, uint64_t hi)
{
    g->now += draw(g, lo, hi);
}

/* Innermost open event matching a kind filter, or NULL. */
static const Ev *open_ancestor(const Gen *g, bool python)
{
    for (int i = g->depth - 1; i >= 0; i--) {
        const Ev *e = &g->ev[g->stack[i]];
        if (python ? e->kind == EV_PYTHON : (e->kind == EV_CPU_OP || e->kind == EV_USER_ANN))
            return e;
    }
    return NULL;
}

Ev *cpu_open(Gen *g, EvKind kind, const char *name)
{
    cpu_pad(g);
    uint64_t parent_py = 0;
    if (kind == EV_PYTHON) {
        const Ev *p = open_ancestor(g, true);
        parent_py = p ? p->id : 0;
    }
    if (g->depth == MAX_DEPTH) {
        fprintf(stderr, "kineta-synth: internal error: nesting too deep\n");
        exit(1);
    }
    g->stack[g->depth++] = g->n;
    Ev *e = ev_push(g, kind);
    e->ts = g->now;
    e->name = name;
    if (kind == EV_PYTHON) {
        e->id = ++g->py_id;
        e->aux = parent_py;
    } else {
        e->ext_id = ++g->ext_id;
        e->id = ++g->rf_id;
    }
    return e;
}

void cpu_close(Gen *g)
{
    cpu_pad(g);
    Ev *e = &g->ev[g->stack[--g->depth]];
    e->dur = g->now - e->ts;
}

void cpu_leaf(Gen *g, EvKind kind, const char *name, uint64_t lo, uint64_t hi)
{
    cpu_open(g, kind, name);
    cpu_busy(g, lo, hi);
    cpu_close(g);
}

void py_noise(Gen *g, int n)
{
    static const char *const NOISE[] = {
        "torch/nn/modules/module.py(1950): __getattr__",
        "<built-in function isinstance>",
        "<built-in method size of Tensor object at 0x7f3b2c1d9e50>",
        "<built-in function _has_torch_function_unary>",
        "torch/_jit_internal.py(503): fn",
        "<built-in method dim of Tensor object at 0x7f3b2c1d9e50>",
        "typing.py(2187): cast",
        "<built-in method _get_tracing_state of PyCapsule object at 0x7f3b61d9a2e0>",
    };
    for (int i = 0; i < n; i++)
        cpu_leaf(g, EV_PYTHON, NOISE[rng_next(&g->rng) % (sizeof NOISE / sizeof *NOISE)], 300, 3000);
}

void mem_instant(Gen *g, int64_t bytes)
{
    cpu_pad(g);
    Ev *e = ev_push(g, EV_MEM_INSTANT);
    e->ts = g->now;
    e->name = "[memory]";
    e->id = UINT64_C(0x7f2a00000000) + (rng_next(&g->rng) % 0x40000000) * 512;
    g->total_alloc += bytes;
    g->step_alloc += bytes;
    e->val = bytes;
    e->aux = (uint64_t)g->total_alloc;
}

/* ------------------------------------------------------------------------------------ */
/* GPU timeline: every activity starts no earlier than its launch, its dependencies and */
/* the end of the previous activity on its stream plus a chosen gap                      */
/* ------------------------------------------------------------------------------------ */

int comm_stream(const Gen *g)
{
    return g->m->streams;
}

/* Stream roles: 0 runs the main chain; with 3+ streams the last one is a copy stream
 * for input batches; the ones in between are side streams that take weight gradients
 * and bias reductions (creating compute/compute overlap). */
int copy_stream(const Gen *g)
{
    return g->m->streams >= 3 ? g->m->streams - 1 : 0;
}

int side_streams(const Gen *g)
{
    return g->m->streams >= 3 ? g->m->streams - 2 : g->m->streams - 1;
}

int side_stream(const Gen *g, int k)
{
    return side_streams(g) ? 1 + k % side_streams(g) : 0;
}

int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t stream_gap(Gen *g)
{
    /* back-to-back (0) is the common case when the GPU is the bottleneck */
    static const uint32_t GAPS_NS[] = {0, 0, 0, 1000, 2000, 3000, 5000, 12000};
    int64_t gap = GAPS_NS[rng_next(&g->rng) % (sizeof GAPS_NS / sizeof *GAPS_NS)];
    return gap ? quantize(g, gap) : 0;
}

static Ev *gpu_activity(Gen *g, int tpl, int stream, int64_t ready, uint64_t corr, uint64_t ext)
{
    const GpuOpTpl *t = &GPU_OPS[tpl];
    Ev *e = ev_push(g, EV_GPU);
    e->tpl = (uint8_t)tpl;
    e->stream = (uint8_t)stream;
    e->id = corr;
    e->ext_id = ext;
    e->ts = max64(ready, g->stream_free[stream] + stream_gap(g));
    e->dur = draw(g, t->dur_lo, t->dur_hi);
    if (g->slow_pct && t->cls == GPU_COMPUTE)
        e->dur = quantize(g, e->dur + e->dur * g->slow_pct / 100);
    g->stream_free[stream] = e->ts + e->dur;
    if (e->ts < g->gpu_first)
        g->gpu_first = e->ts;
    if (e->ts + e->dur > g->gpu_last)
        g->gpu_last = e->ts + e->dur;
    return e;
}

static Ev *runtime_call(Gen *g, Api api, int stream, int tpl, uint64_t lo, uint64_t hi)
{
    cpu_pad(g);
    Ev *r = ev_push(g, EV_RUNTIME);
    const Ev *op = open_ancestor(g, false);
    r->api = (uint8_t)api;
    r->stream = (uint8_t)stream;
    r->tpl = (uint8_t)tpl;
    r->ts = g->now;
    r->dur = draw(g, lo, hi);
    r->id = ++g->corr;
    r->ext_id = op ? op->ext_id : 0;
    return r;
}

static int64_t launch_latency(Gen *g)
{
    return draw(g, 2000, 9000);
}

/* One runtime call and the single GPU activity it enqueues. */
Ev *launch(Gen *g, int tpl, int stream)
{
    Api api = GPU_OPS[tpl].cls == GPU_MEMCPY ? API_MEMCPY
            : GPU_OPS[tpl].cls == GPU_MEMSET ? API_MEMSET
            : GPU_OPS[tpl].ext_launch        ? API_LAUNCH_EXT
                                             : API_LAUNCH;
    Ev *r = runtime_call(g, api, stream, tpl, 3000, 16000);
    int64_t rts = r->ts, rdur = r->dur;
    uint64_t corr = r->id, ext = r->ext_id;
    Ev *k = gpu_activity(g, tpl, stream, rts + launch_latency(g), corr, ext);
    g->now = rts + rdur;
    return k;
}

/* A graph replay: one runtime call, several kernels sharing its correlation id. */
void graph_launch(Gen *g, const int *tpls, int n, int stream)
{
    Ev *r = runtime_call(g, API_GRAPH, stream, tpls[0], 8000, 30000);
    int64_t rts = r->ts, rdur = r->dur;
    uint64_t corr = r->id, ext = r->ext_id;
    int64_t ready = rts + launch_latency(g);
    for (int i = 0; i < n; i++)
        gpu_activity(g, tpls[i], stream, ready, corr, ext);
    g->now = rts + rdur;
}

/* cudaEventRecord on `src` + cudaStreamWaitEvent on `dst`: work enqueued on `dst` from
 * now on starts only after everything already enqueued on `src` has finished. */
void stream_wait(Gen *g, int dst, int src)
{
    runtime_call(g, API_EVENT_RECORD, src, 0, 1000, 4000);
    g->now += g->ev[g->n - 1].dur;
    runtime_call(g, API_STREAM_WAIT, dst, 0, 1000, 4000);
    g->now += g->ev[g->n - 1].dur;
    g->stream_free[dst] = max64(g->stream_free[dst], g->stream_free[src]);
}

void stream_sync(Gen *g, int stream)
{
    Ev *r = runtime_call(g, API_SYNC, stream, 0, 2000, 6000);
    int64_t done = g->stream_free[stream] + quantize(g, 1500);
    if (r->ts + r->dur < done)
        r->dur = done - r->ts;
    g->now = r->ts + r->dur;
}
