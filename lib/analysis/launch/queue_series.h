/*
 * queue_series.h — per-stream launch queue length over time (spec A4.7).
 *
 * Queue length = launches issued but not yet started on the stream: +1 at
 * the launch call's start, −1 at the GPU event's start (HTA's definition).
 * `kineta queue` summarizes the series and `kineta counters` writes it into
 * a trace copy, so both take it from here.
 */
#ifndef KT_QUEUE_SERIES_H
#define KT_QUEUE_SERIES_H

#include "analysis/common/step_series.h"
#include "model/index.h"

/* GPU events that start before the launch call that enqueued them (clock
 * skew between the CPU and GPU timelines, or an edited trace): by HTA's
 * definition each takes its queue below what was really waiting, below
 * zero when nothing else was.                                             */
typedef struct kt_queue_early {
    size_t pairs;     /* (launch call, GPU event) pairs with GPU ts < call ts */
    uint32_t gpu;     /* the first such GPU event in file order, KT_NONE     */
    uint32_t call;    /* its launch call                                     */
    size_t changes;   /* the series' +1/−1 changes before they were merged   */
} kt_queue_early;

/* Points (key = stream, value = queue length) grouped by stream
 * (ascending), in time order inside a stream; one point per change.
 * Default: every launch API (graph launches included), streams keyed by
 * (device, stream), a true step function (one point per timestamp, none
 * repeating the previous value), and a GPU event that starts before its
 * launch call counted as starting with the call, so lengths are never
 * negative.  hta_compat: HTA's launch list and its exact row sequence (one
 * row per launch and per GPU event, numpy quicksort order at ties), early
 * GPU events as written (negative lengths, as HTA).  early (may be NULL)
 * receives the early GPU events and the count of changes either way.      */
kt_status kt_queue_series(const kt_rank *r, const kt_strtab *strs, bool hta_compat,
                          kt_step_point **out, size_t *n, kt_queue_early *early);

#endif
