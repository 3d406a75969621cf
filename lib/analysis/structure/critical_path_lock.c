/*
 * critical_path_lock.c — the CUDA runtime lock in the critical-path graph
 * (HTA's _construct_graph_from_cuda_runtime_events, spec A4.11 step 3a).
 *
 * cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc hold a process-wide
 * lock, so overlapping calls on different threads ran one after another;
 * HTA assumes in order of completion.  Walking the nodes in time order,
 * each call's end is reached from every call start still pending and from
 * the previous call's end.
 */
#include "analysis/structure/critical_path_graph.h"

#include <stdlib.h>

/* Per node: does its event take the lock (names compared as string ids:
 * a strcmp per change of name was two thirds of the lock edges' cost).   */
static uint8_t *lock_nodes(const kt_rank *r, const kt_strtab *strs, const cp_graph *g)
{
    static const char *const calls[] = { "cudaLaunchKernel", "cudaMemcpyAsync", "cudaHostAlloc" };
    uint32_t id[sizeof calls / sizeof *calls];
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) id[i] = kt_strtab_find(strs, calls[i], strlen(calls[i]));
    uint8_t *lock = calloc(g->n ? g->n : 1, 1);
    for (size_t v = 0; lock && v < g->n; v++) {
        uint32_t name = r->ev.name[g->ev[v]];
        lock[v] = name != KT_NONE && (name == id[0] || name == id[1] || name == id[2]);
    }
    return lock;
}

kt_status cp_add_lock_edges(const kt_rank *r, const kt_strtab *strs, cp_graph *g, uint8_t **lock_out)
{
    uint8_t *lock = lock_nodes(r, strs, g);
    uint32_t *pending = malloc((g->n ? g->n : 1) * sizeof *pending);
    if (!lock || !pending) {
        free(lock);
        free(pending);
        return KT_ENOMEM;
    }
    size_t npending = 0;
    uint32_t last = KT_NONE;
    for (uint32_t v = 0; v < g->n; v++) {
        if (!lock[v]) continue;
        if (g->flags[v] & CP_NODE_START) {
            pending[npending++] = v;
        } else {
            while (npending) {
                uint32_t u = pending[--npending];
                bool same = g->ev[u] == g->ev[v];
                cp_add_edge(g, u, v, same ? CP_OPERATOR : CP_DEPENDENCY, false);
                if (same) cp_attribute(g, g->ev[v]);
            }
            if (last != KT_NONE && !(g->flags[last] & CP_NODE_START)) cp_add_edge(g, last, v, CP_DEPENDENCY, false);
        }
        last = v;
    }
    free(pending);
    *lock_out = lock;
    return KT_OK;
}
