/*
 * index.c — building a rank's indexes and answering the structural
 * questions analyses ask per event (launcher, launcher op, step).
 *
 * The parts live in gpu_streams.c, correlation.c, call_tree.c, steps.c and
 * flows.c; this file sequences them (the call tree and flows on first use)
 * and holds the lookups that combine them.
 */
#include "index_build.h"
#include "radix.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

uint32_t *kt_none_array(size_t n)
{
    uint32_t *a = malloc((n ? n : 1) * sizeof *a);
    if (a) kt_prefault(a, n * sizeof *a);
    if (a) memset(a, 0xff, n * sizeof *a); /* KT_NONE is all ones */
    return a;
}

void kt_index_free(kt_index *idx)
{
    if (!idx) return;
    free(idx->streams);
    free(idx->stream_events);
    free(idx->link);
    free(idx->launched);
    free(idx->parent);
    free(idx->cpu_steps);
    free(idx->gpu_steps);
    free(idx->flows);
    pthread_mutex_destroy(&idx->lazy_lock);
    free(idx);
}

static bool is_gpu_side(const kt_events *e, uint32_t i) { return kt_kind_is_gpu_side(e->kind[i]); }

/* Every GPU-side event in time order, ties in file order. */
static uint32_t *gpu_events_by_ts(const kt_events *e, size_t *count)
{
    uint32_t *ids = kt_select_events(e, is_gpu_side, count);
    if (ids && !kt_sort_ids_by_i64(ids, *count, e->ts)) {
        free(ids);
        return NULL;
    }
    return ids;
}

/* Ranks with more events than this build their index on two threads:
 * below it a thread costs more than it saves.                              */
#define TWO_THREADS_MIN_EVENTS 200000

/* The parts the loader builds, as tasks in two phases; threads claim a
 * phase's tasks in turn and meet between phases.  Phase one: the launch
 * calls (select + ids) and the GPU events in time order (select + sort);
 * phase two needs them: streams and the links, and the steps (which fit
 * there best: ~10 ms each for calls, GPU order, streams and steps on 4M
 * events, ~5 ms for the links).
 * Each task writes its own fields.  The call tree and flows wait for their
 * first use.                                                               */
typedef struct build_job build_job;
typedef kt_status (*build_task)(build_job *);
#define NPHASES 2
#define MAX_TASKS 3

struct build_job {
    const kt_rank *r;
    const kt_strtab *strs;
    kt_index *idx;
    uint32_t *gpu;          /* phase one: GPU-side events by ts */
    size_t ngpu;
    kt_launch_calls *calls; /* phase one: the launch calls       */
    bool two_threads;
    pthread_barrier_t between;
    atomic_size_t next[NPHASES];       /* the next task to claim */
    kt_status status[NPHASES][MAX_TASKS]; /* KT_OK (0) until a task fails */
};

static kt_status gpu_order_task(build_job *j)
{
    j->gpu = gpu_events_by_ts(&j->r->ev, &j->ngpu);
    return j->gpu ? KT_OK : KT_ENOMEM;
}

static kt_status calls_task(build_job *j)
{
    j->calls = kt_launch_calls_prepare(j->r, j->idx);
    return j->calls ? KT_OK : KT_ENOMEM;
}

static kt_status steps_task(build_job *j) { return kt_build_steps(j->r, j->strs, j->idx); }

static kt_status streams_task(build_job *j)
{
    return j->gpu ? kt_build_gpu_streams(j->r, j->gpu, j->ngpu, j->idx) : KT_ENOMEM;
}

static kt_status links_task(build_job *j)
{
    return j->gpu && j->calls ? kt_build_correlation(j->r, j->calls, j->gpu, j->ngpu, j->idx) : KT_ENOMEM;
}

/* longest first within a phase */
static const build_task phases[NPHASES][MAX_TASKS] = {
    { calls_task, gpu_order_task, NULL },
    { streams_task, steps_task, links_task },
};

static void *run_phases(void *arg)
{
    build_job *j = arg;
    for (size_t ph = 0; ph < NPHASES; ph++) {
        for (size_t t; (t = atomic_fetch_add(&j->next[ph], 1)) < MAX_TASKS && phases[ph][t];)
            j->status[ph][t] = phases[ph][t](j);
        if (j->two_threads) pthread_barrier_wait(&j->between);
    }
    return NULL;
}

