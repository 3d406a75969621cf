/*
 * critical_path_cpu.c — the CPU side of the critical-path graph (spec A4.11
 * step 3b): per thread, the call stack HTA's old CallGraph builds (A4.15)
 * walked depth first, chaining each op's start and end through its
 * children, and consecutive top-level ops by zero-weight dependencies.
 *
 * The nesting is rebuilt here rather than taken from the index's call tree
 * because HTA's differs on purpose-irrelevant but result-relevant details
 * (its tie order at equal times, an end popping whatever is on top of the
 * stack for overlapping ops), and the critical path follows that tree.
 */
#include "analysis/structure/critical_path_graph.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

#define ROOT KT_NONE

/* One endpoint of an event of the thread: k = local event, start or end. */
typedef struct endpoint {
    int64_t time, dur;
    uint32_t k;
    bool start;
} endpoint;

/* HTA's compare_events for endpoints at the same time. */
static int cmp_same_time(const endpoint *x, const endpoint *y)
{
    if (x->k == y->k) return x->start ? -1 : 1;
    if (x->start == y->start) {
        if (x->dur == y->dur) return x->start ? (x->k < y->k ? -1 : 1) : (x->k < y->k ? 1 : -1);
        if (x->start) return x->dur < y->dur ? 1 : -1;
        return x->dur < y->dur ? -1 : 1;
    }
    if (x->dur > 0 && y->dur > 0) return x->start ? 1 : -1;
    if (x->dur == 0 && y->dur == 0) return x->k < y->k ? -1 : 1;
    return x->start ? -1 : 1;
}

/* HTA's rules inside runs of equal times of an already time-sorted run. */
static void order_ties(endpoint *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        endpoint x = p[i];
        size_t j = i;
        while (j > 0 && p[j - 1].time == x.time && cmp_same_time(&x, &p[j - 1]) < 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

/* Ends in time order, ties by local id (a stable sort), from the starts'
 * order: nested calls end in the reverse of the order they began, so
 * popping a stack of the calls still open as each next one starts lists
 * the ends almost sorted, and an insertion sort with a budget of moves
 * finishes that (a radix sort of the ends was a sixth of the analysis).
 * Calls that overlap without nesting overrun the budget: a full sort.   */
static bool insertion_sort_within(uint32_t *ids, size_t n, const int64_t *key, size_t budget)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = ids[i];
        size_t j = i;
        for (; j > 0 && (key[ids[j - 1]] > key[x] || (key[ids[j - 1]] == key[x] && ids[j - 1] > x)); j--) {
            if (budget-- == 0) return false;
            ids[j] = ids[j - 1];
        }
        ids[j] = x;
    }
    return true;
}

static bool order_ends(const int64_t *start, const int64_t *end, const uint32_t *by_start, size_t n,
                       uint32_t *ids, uint32_t *stack)
{
    size_t depth = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = by_start[i];
        while (depth && end[stack[depth - 1]] <= start[e]) ids[k++] = stack[--depth];
        stack[depth++] = e;
    }
    while (depth) ids[k++] = stack[--depth];
    if (insertion_sort_within(ids, n, end, 2 * n)) return true;
    for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
    return kt_sort_ids_by_i64_using(ids, n, end, stack);
}

/* The endpoints of one side (starts or ends) in the order ids gives, with
 * HTA's rules inside runs of equal times.                                  */
static void side_endpoints(const int64_t *time, const int64_t *dur, const uint32_t *ids, size_t n, bool starts,
                           endpoint *out)
{
    for (size_t k = 0; k < n; k++) out[k] = (endpoint){ time[ids[k]], dur[ids[k]], ids[k], starts };
    order_ties(out, n);
}

/* The starts in time order (events are mostly written in start order: a
 * few runs to merge) and the ends, as endpoints.                          */
