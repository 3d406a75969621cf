/*
 * call_tree.c — the CPU call stack of every thread: the parent of each CPU
 * complete event.
 *
 * Launcher ops (which aten op caused a kernel), op self time and call-stack
 * views need to know what encloses what.  Kineto writes only flat intervals,
 * and their ends are not perfectly nested: a launch call may start a few
 * hundred ns before its sibling op ends.  We rebuild the stacks with
 * TraceLens's rule (Trace2Tree.build_host_call_stack_tree):
 *   - per (pid, tid), events by start time; at equal start the longer first
 *     (so a parent precedes the child it shares a start with), then file order;
 *   - pop the stack while the event starts at or after the top's end;
 *   - "bleed": if the event ends after the top ends, and the overlap
 *     (top end − event start) is < 1 µs and the top has a parent, the top is
 *     really a sibling: pop it and attach the event to the new top; otherwise
 *     the event is left out of the tree (no parent, never a parent).
 * Tree members: cpu_op, user_annotation, python_function, runtime and driver
 * calls with dur >= 0.  Unlike TraceLens's default we keep python_function
 * and annotations in the stack; kt_launcher_op() skips them when walking up.
 */
#include "index_build.h"
#include "radix.h"

#include <stdlib.h>
#include <string.h>

#define BLEED_TOLERANCE_NS 1000

static bool in_tree(const kt_events *e, uint32_t i)
{
    uint8_t k = e->kind[i];
    return e->ph[i] == 'X' && e->dur[i] >= 0 &&
           (k == KT_K_CPU_OP || k == KT_K_USER_ANNOTATION || k == KT_K_PYTHON_FUNCTION ||
            k == KT_K_RUNTIME || k == KT_K_DRIVER);
}

/* Dense thread numbers for (pid, tid) pairs: a growing open-addressing
 * table (a trace has a handful to a few thousand threads).                 */
typedef struct thread_table {
    int32_t *pid, *tid;
    uint32_t *num; /* KT_NONE = empty slot */
    size_t mask, count;
} thread_table;

static size_t thread_slot(const thread_table *t, int32_t pid, int32_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15u) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Fu);
    size_t s = (size_t)(h >> 32) & t->mask;
    while (t->num[s] != KT_NONE && (t->pid[s] != pid || t->tid[s] != tid)) s = (s + 1) & t->mask;
    return s;
}

static void thread_table_free(thread_table *t)
{
    free(t->pid);
    free(t->tid);
    free(t->num);
}

static bool thread_table_init(thread_table *t, size_t slots)
{
    *t = (thread_table){ .pid = malloc(slots * sizeof *t->pid), .tid = malloc(slots * sizeof *t->tid),
                         .num = kt_none_array(slots), .mask = slots - 1 };
    return t->pid && t->tid && t->num;
}

static bool thread_table_grow(thread_table *t)
{
    thread_table bigger;
    if (!thread_table_init(&bigger, 2 * (t->mask + 1))) { thread_table_free(&bigger); return false; }
    for (size_t s = 0; s <= t->mask; s++)
        if (t->num[s] != KT_NONE) {
            size_t d = thread_slot(&bigger, t->pid[s], t->tid[s]);
            bigger.pid[d] = t->pid[s], bigger.tid[d] = t->tid[s], bigger.num[d] = t->num[s];
        }
    bigger.count = t->count;
    thread_table_free(t);
    *t = bigger;
    return true;
}

/* The thread number of (pid, tid), numbering new pairs as they come. */
static bool thread_number(thread_table *t, int32_t pid, int32_t tid, uint32_t *num)
{
    if (2 * (t->count + 1) > t->mask + 1 && !thread_table_grow(t)) return false;
    size_t s = thread_slot(t, pid, tid);
    if (t->num[s] == KT_NONE) {
        t->pid[s] = pid, t->tid[s] = tid, t->num[s] = (uint32_t)t->count++;
    }
    *num = t->num[s];
    return true;
}

/* A stretch of events [first, end) whose tree members all belong to one
 * thread.  Kineto writes a thread's events together, so there are few.    */
