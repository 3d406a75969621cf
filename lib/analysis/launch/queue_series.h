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

/* Points (key = stream, value = queue length) grouped by stream
 * (ascending), in time order inside a stream; one point per change.  Default: every launch API (graph launches included),
 * streams keyed by (device, stream), a true step function (one point per
 * timestamp, none repeating the previous value).  hta_compat: HTA's launch list and its exact row sequence (one row
 * per launch and per GPU event, numpy quicksort order at ties).            */
kt_status kt_queue_series(const kt_rank *r, const kt_strtab *strs, bool hta_compat,
                          kt_step_point **out, size_t *n);

#endif