static bool sorted_sides(const int64_t *start, const int64_t *dur, size_t n, endpoint *side)
{
    int64_t *end = malloc((n ? n : 1) * sizeof *end);
    uint32_t *by_start = malloc((n ? n : 1) * sizeof *by_start), *by_end = malloc((n ? n : 1) * sizeof *by_end);
    uint32_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
    bool ok = end && by_start && by_end && scratch;
    for (size_t k = 0; ok && k < n; k++) end[k] = start[k] + dur[k], by_start[k] = (uint32_t)k;
    ok = ok && kt_sort_ids_by_i64_using(by_start, n, start, scratch) &&
         order_ends(start, end, by_start, n, by_end, scratch);
    if (ok) {
        side_endpoints(start, dur, by_start, n, true, side);
        side_endpoints(end, dur, by_end, n, false, side + n);
    }
    free(end);
    free(by_start);
    free(by_end);
    free(scratch);
    return ok;
}

/* All endpoints in HTA's order (compare_events): the sorted starts and
 * sorted ends merged, equal times decided by HTA's rules.                  */
static bool sort_endpoints(const int64_t *start, const int64_t *dur, size_t n, endpoint *p)
{
    endpoint *side = malloc((n ? 2 * n : 1) * sizeof *side);
    bool ok = side && sorted_sides(start, dur, n, side);
    for (size_t i = 0, a = 0, b = n; ok && i < 2 * n; i++) {
        bool take_start = b == 2 * n ||
                          (a < n && (side[a].time < side[b].time ||
                                     (side[a].time == side[b].time && cmp_same_time(&side[a], &side[b]) < 0)));
        p[i] = take_start ? side[a++] : side[b++];
    }
    free(side);
    return ok;
}

/* The thread's call tree as first-child / next-sibling lists (local ids;
 * ROOT's children in root_first).                                          */
typedef struct tree {
    uint32_t *parent, *first, *last, *next;
    uint32_t root_first, root_last;
} tree;

static void add_child(tree *t, uint32_t parent, uint32_t k)
{
    t->parent[k] = parent;
    uint32_t *first = parent == ROOT ? &t->root_first : &t->first[parent];
    uint32_t *last = parent == ROOT ? &t->root_last : &t->last[parent];
    if (*first == KT_NONE) *first = k;
    else t->next[*last] = k;
    *last = k;
}

static void build_tree(const endpoint *p, size_t np, tree *t, uint32_t *stack)
{
    size_t depth = 0;
    for (size_t i = 0; i < np; i++) {
        if (p[i].start) {
            add_child(t, depth ? stack[depth - 1] : ROOT, p[i].k);
            stack[depth++] = p[i].k;
        } else if (depth) {
            depth--; /* HTA pops whatever is on top */
        }
    }
}

/* The walk's state (HTA's enter_func / exit_func closure). */
typedef struct walk {
    cp_graph *g;
    uint32_t last_node, last_parent;
    int depth;
} walk;

static uint32_t parent_event(const uint32_t *evs, const tree *t, uint32_t k)
{
    return t->parent[k] == ROOT ? KT_NONE : evs[t->parent[k]];
}

/* Both runtime-lock calls and not an end followed by a start: the lock
 * edges (cp_add_lock_edges) order them already.                           */
static bool shares_lock(const walk *w, uint32_t a, uint32_t b)
{
    const uint8_t *flags = w->g->flags;
    return (flags[a] & CP_NODE_LOCK) && (flags[b] & CP_NODE_LOCK) &&
           ((flags[a] & CP_NODE_START) || !(flags[b] & CP_NODE_START));
}

static void enter(walk *w, uint32_t ev, uint32_t parent_ev)
{
    cp_graph *g = w->g;
    uint32_t start = g->start_of[ev];
    if (start == KT_NONE) return;
    if (w->last_node != KT_NONE && !shares_lock(w, w->last_node, start)) {
        cp_add_edge(g, w->last_node, start, w->depth == 0 ? CP_DEPENDENCY : CP_OPERATOR, false);
        cp_attribute(g, w->last_parent);
    }
    w->last_node = start;
    w->last_parent = parent_ev;
    w->depth++;
}

