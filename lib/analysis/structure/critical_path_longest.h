/*
 * critical_path_longest.h — the longest path through a critical-path graph
 * (spec A4.11 step 4), as networkx.dag_longest_path finds it, with every
 * edge weight optionally rescaled by class (the what-if questions).
 */
#ifndef KT_CRITICAL_PATH_LONGEST_H
#define KT_CRITICAL_PATH_LONGEST_H

#include "analysis/structure/critical_path_graph.h"

/* What an edge's time is, for summaries and what-if scaling (HTA's
 * bound_by values).                                                        */
typedef enum cp_class {
    CP_CLASS_NONE = 0,   /* dependency / sync: weighs nothing           */
    CP_CLASS_CPU,        /* cpu_bound                                   */
    CP_CLASS_GPU,        /* gpu_compute_bound                           */
    CP_CLASS_COMM,       /* gpu_communication_bound                     */
    CP_CLASS_LAUNCH,     /* gpu_kernel_launch_overhead                  */
    CP_CLASS_KERNEL_GAP, /* gpu_kernel_kernel_overhead                  */
    CP__NCLASSES
} cp_class;

const char *cp_class_name(cp_class c);

typedef struct cp_path {
    uint32_t *nodes;    /* in path order */
    size_t nn;
    uint32_t *edges;    /* edges between consecutive nodes */
    size_t ne;
    int64_t length;     /* sum of the (scaled, non-negative) edge weights, ns */
    size_t negative;    /* edges whose negative weight counted as 0   */
    size_t cycle_edges; /* edges ignored to break cycles               */
} cp_path;

/* Class of each edge (malloc'ed, g->m entries): by type, and for spans by
 * the attributed event (a CPU event, a communication kernel, other GPU).   */
uint8_t *cp_edge_classes(const kt_rank *r, const kt_strtab *strs, const cp_graph *g);
/* The same into cls[e] for the n edges listed (edges NULL: edges 0..n), as
 * many as the caller needs (the path's, without what-if).  False: no memory. */
bool cp_classify_edges(const kt_rank *r, const kt_strtab *strs, const cp_graph *g, const uint32_t *edges, size_t n,
                       uint8_t *cls);

/* The longest path; scale (NULL = 1 for all) multiplies each class's edge
 * weights.  Ties go as in networkx 2.8: nodes visited in topological
 * generations, predecessors in edge insertion order, the first maximum.
 * A cycle (a damaged trace) is broken at its earliest node and counted.   */
kt_status cp_longest_path(const cp_graph *g, const uint8_t *cls, const double *scale, cp_path *out);
void cp_path_free(cp_path *p);

#endif