typedef struct thread_run {
    uint32_t first, end, thread, members;
} thread_run;

typedef struct thread_runs {
    thread_run *run;
    size_t n, cap, nthreads;
    uint64_t *member; /* bit i: event i is a tree member */
} thread_runs;

/* Closes the last run (if any) at end with its member count. */
static void close_run(thread_runs *runs, uint32_t end, uint32_t members)
{
    if (runs->n) runs->run[runs->n - 1].end = end, runs->run[runs->n - 1].members = members;
}

static bool open_run(thread_runs *runs, uint32_t first, uint32_t thread)
{
    if (runs->n == runs->cap) {
        size_t cap = runs->cap ? 2 * runs->cap : 64;
        thread_run *p = realloc(runs->run, cap * sizeof *p);
        if (!p) return false;
        runs->run = p, runs->cap = cap;
    }
    runs->run[runs->n++] = (thread_run){ first, first, thread, 0 };
    return true;
}

/* Bit i % 64 set when event i (of w * 64 ... + 63) is a tree member. */
static uint64_t member_bits(const kt_events *e, size_t w)
{
    uint64_t bits = 0;
    uint32_t end = e->n - w * 64 < 64 ? (uint32_t)e->n : (uint32_t)(w * 64 + 64);
    for (uint32_t i = (uint32_t)(w * 64); i < end; i++) bits |= (uint64_t)in_tree(e, i) << (i % 64);
    return bits;
}

/* Marks the tree members and cuts the events into thread runs, numbering
 * (pid, tid) pairs as they come: the columns are read once, here.          */
static bool split_runs(const kt_events *e, thread_runs *runs)
{
    thread_table t;
    runs->member = kt_alloc_written((e->n / 64 + 1) * sizeof *runs->member);
    bool ok = thread_table_init(&t, 64) && runs->member;
    int32_t pid = 0, tid = 0; /* the open run's */
    uint32_t members = 0;
    for (size_t w = 0; ok && w * 64 < e->n; w++) {
        uint64_t bits = runs->member[w] = member_bits(e, w);
        for (; ok && bits; bits &= bits - 1) {
            uint32_t i = (uint32_t)(w * 64) + (uint32_t)__builtin_ctzll(bits), thread;
            if (!members || kt_ev_pid(e, i) != pid || kt_ev_tid(e, i) != tid) {
                close_run(runs, i, members);
                pid = kt_ev_pid(e, i), tid = kt_ev_tid(e, i), members = 0;
                ok = thread_number(&t, pid, tid, &thread) && open_run(runs, i, thread);
            }
            members++;
        }
    }
    close_run(runs, (uint32_t)e->n, members);
    runs->nthreads = t.count;
    thread_table_free(&t);
    return ok;
}

/* Writes the members among events [first, end) to dst, in order. */
static void append_members(const uint64_t *member, uint32_t first, uint32_t end, uint32_t *dst)
{
    for (uint32_t w = first / 64; first < end && w <= (end - 1) / 64; w++) {
        uint64_t bits = member[w];
        if (w == first / 64) bits &= ~(uint64_t)0 << (first % 64);
        if (w == (end - 1) / 64 && end % 64) bits &= ~(uint64_t)0 >> (64 - end % 64);
        for (; bits; bits &= bits - 1) *dst++ = w * 64 + (uint32_t)__builtin_ctzll(bits);
    }
}

/* Members grouped by thread, file order inside: each run's members are
 * appended to its thread's part; first[t]..first[t+1] is thread t.        */
static uint32_t *group_by_thread(const thread_runs *runs, size_t *first)
{
    for (size_t k = 0; k < runs->n; k++) first[runs->run[k].thread + 1] += runs->run[k].members;
    for (size_t t = 0; t < runs->nthreads; t++) first[t + 1] += first[t];
    uint32_t *out = kt_alloc_written(first[runs->nthreads] * sizeof *out);
    if (!out) return NULL;
    for (size_t k = 0; k < runs->n; k++) {
        const thread_run *run = &runs->run[k];
        append_members(runs->member, run->first, run->end, out + first[run->thread]);
        first[run->thread] += run->members;
    }
    for (size_t t = runs->nthreads; t > 0; t--) first[t] = first[t - 1]; /* undo the cursors */
    first[0] = 0;
    return out;
}

