/*
 * step_series.h — time series that are step functions: a value that holds
 * from one point's ts until the next point of the same series.
 *
 * Queue length per stream and bandwidth per memcpy kind are both built
 * from +/− changes and written out as counter tracks; sharing the point
 * type lets one merge step and one counter writer serve both.
 */
#ifndef KT_STEP_SERIES_H
#define KT_STEP_SERIES_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

/* 24 bytes: a queue's series has a point per change, two per kernel. */
typedef struct kt_step_point {
    int64_t ts;       /* ns, absolute */
    double value;
    uint32_t ev;      /* the GPU event it comes from: its pid and tid are the
                         point's (device, stream thread)                    */
    int32_t key;      /* which series of the device: stream, or copy kind   */
} kt_step_point;

static inline int64_t kt_step_pid(const kt_rank *r, const kt_step_point *p) { return kt_event_pid(r, p->ev); }
static inline int64_t kt_step_tid(const kt_rank *r, const kt_step_point *p) { return kt_event_tid(r, p->ev); }
/* Whether two points of r are of one series: one key on one device (the
 * pid columns compare as the pids do, model/ids.c).                      */
static inline bool kt_step_same_series(const kt_rank *r, const kt_step_point *a, const kt_step_point *b)
{
    return a->key == b->key && kt_ev_pid(&r->ev, a->ev) == kt_ev_pid(&r->ev, b->ev);
}

/* Reduce points of r (grouped by series, time order) to the step function
 * itself: one point per (series, ts) with the value after all its changes,
 * and no point repeating the previous value.  Returns the new count.      */
size_t kt_merge_steps(const kt_rank *r, kt_step_point *p, size_t n);

#endif