static void leave(walk *w, uint32_t ev, uint32_t parent_ev)
{
    cp_graph *g = w->g;
    uint32_t start = g->start_of[ev];
    if (start == KT_NONE) return;
    uint32_t end = g->end_node[start];
    if (w->last_node != KT_NONE && !shares_lock(w, w->last_node, end)) {
        cp_add_edge(g, w->last_node, end, CP_OPERATOR, g->flags[start] & CP_NODE_BLOCKING);
        cp_attribute(g, w->last_parent);
    }
    w->last_node = end;
    w->last_parent = parent_ev;
    w->depth--;
}

/* Depth first over the tree, children in order, without recursion. */
static void walk_tree(const uint32_t *evs, const tree *t, uint32_t *stack, cp_graph *g)
{
    walk w = { .g = g, .last_node = KT_NONE, .last_parent = KT_NONE };
    size_t depth = 0;
    uint32_t k = t->root_first;
    while (k != KT_NONE) {
        enter(&w, evs[k], parent_event(evs, t, k));
        if (t->first[k] != KT_NONE) {
            stack[depth++] = k;
            k = t->first[k];
            continue;
        }
        leave(&w, evs[k], parent_event(evs, t, k));
        while (t->next[k] == KT_NONE && depth) {
            k = stack[--depth];
            leave(&w, evs[k], parent_event(evs, t, k));
        }
        k = t->next[k];
    }
}

static kt_status thread_edges(const kt_events *e, const uint32_t *evs, size_t n, cp_graph *g)
{
    endpoint *p = malloc((n ? 2 * n : 1) * sizeof *p);
    int64_t *start = malloc((n ? n : 1) * sizeof *start), *dur = malloc((n ? n : 1) * sizeof *dur);
    tree t = { .parent = malloc((n ? n : 1) * sizeof(uint32_t)), .first = malloc((n ? n : 1) * sizeof(uint32_t)),
               .last = malloc((n ? n : 1) * sizeof(uint32_t)), .next = malloc((n ? n : 1) * sizeof(uint32_t)),
               .root_first = KT_NONE, .root_last = KT_NONE };
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    bool ok = p && start && dur && t.parent && t.first && t.last && t.next && stack;
    for (size_t k = 0; ok && k < n; k++) {
        start[k] = e->ts[evs[k]];
        dur[k] = e->dur[evs[k]] > 0 ? e->dur[evs[k]] : 0;
        t.first[k] = t.last[k] = t.next[k] = KT_NONE;
    }
    ok = ok && sort_endpoints(start, dur, n, p);
    if (ok) {
        build_tree(p, 2 * n, &t, stack);
        walk_tree(evs, &t, stack, g);
    }
    free(p);
    free(start);
    free(dur);
    free(t.parent);
    free(t.first);
    free(t.last);
    free(t.next);
    free(stack);
    return ok ? KT_OK : KT_ENOMEM;
}

/* HTA merges the backward thread into the forward one so that backward
 * ops chain after forward ops: each is the only thread with cpu_op or
 * user_annotation events whose names contain "forward" / "autograd".      */
typedef struct tid_remap {
    int32_t from, to;
    bool on;
} tid_remap;

enum { NAME_SEEN = 1, NAME_FORWARD = 2, NAME_AUTOGRAD = 4 };

/* The only thread with such an event, INT32_MIN if none or several. */
static void note_tid(int32_t *tid, bool *several, int32_t t)
{
    if (*tid == INT32_MIN) *tid = t;
    else if (*tid != t) *several = true;
}

