/*
 * peak_ops.h — which ops hold the memory at a device's peak: the
 * allocations still live at the peak event, each attributed to the
 * innermost cpu_op around it on its thread, summed per op name.
 */
#ifndef KT_PEAK_OPS_H
#define KT_PEAK_OPS_H

#include "analysis/memory/memory_events.h"

typedef struct kt_peak_op {
    uint32_t op;            /* op name id, KT_NONE = no op around it */
    int64_t bytes;
    uint64_t allocations;
} kt_peak_op;

/* A rank's cpu_ops ordered by thread and time, with its call tree built:
 * what every device's lookup needs, built once per rank (sorting them was
 * two fifths of `kineta memory` on a two-GPU rank).  Only the ops that
 * start by `horizon` (the latest peak's time: no allocation live at a
 * peak is later, and a lookup starts from an op no later than it), often
 * a small part of the trace.  NULL on OOM.                               */
typedef struct kt_thread_ops kt_thread_ops;
kt_thread_ops *kt_thread_ops_new(const kt_rank *r, int64_t horizon);
void kt_thread_ops_free(kt_thread_ops *t);

/* Live allocations of d after its event `peak` (an index into d->e),
 * grouped by op, sorted by bytes descending; *out malloc'ed.             */
kt_status kt_peak_ops(const kt_rank *r, const kt_thread_ops *ops, const kt_mem_device *d, size_t peak,
                      kt_peak_op **out, size_t *n);

#endif
