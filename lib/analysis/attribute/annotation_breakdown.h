/*
 * annotation_breakdown.h — HTA's user-annotation breakdowns (spec A4.9):
 * per rank and annotation name, statistics of the annotation spans.
 *
 * A separate step from the kernel attribution (annotation_kernels.h)
 * because it looks only at the spans; kt_annotations runs both per rank
 * (the map) and concatenates their rows (the reduce).
 */
#ifndef KT_ANNOTATION_BREAKDOWN_H
#define KT_ANNOTATION_BREAKDOWN_H

#include "model/model.h"
#include "table/table.h"

/* One output row: a name (KT_NONE = the folded "others") and its stats. */
typedef struct kt_ann_stat {
    uint32_t name;
    int rank;
    uint64_t count;
    int64_t sum, min, max; /* ns */
    double mean, std;      /* ns; sample std, 0 for one span */
} kt_ann_stat;

typedef struct kt_ann_stats {
    kt_ann_stat *v;
    size_t n, cap;
} kt_ann_stats;

/* An annotation span of this kind that the analysis uses: a complete
 * event with a name; one that ends before it starts only under hta_compat
 * (HTA keeps them; we report them, see kt_annotations).                 */
bool kt_ann_span_kept(const kt_trace *t, const kt_events *e, uint32_t i, uint8_t kind);

/* Append rank r's rows for annotation events of kind (KT_K_GPU_ANNOTATION
 * or KT_K_USER_ANNOTATION) to out, folding the tail as HTA does when there
 * are more than o->num_kernels names.  hta_compat: HTA's statistics of the
 * folded rows (over the per-name sums); else real per-span statistics.   */
kt_status kt_ann_breakdown_rank(const kt_trace *t, const kt_rank *r, uint8_t kind,
                                const kt_annotations_options *o, kt_ann_stats *out);

/* The "gpu" / "cpu" table of rows (sorted by rank, name). */
kt_table *kt_ann_breakdown_table(const kt_trace *t, const char *name, kt_ann_stats *rows);

#endif