static kt_status build_parts(const kt_rank *r, const kt_strtab *strs, kt_index *idx, int threads)
{
    build_job job = { .r = r, .strs = strs, .idx = idx };
    for (size_t ph = 0; ph < NPHASES; ph++) atomic_init(&job.next[ph], 0);
    pthread_t th;
    job.two_threads = threads >= 2 && r->ev.n > TWO_THREADS_MIN_EVENTS &&
                      pthread_barrier_init(&job.between, NULL, 2) == 0;
    if (job.two_threads && pthread_create(&th, NULL, run_phases, &job) != 0) {
        pthread_barrier_destroy(&job.between);
        job.two_threads = false;
    }
    run_phases(&job);
    if (job.two_threads) {
        pthread_join(th, NULL);
        pthread_barrier_destroy(&job.between);
    }
    free(job.gpu);
    kt_launch_calls_free(job.calls);
    for (size_t ph = 0; ph < NPHASES; ph++)
        for (size_t t = 0; t < MAX_TASKS; t++)
            if (job.status[ph][t] != KT_OK) return job.status[ph][t];
    return KT_OK;
}

kt_status kt_index_build_threads(kt_rank *r, const kt_strtab *strs, int threads)
{
    kt_index *idx = calloc(1, sizeof *idx);
    if (!idx) return KT_ENOMEM;
    pthread_mutex_init(&idx->lazy_lock, NULL);
    atomic_init(&idx->call_tree_state, 0);
    atomic_init(&idx->flows_state, 0);
    kt_status s = build_parts(r, strs, idx, threads);
    if (s != KT_OK) {
        kt_index_free(idx);
        return s;
    }
    kt_index_free(r->idx);
    r->idx = idx;
    return KT_OK;
}

kt_status kt_index_build(kt_rank *r, const kt_strtab *strs)
{
    return kt_index_build_threads(r, strs, 2);
}

/* A part built on first use: one thread builds it, the others wait. */
static kt_status build_once(const kt_rank *r, atomic_int *state,
                            kt_status (*build)(const kt_rank *, kt_index *))
{
    int st = atomic_load_explicit(state, memory_order_acquire);
    if (st == 0) {
        pthread_mutex_lock(&r->idx->lazy_lock);
        st = atomic_load_explicit(state, memory_order_relaxed);
        if (st == 0) {
            kt_status s = build(r, r->idx);
            st = s == KT_OK ? 1 : -(int)s;
            atomic_store_explicit(state, st, memory_order_release);
        }
        pthread_mutex_unlock(&r->idx->lazy_lock);
    }
    return st == 1 ? KT_OK : (kt_status)-st;
}

kt_status kt_index_call_tree(const kt_rank *r)
{
    return build_once(r, &r->idx->call_tree_state, kt_build_call_tree);
}

kt_status kt_index_flows(const kt_rank *r)
{
    return build_once(r, &r->idx->flows_state, kt_build_flows);
}

uint32_t kt_gpu_launcher(const kt_rank *r, uint32_t gpu_ev)
{
    return kt_kind_is_gpu_side(r->ev.kind[gpu_ev]) ? r->idx->link[gpu_ev] : KT_NONE;
}

size_t kt_launched_events(const kt_rank *r, uint32_t rt_ev, const uint32_t **evs)
{
    const kt_index *idx = r->idx;
    uint32_t group = kt_kind_is_gpu_side(r->ev.kind[rt_ev]) ? KT_NONE : idx->link[rt_ev];
    if (group == KT_NONE) {
        *evs = NULL;
        return 0;
    }
    *evs = idx->launched + group + 1;
    return idx->launched[group];
}

uint32_t kt_launcher_op(const kt_rank *r, uint32_t gpu_ev)
{
    uint32_t rt = kt_gpu_launcher(r, gpu_ev);
    if (rt == KT_NONE || kt_index_call_tree(r) != KT_OK) return KT_NONE;
    for (uint32_t p = r->idx->parent[rt]; p != KT_NONE; p = r->idx->parent[p])
        if (r->ev.kind[p] == KT_K_CPU_OP) return p;
    return KT_NONE;
}

