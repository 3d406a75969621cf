/*
 * gpu_busy.h — when the GPU is busy: merged unions of GPU event intervals,
 * by class (kernel type, TraceLens bucket, ...) and optionally split by
 * device and by ProfilerStep.
 *
 * Temporal breakdown, communication/computation overlap, TraceLens's GPU
 * timeline and the device idle of the gap analysis are all lengths of these
 * unions.  Building them in one place keeps the four consistent, and doing it
 * from the per-stream time-sorted event lists of the index keeps it linear.
 */
#ifndef KT_GPU_BUSY_H
#define KT_GPU_BUSY_H

#include "analysis/common/intervals.h"
#include "model/model.h"

/* Class 0 is every selected event; classes 1.. are the caller's. */
#define KT_BUSY_CLASSES 5
/* device / step of a group when the events are not split that way */
#define KT_BUSY_ALL INT64_MIN

typedef struct kt_busy_query {
    /* Which events keep the GPU busy.  HTA: every event that carries a
     * stream — cuda_sync markers (Stream Wait Event...) and Triton's cpu_ops
     * included; otherwise kernels, memcpys and memsets only.               */
    bool hta_events;
    bool by_device, by_step;  /* device = the event's pid */
    /* Class (1..KT_BUSY_CLASSES-1) of a selected event, 0 for none, or -1
     * to leave the event out altogether.                                   */
    int (*classify)(void *ctx, const kt_rank *r, uint32_t ev);
    void *ctx;
    /* Class 0 left empty, for callers that read only their classes: its
     * copy and merge, of every event, are spared.  The groups are the same. */
    bool classes_only;
} kt_busy_query;

typedef struct kt_busy_group {
    int64_t device, step;  /* KT_BUSY_ALL unless split; step -1 = in no step */
    kt_interval *iv[KT_BUSY_CLASSES];  /* merged unions */
    size_t n[KT_BUSY_CLASSES];
} kt_busy_group;

typedef struct kt_busy {
    kt_busy_group *g;  /* sorted by (device, step) */
    size_t ng;
    kt_interval *mem;
} kt_busy;

/* Unless split by device or step there is always exactly one group (empty
 * when the rank has no GPU activity).                                      */
kt_status kt_busy_build(const kt_rank *r, const kt_busy_query *q, kt_busy *out);
void kt_busy_free(kt_busy *b);

/* Class 0 of a query by device alone, for the device of the index's
 * streams [first, end) (adjacent: the index sorts them by device): their
 * busy intervals into iv, merged (tmp: as many); their count.  A stream
 * is one time-sorted run: no pass over the rank's other events.           */
size_t kt_busy_streams(const kt_rank *r, size_t first, size_t end, kt_interval *iv, kt_interval *tmp);
/* The groups of a build split by step (not by device) folded into the one
 * group of the same query unsplit: the same unions, without a second pass
 * over the events.                                                         */
kt_status kt_busy_fold_groups(const kt_busy *split, kt_busy *out);
/* Build the groups of every selected rank in turn and hand them to fn. */
typedef kt_status (*kt_busy_fn)(void *ctx, const kt_rank *r, const kt_busy *b);
kt_status kt_busy_each_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_busy_query *q,
                            kt_busy_fn fn, void *ctx);

/* A classify function: class 1 + kt_kernel_type; ctx is a kt_type_cache. */
int kt_busy_kernel_type(void *types, const kt_rank *r, uint32_t ev);

#endif