static tid_remap backward_remap(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t nkept)
{
    const kt_events *e = &r->ev;
    tid_remap m = { 0 };
    uint8_t *memo = calloc(kt_strtab_count(strs) + 1, 1);
    if (!memo) return m;
    int32_t fwd = INT32_MIN, bwd = INT32_MIN;
    bool fwd_many = false, bwd_many = false;
    for (size_t j = 0; j < nkept; j++) {
        uint32_t i = kept[j];
        if (e->name[i] == KT_NONE || (e->kind[i] != KT_K_CPU_OP && e->kind[i] != KT_K_USER_ANNOTATION)) continue;
        uint8_t *f = &memo[e->name[i]];
        if (!*f) {
            const char *name = kt_strtab_get(strs, e->name[i]);
            *f = NAME_SEEN | (strstr(name, "forward") ? NAME_FORWARD : 0) |
                 (strstr(name, "autograd") ? NAME_AUTOGRAD : 0);
        }
        if (*f & NAME_FORWARD) note_tid(&fwd, &fwd_many, kt_ev_tid(e, i));
        if (*f & NAME_AUTOGRAD) note_tid(&bwd, &bwd_many, kt_ev_tid(e, i));
    }
    free(memo);
    if (fwd != INT32_MIN && bwd != INT32_MIN && !fwd_many && !bwd_many && fwd != bwd && fwd != 0 && bwd != 0)
        m = (tid_remap){ bwd, fwd, true };
    return m;
}

static int32_t thread_of(const tid_remap *m, const kt_events *e, uint32_t i)
{
    return m->on && kt_ev_tid(e, i) == m->from ? m->to : kt_ev_tid(e, i);
}

static bool same_thread(const tid_remap *m, const kt_events *e, uint32_t a, uint32_t b)
{
    return kt_ev_pid(e, a) == kt_ev_pid(e, b) && thread_of(m, e, a) == thread_of(m, e, b);
}

/* Runs of kept events, in file order, that are on one thread: heads[r] is
 * where run r starts in ids, heads[nruns] = n.                           */
static size_t thread_runs(const kt_events *e, const tid_remap *m, const uint32_t *ids, size_t n, uint32_t *heads)
{
    size_t nruns = 0;
    for (size_t j = 0; j < n; j++)
        if (j == 0 || !same_thread(m, e, ids[j - 1], ids[j])) heads[nruns++] = (uint32_t)j;
    heads[nruns] = (uint32_t)n;
    return nruns;
}

/* The distinct threads of the runs (pid and tid values), each run's
 * thread found through an open-addressing table of them.               */
typedef struct thread_set {
    int64_t *pid, *tid;  /* by thread, in order of first run */
    uint32_t *slot;      /* table of thread numbers, KT_NONE empty */
    size_t n, mask;
} thread_set;

static uint32_t thread_number(thread_set *ts, int64_t pid, int64_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15u) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Fu);
    size_t at = (size_t)(h ^ (h >> 29)) & ts->mask;
    for (; ts->slot[at] != KT_NONE; at = (at + 1) & ts->mask)
        if (ts->pid[ts->slot[at]] == pid && ts->tid[ts->slot[at]] == tid) return ts->slot[at];
    ts->pid[ts->n] = pid, ts->tid[ts->n] = tid;
    return ts->slot[at] = (uint32_t)ts->n++;
}

static int by_pid_tid(const void *a, const void *b, void *ctx)
{
    const thread_set *ts = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ts->pid[x] != ts->pid[y]) return ts->pid[x] < ts->pid[y] ? -1 : 1;
    return (ts->tid[x] > ts->tid[y]) - (ts->tid[x] < ts->tid[y]); /* distinct threads: never equal */
}

/* Runs r in thread order: (pid, tid) as pandas' groupby, file order among
 * a thread's runs.  A thread's events mostly come together in the file
 * and a trace has few threads: the runs are dealt out to their threads,
 * the threads sorted (two radix sorts of the runs' keys cost four times
 * as much).                                                              */
