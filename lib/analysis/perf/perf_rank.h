/*
 * perf_rank.h — the map step of `kineta perf`: one rank's model turned into
 * grouped partial results that merge across ranks (the reduce is
 * kt_perf_partial_merge, then perf.c builds the tables).
 */
#ifndef KT_PERF_RANK_H
#define KT_PERF_RANK_H

#include "analysis/perf/perf_coverage.h"
#include "analysis/perf/perf_groups.h"
#include "model/model.h"

typedef struct kt_perf_step {
    int64_t step;             /* ProfilerStep number, -1 outside any step */
    double flops, busy_us;
    size_t calls;
} kt_perf_step;

typedef struct kt_perf_partial {
    kt_pgroups launchers;     /* key: op name, category                    */
    kt_pgroups unique;        /* launchers; key: op name and shapes        */
    kt_pgroups unified;       /* unified ops (op_kernels.h); same key      */
    kt_pgroups models;        /* key: op name, model parameters            */
    kt_pgroups shorts;        /* kernels < 10 µs; key: launcher op and shapes,
                                 kernel name                               */
    kt_pgroups kernels;       /* every kernel; key: launcher category,
                                 launcher, kernel name, stream; unlinked
                                 kernels with a NULL category and name
                                 KT_NONE (TraceLens's kernel_summary)      */
    bool kernel_cpu_ops;      /* some kernel there has a cpu_op launcher   */
    double kernel_total_us;   /* their durations' sum (numpy's, file order) */
    double gpu_first_us, gpu_last_us; /* span of the linked GPU events (µs,
                                 TraceLens's total_time); first > last: none;
                                 a merge target starts at +inf, -inf      */
    size_t fam_calls[KT_PF__COUNT];
    double fam_flops[KT_PF__COUNT], fam_busy_us[KT_PF__COUNT];
    kt_perf_step *steps;      /* sorted by step */
    size_t nsteps, cap_steps;
    size_t modelled_calls;    /* calls of modelled op names               */
    size_t no_shapes;         /* of those, calls without Input Dims        */
    size_t bad_shapes;        /* of those, calls whose shapes did not fit  */
    bool args_unreadable;     /* the trace file could not be re-read       */
    kt_perf_cover cover;      /* GPU time modelled, and what is not        */
} kt_perf_partial;

/* What a rank's map makes besides the launcher and model groups. */
typedef enum kt_perf_map_flags {
    KT_PERF_TRITON = 1 << 0,         /* Triton kernels estimated too (perf_models_triton.c) */
    KT_PERF_KERNEL_DETAILS = 1 << 1, /* each group's GPU events per call (kd_*): only
                                        --tracelens prints them, a tenth of the map */
    KT_PERF_SHAPE_GROUPS = 1 << 2,   /* the unique, unified, shorts and kernels groups */
} kt_perf_map_flags;

/* flags: kt_perf_map_flags. */
kt_status kt_perf_map_rank(const kt_trace *t, const kt_rank *r, unsigned flags, kt_perf_partial *out);
/* Fold src into dst (src emptied); false on OOM. */
bool kt_perf_partial_merge(kt_perf_partial *dst, kt_perf_partial *src);
void kt_perf_partial_free(kt_perf_partial *p);

/* TraceLens's op category of a kernel launcher ("GEMM", "CONV_fwd",
 * "NORM_fwd", "SDPA_fwd", "triton", "elementwise", "reduce", "other", ...)
 * from its name and the name of its first kernel (may be NULL).          */
const char *kt_tl_op_category(const char *op_name, const char *first_kernel);

#endif
