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

#define BLEED_TOLERANCE_NS 1000

static bool in_tree(const kt_events *e, uint32_t i)
{
    uint8_t k = e->kind[i];
    return e->ph[i] == 'X' && e->dur[i] >= 0 &&
           (k == KT_K_CPU_OP || k == KT_K_USER_ANNOTATION || k == KT_K_PYTHON_FUNCTION ||
            k == KT_K_RUNTIME || k == KT_K_DRIVER);
}

static bool same_thread(const kt_events *e, uint32_t a, uint32_t b)
{
    return e->pid[a] == e->pid[b] && e->tid[a] == e->tid[b];
}

/* Order one run of equal (thread, ts) events longer first, file order
 * among equal durations (ids arrive in file order: the sorts are stable). */
static bool sort_run(const kt_events *e, uint32_t *ids, size_t n)
{
    if (n <= 16) { /* the usual case: insertion sort, no allocation */
        for (size_t k = 1; k < n; k++) {
            uint32_t v = ids[k];
            size_t j = k;
            for (; j > 0 && e->dur[ids[j - 1]] < e->dur[v]; j--) ids[j] = ids[j - 1];
            ids[j] = v;
        }
        return true;
    }
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys) return false;
    for (size_t k = 0; k < n; k++) keys[k] = (uint64_t)(INT64_MAX - e->dur[ids[k]]);
    bool ok = kt_radix_sort(keys, ids, n);
    free(keys);
    return ok;
}

static bool longer_first(const kt_events *e, uint32_t *ids, size_t n)
{
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && e->ts[ids[b]] == e->ts[ids[a]] && same_thread(e, ids[a], ids[b]); b++)
            ;
        if (b - a > 1 && !sort_run(e, ids + a, b - a)) return false;
    }
    return true;
}

/* Tree members ordered by (pid, tid, ts, longer first, file order). */
static uint32_t *thread_order(const kt_events *e, size_t *count)
{
    size_t n = 0;
    uint32_t *ids = kt_select_events(e, in_tree, &n);
    if (ids && kt_sort_ids_by_i64(ids, n, e->ts) && kt_sort_ids_by_i64(ids, n, e->tid) &&
        kt_sort_ids_by_i64(ids, n, e->pid) && longer_first(e, ids, n)) {
        *count = n;
        return ids;
    }
    free(ids);
    return NULL;
}

static int64_t end_of(const kt_events *e, uint32_t i) { return e->ts[i] + e->dur[i]; }

/* One thread's events (in thread order): set parent[], using stack as space. */
static void build_thread(const kt_events *e, const uint32_t *ids, size_t n, uint32_t *stack,
                         uint32_t *parent)
{
    size_t depth = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t ev = ids[k];
        while (depth && e->ts[ev] >= end_of(e, stack[depth - 1])) depth--;
        if (depth && end_of(e, ev) > end_of(e, stack[depth - 1])) {
            int64_t overlap = end_of(e, stack[depth - 1]) - e->ts[ev];
            if (overlap >= BLEED_TOLERANCE_NS || depth < 2) continue; /* left out */
            depth--;                                                   /* sibling */
        }
        parent[ev] = depth ? stack[depth - 1] : KT_NONE;
        stack[depth++] = ev;
    }
}

kt_status kt_build_call_tree(const kt_rank *r, kt_index *idx)
{
    const kt_events *e = &r->ev;
    idx->parent = kt_none_array(e->n);
    size_t n = 0;
    uint32_t *ids = idx->parent ? thread_order(e, &n) : NULL;
    uint32_t *stack = ids ? malloc((n ? n : 1) * sizeof *stack) : NULL;
    if (!stack) { free(ids); return KT_ENOMEM; }
    for (size_t start = 0, k = 1; start < n; k++) {
        if (k < n && same_thread(e, ids[k], ids[start])) continue;
        build_thread(e, ids + start, k - start, stack, idx->parent);
        start = k;
    }
    free(stack);
    free(ids);
    return KT_OK;
}