static uint32_t *runs_by_thread(const kt_rank *r, const tid_remap *m, const uint32_t *ids, const uint32_t *heads,
                                size_t nruns)
{
    size_t cap = 16;
    while (cap < 2 * nruns) cap *= 2;
    thread_set ts = { .pid = malloc((nruns + 1) * sizeof *ts.pid), .tid = malloc((nruns + 1) * sizeof *ts.tid),
                      .slot = malloc(cap * sizeof *ts.slot), .mask = cap - 1 };
    uint32_t *ord = malloc((nruns + 1) * sizeof *ord), *th = malloc((nruns + 1) * sizeof *th);
    uint32_t *at = malloc((nruns + 1) * sizeof *at), *rank = malloc((nruns + 1) * sizeof *rank);
    bool ok = ts.pid && ts.tid && ts.slot && ord && th && at && rank;
    if (ok) memset(ts.slot, 0xff, cap * sizeof *ts.slot); /* KT_NONE */
    for (size_t k = 0; ok && k < nruns; k++) {
        uint32_t ev = ids[heads[k]];
        th[k] = thread_number(&ts, kt_event_pid(r, ev), kt_rank_id_get(r, thread_of(m, &r->ev, ev)));
    }
    for (size_t t = 0; ok && t < ts.n; t++) rank[t] = (uint32_t)t;
    if (ok) qsort_r(rank, ts.n, sizeof *rank, by_pid_tid, &ts);
    for (size_t t = 0; ok && t <= ts.n; t++) at[t] = 0;
    for (size_t k = 0; ok && k < nruns; k++) at[th[k] + 1]++; /* runs per thread */
    for (size_t t = 0, first = 0; ok && t < ts.n; t++) { /* where each thread's runs start, in thread order */
        size_t count = at[rank[t] + 1];
        at[rank[t] + 1] = (uint32_t)first;
        first += count;
    }
    for (size_t k = 0; ok && k < nruns; k++) ord[at[th[k] + 1]++] = (uint32_t)k;
    free(ts.pid), free(ts.tid), free(ts.slot), free(th), free(at), free(rank);
    if (!ok) {
        free(ord);
        return NULL;
    }
    return ord;
}

/* Kept events grouped by thread, threads ordered by (pid, tid) as pandas'
 * groupby does, events in file order inside a thread.                     */
static uint32_t *events_by_thread(const kt_rank *r, const uint32_t *kept, size_t n, const tid_remap *m)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out), *heads = malloc((n + 1) * sizeof *heads), *ord = NULL;
    size_t nruns = 0;
    if (out && heads) nruns = thread_runs(&r->ev, m, kept, n, heads), ord = runs_by_thread(r, m, kept, heads, nruns);
    for (size_t j = 0, w = 0; ord && j < nruns; j++)
        for (uint32_t x = heads[ord[j]]; x < heads[ord[j] + 1]; x++) out[w++] = kept[x];
    if (!ord) free(out), out = NULL;
    free(heads);
    free(ord);
    return out;
}

kt_status cp_add_cpu_edges(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t n, cp_graph *g)
{
    const kt_events *e = &r->ev;
    tid_remap m = backward_remap(r, strs, kept, n);
    uint32_t *ids = events_by_thread(r, kept, n, &m);
    if (!ids) return KT_ENOMEM;
    kt_status s = KT_OK;
    for (size_t a = 0, b; s == KT_OK && a < n; a = b) {
        bool gpu = false;
        int32_t tid = thread_of(&m, e, ids[a]);
        for (b = a; b < n && kt_ev_pid(e, ids[b]) == kt_ev_pid(e, ids[a]) && thread_of(&m, e, ids[b]) == tid; b++)
            gpu |= cp_is_stream_event(e, ids[b]);
        if (!gpu) s = thread_edges(e, ids + a, b - a, g); /* HTA: CPU threads only */
    }
    free(ids);
    return s;
}
