/*
 * index.h — per-rank indexes over the event table.
 *
 * Analyses ask the same structural questions again and again (which kernels
 * ran on this stream, which runtime call launched this kernel, which CPU op
 * is its launcher, which step is it in).  They are answered once here, after
 * loading (the CPU call trees and flows on first use), so each analysis is a
 * scan over prepared arrays.
 */
#ifndef KT_INDEX_H
#define KT_INDEX_H

#include "model.h"

#include <pthread.h>
#include <stdatomic.h>

/* One GPU queue: the GPU events (kernel, memcpy, memset, and cuda_sync events
 * that carry a stream) of one (device, stream), sorted by ts, ties by file
 * order.  ROCm puts kernels on stream 0; that is a stream like any other.  */
typedef struct kt_gpu_stream {
    int64_t device;   /* the GPU events' pid (Kineto writes the device id)  */
    int32_t stream;
    uint32_t *ev;
    size_t n;
} kt_gpu_stream;

/* A ProfilerStep#N interval (CPU: user_annotation; GPU: gpu_user_annotation) */
typedef struct kt_step {
    int64_t num;
    uint32_t ev;
    int64_t ts, dur;  /* ns */
} kt_step;

/* A matched flow (ph s → ph f with the same cat and id). */
typedef struct kt_flow {
    uint32_t start, end;
} kt_flow;

typedef struct kt_index {
    kt_gpu_stream *streams;  /* sorted by (device, stream) */
    size_t nstreams;
    uint32_t *stream_events; /* storage the streams' ev arrays point into */

    /* correlation links, one per event (an event is either GPU-side or a
     * call, never both): a GPU-side event's launching runtime/driver call;
     * a call's group in launched[]; KT_NONE for none and for every other
     * event.  Read them through kt_gpu_launcher / kt_launched_events.     */
    uint32_t *link;
    /* the groups: for each call that launched GPU work (several events for
     * graph launches), its count, then its GPU events in ts order; the
     * groups in their calls' file order.                                   */
    uint32_t *launched;
    size_t launched_len;

    /* CPU call tree: parent complete event on the same (pid, tid) with
     * TraceLens's bleed tolerance; KT_NONE for roots and non-CPU events.
     * NULL until kt_index_call_tree().                                     */
    uint32_t *parent;

    kt_step *cpu_steps;  size_t ncpu_steps;  /* sorted by ts, ties file order */
    kt_step *gpu_steps;  size_t ngpu_steps;  /* sorted by ts, ties file order */
    int64_t cpu_step_maxdur, gpu_step_maxdur; /* bound the containment search */

    kt_flow *flows;      size_t nflows;

    /* parent and flows are built on first use (kt_index_call_tree,
     * kt_index_flows): 0 not yet, 1 built, -status when building failed. */
    pthread_mutex_t lazy_lock;
    atomic_int call_tree_state, flows_state;
} kt_index;

/* Build (or rebuild) r->idx.  Needs the shared string table for names.
 * Large ranks use a second thread (the result does not depend on it).     */
kt_status kt_index_build(kt_rank *r, const kt_strtab *strs);
/* The same with at most `threads` threads (1 or 2): callers already running
 * one thread per core (the loader's pool) pass 1.                          */
kt_status kt_index_build_threads(kt_rank *r, const kt_strtab *strs, int threads);
void kt_index_free(kt_index *idx);
/* The CPU call trees and the matched flows are built when first asked for,
 * not by the loader: most analyses never walk them, and the call tree is
 * the largest part of an index.  Thread-safe; KT_OK once built.          */
kt_status kt_index_call_tree(const kt_rank *r);
kt_status kt_index_flows(const kt_rank *r);

/* Runtime/driver call that launched a GPU event, or KT_NONE. */
uint32_t kt_gpu_launcher(const kt_rank *r, uint32_t gpu_ev);
/* GPU events launched by a runtime call (ts order); returns the count. */
size_t kt_launched_events(const kt_rank *r, uint32_t rt_ev, const uint32_t **evs);
/* Nearest enclosing cpu_op (skipping python_function and annotations) of
 * the call that launched gpu_ev; KT_NONE if unlinked or no op encloses it
 * (or the call tree could not be built: analyses call kt_index_call_tree
 * first to report that).                                                   */
uint32_t kt_launcher_op(const kt_rank *r, uint32_t gpu_ev);
/* True for cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch calls. */
bool kt_is_graph_launch(const kt_rank *r, const kt_strtab *strs, uint32_t rt_ev);
/* ProfilerStep number an event belongs to, or -1.  GPU events: the GPU-side
 * step annotation containing their start where present, else the step of
 * their launching call; CPU events: the CPU step containing their start.   */
int64_t kt_event_step(const kt_rank *r, uint32_t ev);
/* kt_event_step for many events, mostly in time order (a stream's kernels):
 * the cursor remembers the last answer and the span of times it holds for
 * (no step starts or ends inside), so most lookups skip the search.  Start
 * from a zeroed cursor; the answers equal kt_event_step's in any order.    */
typedef struct kt_step_memo {
    int64_t from, until, device, step;
} kt_step_memo;
typedef struct kt_step_cursor {
    kt_step_memo gpu, cpu;
} kt_step_cursor;
int64_t kt_event_step_at(const kt_rank *r, uint32_t ev, kt_step_cursor *c);

/* N of a "ProfilerStep#N" name (HTA: ProfilerStep\s*#\s*(\d+) at the
 * start), or -1.                                                             */
int64_t kt_profiler_step_number(const char *name);

/* Cross-rank origin (A2.10): t->min_ts = min ts over every rank.            */
void kt_trace_align(kt_trace *t);

/* HTA load semantics for --hta-compat, in HTA's order: keep only complete
 * events with a category, minus the "Trace" span (A2.2); round times of
 * ns_resolution ranks to whole µs as HTA does (A2.3: dur can become 0 or
 * -1 µs); set t->min_ts (A2.10, before filtering, as HTA); drop the last
 * ProfilerStep and GPU events without a kept launch, duplicates and MTIA
 * variant included (A2.11).  Then builds every rank's indexes (the loader
 * leaves them unbuilt under hta_compat).  Call it instead of
 * kt_trace_align, after loading all ranks.  HTA's rows are those the
 * loader read (kt_rank.hta_rows, hta_rows.h), else read here.  Uses up to
 * two threads; the rows and their order do not depend on the number.       */
kt_status kt_apply_hta_compat(kt_trace *t);
kt_status kt_apply_hta_compat_threads(kt_trace *t, int threads); /* 1: on this thread only */
/* A2.3 for one event's times (ns in, ns out): ts = ceil(ts), end =
 * floor(ts + dur), dur = end - ts in whole µs, in float64 as pandas does.
 * For analyses that apply HTA's parse semantics to a trace loaded as
 * written (diff: HTA's TraceDiff parses without the step filtering).      */
void kt_hta_round_us(int64_t *ts_ns, int64_t *dur_ns);

#endif /* KT_INDEX_H */
