/*
 * critical_path_graph.h — the critical-path graph of one rank (spec A4.11):
 * the map half of `kineta critical-path`.
 *
 * Every CPU op, runtime/driver call and launched GPU event of the region of
 * interest becomes a start node and an end node; edges say "this point in
 * time cannot come before that one" and weigh the time between them.  The
 * longest path through that DAG is the critical path.  The graph is kept
 * as flat arrays (about 40 bytes per event) so it scales to 1 GiB traces,
 * and in HTA's edge insertion order because networkx breaks ties between
 * equally long paths by that order: --hta-compat reproduces them.
 */
#ifndef KT_CRITICAL_PATH_GRAPH_H
#define KT_CRITICAL_PATH_GRAPH_H

#include "model/index.h"

/* Edge kinds, in HTA's CPEdgeType order; the value strings are cp_type_name(). */
typedef enum cp_edge_type {
    CP_OPERATOR = 0,     /* time inside an op or kernel                     */
    CP_DEPENDENCY,       /* ordering between top-level ops (weight 0)       */
    CP_LAUNCH,           /* launch call start → kernel start                */
    CP_KERNEL_KERNEL,    /* previous kernel end → kernel start, same stream */
    CP_SYNC,             /* GPU → CPU or GPU → GPU synchronization (0)      */
    CP__NTYPES
} cp_edge_type;

const char *cp_type_name(cp_edge_type t);

/* Node flags: a start node; a call HTA zeroes the weight of (it waits, not
 * works); a call that takes the CUDA runtime lock.                        */
enum { CP_NODE_START = 1, CP_NODE_BLOCKING = 2, CP_NODE_LOCK = 4 };
enum { CP_EDGE_ZERO = 1 };                        /* edge flags: weight forced to 0 */

/* Where to look and how (see kt_critical_path_options in kineta.h). */
typedef struct cp_config {
    const char *annotation;  /* "" = whole trace                          */
    int64_t inst_first, inst_last;
    bool hta;                /* HTA's exact rules (lists, queue rule, ties) */
} cp_config;

typedef struct cp_graph {
    size_t n;             /* nodes, sorted by (ts, event, start first)     */
    int64_t *ts;          /* ns                                            */
    uint32_t *ev;         /* model event                                   */
    uint8_t *flags;       /* CP_NODE_*                                      */
    uint32_t *start_of;   /* per model event: its start node, KT_NONE      */
    uint32_t *end_node;   /* per start node: its end node (cp_end_of)      */

    size_t m, cap;        /* edges in insertion order (duplicates merged)  */
    uint32_t *src, *dst;
    uint32_t *attr;       /* attributed model event, KT_NONE              */
    uint8_t *type;        /* cp_edge_type                                  */
    uint8_t *eflags;      /* CP_EDGE_*                                      */
    uint32_t *in_head;    /* per node: the latest edge into it, KT_NONE    */
    uint32_t *in_next;    /* per edge: the edge into its dst added before  */

    int64_t win_first, win_last; /* the region of interest (ns)           */
    size_t no_edge_kernels;      /* GPU events no edge leads into          */
    bool oom;
} cp_graph;

/* Build the graph of rank r.  KT_EANALYSIS with why in err when the
 * annotation or instance is not there; KT_ENOMEM.                         */
kt_status cp_graph_build(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, cp_graph *g,
                         char *err, size_t errlen);
void cp_graph_free(cp_graph *g);

/* The end node of model event ev, KT_NONE: through its start node, which
 * saves a second array (and clearing it) per model event.               */
static inline uint32_t cp_end_of(const cp_graph *g, uint32_t ev)
{
    uint32_t start = g->start_of[ev];
    return start == KT_NONE ? KT_NONE : g->end_node[start];
}

/* Weight of edge e as HTA computes it (may be negative), ns. */
static inline int64_t cp_edge_weight(const cp_graph *g, size_t e)
{
    if (g->type[e] == CP_DEPENDENCY || g->type[e] == CP_SYNC || (g->eflags[e] & CP_EDGE_ZERO)) return 0;
    return g->ts[g->dst[e]] - g->ts[g->src[e]];
}

/* ---- building blocks (critical_path_graph.c, _cpu.c, _gpu.c, _window.c) -- */
/* The region of interest: kept[0..*nkept) the events in it, in file order
 * (a list, not a flag per event: every later pass visits only these);
 * kept needs room for every event of r.                                   */
kt_status cp_select_window(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, uint32_t *kept,
                           size_t *nkept, int64_t *first, int64_t *last, char *err, size_t errlen);
/* Room for twice as many edges; false (g->oom) without memory. */
bool cp_grow_edges(cp_graph *g);

/* Append an edge (src != dst).  Inline, as cp_attribute: every node gets
 * about one edge, and the calls cost 2 instructions in 5 of the work.    */
static inline void cp_add_edge(cp_graph *g, uint32_t src, uint32_t dst, cp_edge_type type, bool zero)
{
    if (g->oom || src == dst || src == KT_NONE || dst == KT_NONE) return;
    if (g->m == g->cap && !cp_grow_edges(g)) return;
    g->src[g->m] = src;
    g->dst[g->m] = dst;
    g->attr[g->m] = KT_NONE;
    g->type[g->m] = (uint8_t)type;
    g->eflags[g->m] = zero ? CP_EDGE_ZERO : 0;
    g->m++;
}

/* HTA's _attribute_edge on the last edge added: spans and kernel-kernel
 * delays belong to an event — start→start and start→end to the source,
 * end→end to the destination, end→start to the source's parent, a
 * kernel-kernel delay to the previous kernel.                               */
static inline void cp_attribute(cp_graph *g, uint32_t parent_ev)
{
    if (g->oom || g->m == 0) return;
    size_t e = g->m - 1;
    if (g->type[e] != CP_OPERATOR && g->type[e] != CP_KERNEL_KERNEL) return;
    uint32_t s = g->src[e], d = g->dst[e];
    if (g->type[e] == CP_KERNEL_KERNEL || (g->flags[s] & CP_NODE_START)) g->attr[e] = g->ev[s];
    else if (!(g->flags[d] & CP_NODE_START)) g->attr[e] = g->ev[d];
    else g->attr[e] = parent_ev;
}
/* Calls that take the CUDA runtime lock (CP_NODE_LOCK) serialize across
 * threads: edges in order of completion.                                  */
void cp_add_lock_edges(cp_graph *g);
/* CPU call stacks: nesting and top-level ordering edges, per thread.     */
kt_status cp_add_cpu_edges(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t nkept, cp_graph *g);
/* GPU events: kernel spans, launch / kernel-kernel delays, sync edges.    */
kt_status cp_add_gpu_edges(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg,
                           const uint32_t *kept, size_t nkept, cp_graph *g);
/* Merge repeated (src, dst) edges as networkx does: the first position,
 * the last type and weight, the last attribution.  Leaves the lists of
 * edges into each node (in_head, in_next) that it finds them by.          */
kt_status cp_merge_duplicate_edges(cp_graph *g);

/* The GPU event HTA's index_correlation of a launch call points at: of a
 * call that launched several (graph launches), the last one written (A2.6). */
uint32_t cp_hta_pointed_gpu(const kt_rank *r, uint32_t call);
/* A model event that is a GPU row of HTA's frame (a GPU event or a cuda_sync
 * event carrying a stream).                                                 */
static inline bool cp_is_stream_event(const kt_events *e, uint32_t i)
{
    return kt_kind_is_gpu(e->kind[i]) || (e->kind[i] == KT_K_CUDA_SYNC && kt_ev_stream(e, i) >= 0);
}

#endif
