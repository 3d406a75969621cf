/*
 * op_tree.h — HTA's call graph of one rank (spec A4.15): every CPU-side
 * complete event with its parent and depth on its thread, the GPU events
 * its launch calls enqueued, and per node the GPU events under it.
 *
 * Frequent kernel sequences (and later other structure analyses) ask
 * "which kernels ran under this op, in what order" and "how deep is it";
 * HTA answers with trace_call_graph.py, and its min-depth rule needs the
 * same depths to give the same answers.  Nesting follows HTA's endpoint
 * order (at equal time a close before an open, the longer event first,
 * zero-length events at one instant nested in file order); negative
 * durations count as 0 (HTA raises "Unexpected case"), and an event
 * overlapping its predecessor's end nests under it.  Under hta_compat the
 * parents are HTA's exactly (hta_nesting.c: its sorts replayed, a close
 * pops whichever event is on top), and only GPU events
 * on streams > 0 hang under launches (HTA's get_cpu_gpu_correlation) and
 * backward-thread ops are re-parented under the main thread's
 * "## backward ##" / ProfilerStep# annotations; by default every GPU event
 * a call launched counts (ROCm stream 0, graph launches, cuda_sync waits).
 */
#ifndef KT_OP_TREE_H
#define KT_OP_TREE_H

#include "model/index.h"

typedef struct kt_op_tree {
    const kt_rank *r;
    uint32_t *node;      /* member events, by thread then start: a node's
                            same-thread descendants follow it             */
    size_t n;
    uint32_t *pos;       /* event id → node number, KT_NONE for non-members */
    uint32_t *parent;    /* node → parent node, KT_NONE at top level       */
    uint32_t *first_child, *next_sibling; /* node → node, KT_NONE         */
    int32_t *depth;      /* node → depth (top level 0)                     */
    uint32_t *nkernels;  /* node → GPU events under it                     */
    int64_t *kernel_dur; /* node → their summed duration (ns)             */
    bool compat;
    bool relinked;       /* compat: HTA's parents (and its backward
                            linking across threads) can follow their
                            children in node order                      */
} kt_op_tree;

kt_status kt_op_tree_build(const kt_trace *t, const kt_rank *r, kt_op_tree *out);
void kt_op_tree_free(kt_op_tree *tr);

/* GPU events a member call enqueued that belong to the tree (see above);
 * returns the count, *evs points into the index.                         */
size_t kt_op_tree_launched(const kt_op_tree *tr, uint32_t node, const uint32_t **evs);
/* Is GPU event g one the tree hangs under its launch (compat: stream > 0)? */
bool kt_op_tree_counts_gpu(const kt_op_tree *tr, uint32_t g);
/* Depth HTA gives event ev: its node's depth, or -1 for non-members.     */
static inline int32_t kt_op_tree_depth(const kt_op_tree *tr, uint32_t ev)
{
    uint32_t p = tr->pos[ev];
    return p == KT_NONE ? -1 : tr->depth[p];
}

#endif
