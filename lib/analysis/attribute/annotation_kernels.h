/*
 * annotation_kernels.h — which user annotation each GPU kernel ran under,
 * and kernel time per annotation without double counting nesting.
 *
 * Both are "which annotation spans overlap which kernels on the same
 * thread", answered once per rank with the spans and kernels grouped by
 * (pid, tid) and sorted by time (annotation_kernels.c).
 */
#ifndef KT_ANNOTATION_KERNELS_H
#define KT_ANNOTATION_KERNELS_H

#include "model/index.h"
#include "table/table.h"

/* One rank's partial results (the map of kt_annotations). */
typedef struct kt_ann_rank {
    uint32_t *kernels;    /* GPU events of the "kernels" table, file order */
    uint32_t *label;      /* their innermost GPU annotation event or KT_NONE */
    size_t nkernels;
    /* summary rows: one per annotation name */
    struct kt_ann_sum *sum;
    size_t nsum;
    bool cpu_source;      /* summary from CPU annotations around launches */
    int64_t kernel_ns;    /* all kernel time of the rank */
    int64_t step_ns;      /* summed ProfilerStep durations; 0 = no steps */
} kt_ann_rank;

typedef struct kt_ann_sum {
    uint32_t name;
    uint64_t instances, kernels;
    int64_t inclusive_ns, exclusive_ns;
} kt_ann_sum;

kt_status kt_ann_kernels_rank(const kt_trace *t, const kt_rank *r, kt_ann_rank *out);
void kt_ann_rank_free(kt_ann_rank *a);

/* Rows of the "kernels" and "summary" tables for one rank. */
void kt_ann_kernels_rows(const kt_trace *t, const kt_rank *r, const kt_ann_rank *a, bool full_names,
                         kt_table *tb);
void kt_ann_summary_rows(const kt_trace *t, int rank, const kt_ann_rank *a, kt_table *tb);

#endif
