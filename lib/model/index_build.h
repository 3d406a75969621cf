/*
 * index_build.h — the parts of kt_index_build(), one file per concern
 * (gpu_streams.c, correlation.c, call_tree.c, steps.c, flows.c).
 * Internal to lib/model; analyses use index.h.
 */
#ifndef KT_INDEX_BUILD_H
#define KT_INDEX_BUILD_H

#include "index.h"

#include <stdlib.h>

/* GPU-side events (kernel, memcpy, memset, cuda_sync): what a runtime or
 * driver call can launch, matched by correlation.                          */
static inline bool kt_kind_is_gpu_side(uint8_t k)
{
    return kt_kind_is_gpu(k) || k == KT_K_CUDA_SYNC;
}

/* A runtime or driver call with a correlation id: what may launch GPU work. */
static inline bool kt_is_launch_call(const kt_events *e, uint32_t i)
{
    return (e->kind[i] == KT_K_RUNTIME || e->kind[i] == KT_K_DRIVER) && e->corr[i] >= 0;
}

/* Ids of the events satisfying keep(), in file order; NULL on OOM.
 * One pass over the columns: the array has room for every event, but only
 * the pages the selected ids fill are ever touched.  Inline so that keep()
 * is inlined into the pass over every event.                               */
static inline uint32_t *kt_select_events(const kt_events *e,
                                         bool (*keep)(const kt_events *, uint32_t), size_t *count)
{
    uint32_t *ids = malloc((e->n ? e->n : 1) * sizeof *ids);
    if (!ids) return NULL;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        ids[n] = i; /* kept only if keep(): no branch to mispredict */
        n += keep(e, i);
    }
    *count = n;
    return ids;
}

/* gpu_by_ts: every GPU-side event, sorted by ts, ties in file order. */
kt_status kt_build_gpu_streams(const kt_rank *r, const uint32_t *gpu_by_ts, size_t ngpu,
                               kt_index *idx);
/* Correlation in two steps, so that the first runs beside the sort of the
 * GPU events: the launch calls and their ids (and idx->link, all KT_NONE),
 * then the links both ways.                                                */
typedef struct kt_launch_calls kt_launch_calls;
kt_launch_calls *kt_launch_calls_prepare(const kt_rank *r, kt_index *idx); /* NULL: OOM */
void kt_launch_calls_free(kt_launch_calls *lc);
kt_status kt_build_correlation(const kt_rank *r, const kt_launch_calls *lc, const uint32_t *gpu_by_ts,
                               size_t ngpu, kt_index *idx);
kt_status kt_build_call_tree(const kt_rank *r, kt_index *idx);
kt_status kt_build_steps(const kt_rank *r, const kt_strtab *strs, kt_index *idx);
kt_status kt_build_flows(const kt_rank *r, kt_index *idx);

#endif
