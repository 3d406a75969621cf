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

#include <stddef.h>
#include <stdint.h>

typedef struct kt_step_point {
    int64_t ts;       /* ns, absolute */
    int64_t pid, tid; /* of the GPU event (device, stream thread)            */
    int32_t key;      /* which series of the device: stream, or copy kind   */
    double value;
} kt_step_point;

/* Reduce points (grouped by series, time order) to the step function
 * itself: one point per (series, ts) with the value after all its changes,
 * and no point repeating the previous value.  Returns the new count.      */
size_t kt_merge_steps(kt_step_point *p, size_t n);

#endif
