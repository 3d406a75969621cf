/*
 * critical_path_lock.c — the CUDA runtime lock in the critical-path graph
 * (HTA's _construct_graph_from_cuda_runtime_events, spec A4.11 step 3a).
 *
 * cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc (nodes flagged
 * CP_NODE_LOCK) hold a process-wide lock, so overlapping calls on
 * different threads ran one after another;
 * HTA assumes in order of completion.  Walking the nodes in time order,
 * each call's end is reached from every call start still pending and from
 * the previous call's end.
 */
#include "analysis/structure/critical_path_graph.h"

#include <stdlib.h>

void cp_add_lock_edges(cp_graph *g)
{
    uint32_t *pending = malloc((g->n ? g->n : 1) * sizeof *pending);
    if (!pending) {
        g->oom = true;
        return;
    }
    size_t npending = 0;
    uint32_t last = KT_NONE;
    for (uint32_t v = 0; v < g->n; v++) {
        if (!(g->flags[v] & CP_NODE_LOCK)) continue;
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
}