/* Tree members grouped by thread (first[0..nthreads]), each thread ordered
 * by ts (Kineto writes a thread's events nearly in start order: the sort
 * merges a few runs); build_thread() orders the events that share a ts.   */
static uint32_t *thread_order(const kt_events *e, uint32_t *spare, size_t **first_out,
                              size_t *nthreads_out)
{
    thread_runs runs = { 0 };
    bool ok = split_runs(e, &runs);
    size_t *first = ok ? calloc(runs.nthreads + 1, sizeof *first) : NULL;
    uint32_t *out = first ? group_by_thread(&runs, first) : NULL;
    free(runs.run);
    free(runs.member);
    for (size_t t = 0; out && t < runs.nthreads; t++)
        if (!kt_sort_ids_by_i64_using(out + first[t], first[t + 1] - first[t], e->ts, spare)) {
            free(out);
            out = NULL;
        }
    if (!out) { free(first); return NULL; }
    *first_out = first;
    *nthreads_out = runs.nthreads;
    return out;
}

/* Orders the events sharing ids[k]'s ts (longer first); returns the index
 * after them, 0 on OOM.                                                     */
static size_t order_ties(const kt_events *e, uint32_t *ids, size_t n, size_t k)
{
    size_t b = k + 1;
    while (b < n && e->ts[ids[b]] == e->ts[ids[k]]) b++;
    return b - k == 1 || kt_sort_ids_longer_first(ids + k, b - k, e->dur, false) ? b : 0;
}

/* An event on a thread's stack, with its end at hand. */
typedef struct open_event {
    uint32_t ev;
    int64_t end;
} open_event;

/* One thread's events (in ts order; ties ordered on the way): set parent[],
 * using stack as space.  False on OOM.                                     */
static bool build_thread(const kt_events *e, uint32_t *ids, size_t n, open_event *stack,
                         uint32_t *parent)
{
    size_t depth = 0;
    for (size_t k = 0, ties_end = 0; k < n; k++) {
        if (k == ties_end && !(ties_end = order_ties(e, ids, n, k))) return false;
        uint32_t ev = ids[k];
        int64_t ts = e->ts[ev], end = ts + e->dur[ev];
        while (depth && ts >= stack[depth - 1].end) depth--;
        if (depth && end > stack[depth - 1].end) {
            int64_t overlap = stack[depth - 1].end - ts;
            if (overlap >= BLEED_TOLERANCE_NS || depth < 2) continue; /* left out */
            depth--;                                                   /* sibling */
        }
        parent[ev] = depth ? stack[depth - 1].ev : KT_NONE;
        stack[depth++] = (open_event){ ev, end };
    }
    return true;
}

kt_status kt_build_call_tree(const kt_rank *r, kt_index *idx)
{
    const kt_events *e = &r->ev;
    /* parent serves as the sort's spare before it is filled: the pages the
     * merges touch are then the ones parent needs anyway                   */
    idx->parent = kt_alloc_written(e->n * sizeof *idx->parent);
    size_t *first = NULL, nthreads = 0;
    uint32_t *ids = idx->parent ? thread_order(e, idx->parent, &first, &nthreads) : NULL;
    if (ids) memset(idx->parent, 0xff, e->n * sizeof *idx->parent); /* KT_NONE */
    size_t n = ids ? first[nthreads] : 0;
    open_event *stack = ids ? malloc((n ? n : 1) * sizeof *stack) : NULL;
    bool ok = stack;
    for (size_t t = 0; ok && t < nthreads; t++)
        ok = build_thread(e, ids + first[t], first[t + 1] - first[t], stack, idx->parent);
    free(stack);
    free(ids);
    free(first);
    return ok ? KT_OK : KT_ENOMEM;
}
