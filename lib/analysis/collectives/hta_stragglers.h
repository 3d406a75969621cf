/*
 * hta_stragglers.h — HTA's get_potential_stragglers (spec A4.12) on our
 * model: the start of the dominant long communication kernel, normalized by
 * the mean iteration time, top-k ranks per iteration.
 */
#ifndef KT_HTA_STRAGGLERS_H
#define KT_HTA_STRAGGLERS_H

#include "model/model.h"
#include "table/table.h"

typedef struct kt_hta_straggler_args {
    const int64_t *steps;  /* NULL = every ProfilerStep present */
    size_t nsteps;
    int candidates;
    bool hta_names;        /* comm kernels = names starting "ncclKernel" (HTA's
                              [BUG]: misses ncclDevKernel_*)                 */
    const char *table_names[2]; /* of the two tables below                   */
} kt_hta_straggler_args;

/* *stragglers (table_names[0]): rank, count (HTA's returned list, in its order);
 * *metric (table_names[1]): rank, iteration, stream, name, normalized_start_time,
 * is_straggler.  KT_EANALYSIS (with why in err) where HTA raises.          */
kt_status kt_hta_stragglers(const kt_trace *t, const kt_rank_sel *sel, const kt_hta_straggler_args *a,
                            kt_table **stragglers, kt_table **metric, char *err, size_t errlen);

#endif
