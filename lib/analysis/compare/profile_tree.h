/*
 * profile_tree.h — one run's CPU call tree of an iteration, folded by call
 * path, with the GPU time its launches caused.
 *
 * The call-tree diff's map.  An iteration has millions of calls but its
 * call paths repeat (every layer calls aten::linear → aten::addmm →
 * cudaLaunchKernel), so sibling calls with the same normalised name are one
 * node with a count, like a flame graph.  Each node keeps its calls'
 * count and summed duration, the GPU time of the kernels launched under it
 * (inclusive) and, per node, the kernels its own launches ran.  Python
 * functions are skipped (their callees hang under their nearest op).
 */
#ifndef KT_PROFILE_TREE_H
#define KT_PROFILE_TREE_H

#include "diff_side.h"

typedef struct kt_ptree_node {
    uint32_t parent;        /* KT_NONE for the root (node 0)                */
    uint32_t norm;          /* normalised name: id in the shared table      */
    uint32_t name;          /* the run's name of its first call (KT_NONE: root) */
    int64_t first_ts;
    uint64_t count;
    int64_t cpu_ns;         /* summed duration of its calls                 */
    int64_t gpu_ns;         /* GPU time launched in its subtree             */
    uint32_t child0, nchild;/* children: child[child0 .. child0+nchild), by first_ts */
} kt_ptree_node;

/* Kernels that a node's own launch calls ran (the launch call's enclosing
 * node), one row per (node, kernel name).                                  */
typedef struct kt_ptree_kernel {
    uint32_t node, name;    /* name: strtab id of the run                    */
    uint64_t count;
    int64_t dur;            /* ns */
} kt_ptree_kernel;

typedef struct kt_ptree {
    const kt_diff_side *side;
    kt_ptree_node *node;
    size_t n;
    uint32_t *child;        /* node ids grouped by parent                    */
    kt_ptree_kernel *kern;  /* sorted by node, then time (desc)              */
    size_t nkern;
    int64_t gpu_total_ns;   /* every selected GPU event (= root's gpu_ns)   */
} kt_ptree;

/* norm: the table both runs' normalised names are interned in. */
kt_status kt_ptree_build(const kt_diff_side *s, kt_strtab *norm, kt_ptree *out);
void kt_ptree_free(kt_ptree *t);

#endif
