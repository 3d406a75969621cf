/*
 * op_kernels.h — the per-rank map of the perf analysis: which ops launched
 * which GPU work, and how long that work kept the GPU busy.
 *
 * TraceLens (Trace2Tree + TreePerfAnalyzer.get_kernel_launchers) sees a
 * tree of cpu_op / runtime / driver events only.  A cpu_op is a *kernel
 * launcher* when one of its direct runtime children launched GPU work
 * (kernels, memcpys, memsets; NCCL kernels left out); a launch call with no
 * cpu_op directly above it is its own launcher.  A *modelled* op (GEMM,
 * attention, ...) owns every GPU event launched anywhere below it.  Busy
 * time is the length of the union of the events' intervals, not their sum,
 * computed as TraceLens does: in microsecond doubles (ts + dur from the
 * file's decimals, merged in start order, lengths summed in that order), so
 * that the statistics over it match TraceLens's to the last bits.
 * We build the same from the model's call tree and correlation links.
 */
#ifndef KT_OP_KERNELS_H
#define KT_OP_KERNELS_H

#include "model/model.h"

/* UNIFIED: the op a launcher's row of TraceLens's unified_perf_summary is
 * about — its outermost modelled ancestor (aten::layer_norm above
 * aten::native_layer_norm), else the launcher itself.                     */
enum { KT_OPK_LAUNCHER = 1, KT_OPK_MODELLED = 2, KT_OPK_UNIFIED = 4 };

typedef struct kt_op_rec {
    uint32_t ev;               /* the cpu_op (or launch call) */
    uint8_t role;              /* KT_OPK_* bits */
    int8_t family;             /* kt_perf_family of a modelled op, else -1 */
    double direct_us;          /* busy time of the launcher's own GPU events */
    double subtree_us;         /* busy time of every GPU event below it */
    uint32_t kfirst, nk;       /* GPU events below it: kev[kfirst .. +nk), ts order */
} kt_op_rec;

typedef struct kt_op_map {
    kt_op_rec *ops;            /* in event (file) order */
    size_t n;
    uint32_t *kev;             /* GPU event ids */
    uint8_t *kdirect;          /* 1 when kev[i] is a direct event of its op */
    size_t nk;
    double gpu_first_us, gpu_last_us; /* TraceLens's total_time: first start
                                 to last end of the linked GPU events (none:
                                 INFINITY, -INFINITY)                      */
} kt_op_map;

/* Build the map of one rank.  family_of(ctx, name id) gives a cpu_op's
 * model family or -1.                                                     */
kt_status kt_op_map_build(const kt_trace *t, const kt_rank *r, int (*family_of)(void *ctx, uint32_t name),
                          void *ctx, kt_op_map *out);
void kt_op_map_free(kt_op_map *m);

#endif
