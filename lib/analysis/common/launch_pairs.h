/*
 * launch_pairs.h — (launch call, GPU event) pairs: the rows behind launch
 * statistics and queue lengths.
 *
 * By default the pairs follow the index's correlation links from every
 * launch API call (launch_api.h), graph launches fanning out to all their
 * kernels.  --hta-compat reproduces HTA's pandas joins instead: a join on
 * the correlation column between "CPU" rows (stream -1) and "GPU" rows
 * (stream != -1) restricted to HTA's name lists, many-to-many, in the row
 * order pandas 1.5 merge produces (grouped by correlation in order of first
 * appearance among the CPU rows, file order inside a group).
 */
#ifndef KT_LAUNCH_PAIRS_H
#define KT_LAUNCH_PAIRS_H

#include "model/index.h"

typedef struct kt_launch_pair {
    uint32_t call, gpu;
} kt_launch_pair;

typedef enum {
    KT_PAIRS_ALL_LAUNCHES,     /* ours: every launch API → its kernel/memcpy/memset */
    KT_PAIRS_HTA_LAUNCH_STATS, /* HTA A4.5 (cuda_kernel_launch_stats)            */
    KT_PAIRS_HTA_QUEUE         /* HTA A4.7 (queue length: runtime launch mask)   */
} kt_pairs_rule;

/* *out is malloc'ed (free it); *n pairs. */
kt_status kt_launch_pairs(const kt_rank *r, const kt_strtab *strs, kt_pairs_rule rule,
                          kt_launch_pair **out, size_t *n);

/* A row of HTA's rank frame: a complete event with a category, except the
 * profiler's "Trace" span (A2.2).  Inline: analyses test every event.      */
static inline bool kt_is_hta_row(const kt_events *e, uint32_t i)
{
    return e->ph[i] == 'X' && e->cat[i] != KT_NONE && e->kind[i] != KT_K_TRACE_SPAN;
}

#endif