static bool name_is(const char *name, const char *api)
{
    size_t n = strlen(api);
    return !strncmp(name, api, n) && (name[n] == '\0' || name[n] == '_'); /* _v10000 suffixes */
}

bool kt_is_graph_launch(const kt_rank *r, const kt_strtab *strs, uint32_t rt_ev)
{
    const char *name = kt_strtab_get(strs, r->ev.name[rt_ev]);
    return name_is(name, "cudaGraphLaunch") || name_is(name, "hipGraphLaunch") ||
           name_is(name, "cuGraphLaunch");
}

/* Step containing ts (s.ts <= ts < s.ts + s.dur) among steps sorted by ts;
 * device < 0: any device, else only steps whose event has that pid.  When
 * several contain it, the one written last in the file wins (HTA).
 * *until: the next time after ts at which a step starts or ends, so every
 * time in [ts, *until) gets the same answer (kt_step_cursor's memo).      */
static int64_t step_at(const kt_rank *r, const kt_step *steps, size_t n, int64_t maxdur,
                       int64_t ts, bool any_device, int64_t device, int64_t *until)
{
    size_t lo = 0, hi = n; /* first step with s.ts > ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (steps[mid].ts <= ts) lo = mid + 1;
        else hi = mid;
    }
    *until = lo < n ? steps[lo].ts : INT64_MAX;
    const kt_step *best = NULL;
    /* steps left unvisited end by steps[j].ts + maxdur <= ts */
    for (size_t j = lo; j-- > 0 && steps[j].ts + maxdur > ts;) {
        const kt_step *s = &steps[j];
        int64_t end = s->ts + s->dur;
        if (ts >= end) continue;
        if (end < *until) *until = end;
        if ((any_device || kt_event_pid(r, s->ev) == device) && (!best || s->ev > best->ev)) best = s;
    }
    return best ? best->num : -1;
}

/* The memo's answer when it covers (ts, device), else a fresh one kept. */
static int64_t step_memo(const kt_rank *r, kt_step_memo *m, const kt_step *steps, size_t n,
                         int64_t maxdur, int64_t ts, bool any_device, int64_t device)
{
    if (ts >= m->from && ts < m->until && device == m->device) return m->step;
    int64_t until, step = step_at(r, steps, n, maxdur, ts, any_device, device, &until);
    *m = (kt_step_memo){ .from = ts, .until = until, .device = device, .step = step };
    return step;
}

/* The CPU step containing ts, through the cursor's CPU memo. */
static int64_t cpu_step_at(const kt_rank *r, kt_step_cursor *c, int64_t ts)
{
    const kt_index *idx = r->idx;
    return step_memo(r, &c->cpu, idx->cpu_steps, idx->ncpu_steps, idx->cpu_step_maxdur, ts, true, 0);
}

int64_t kt_event_step_at(const kt_rank *r, uint32_t ev, kt_step_cursor *c)
{
    const kt_index *idx = r->idx;
    uint8_t k = r->ev.kind[ev];
    if (!kt_kind_is_gpu_side(k) && k != KT_K_GPU_ANNOTATION) return cpu_step_at(r, c, r->ev.ts[ev]);
    int64_t step = step_memo(r, &c->gpu, idx->gpu_steps, idx->ngpu_steps, idx->gpu_step_maxdur, r->ev.ts[ev],
                             false, kt_event_pid(r, ev));
    if (step >= 0) return step;
    uint32_t rt = kt_gpu_launcher(r, ev);
    return rt == KT_NONE ? -1 : cpu_step_at(r, c, r->ev.ts[rt]);
}

int64_t kt_event_step(const kt_rank *r, uint32_t ev)
{
    kt_step_cursor c = { 0 };
    return kt_event_step_at(r, ev, &c);
}

/* HTA's origin (A2.10): the earliest complete event it keeps (ph X with a
 * category, except the profiler's "Trace" span), over every rank.          */
void kt_trace_align(kt_trace *t)
{
    int64_t min = INT64_MAX;
    for (size_t k = 0; k < t->nranks; k++)
        min = t->ranks[k]->summary.origin < min ? t->ranks[k]->summary.origin : min;
    t->min_ts = min == INT64_MAX ? 0 : min;
}
