/*
 * diff_side.h — one run of a diff: the rank, the iteration and the events
 * of that iteration, selected once.
 *
 * Every diff table (HTA's ops, side by side, the call-tree merge) starts
 * from "the events of run X, rank R, step N"; selecting them is the map
 * step's first half, and the rules differ between HTA's TraceDiff (its own
 * event set, rounding and iteration rules) and ours, so they live here
 * once.  A side only reads its trace.
 */
#ifndef KT_DIFF_SIDE_H
#define KT_DIFF_SIDE_H

#include "model/index.h"

typedef struct kt_diff_side {
    const kt_trace *t;
    const kt_rank *r;
    const char *label;   /* "Control", "Test" or the user's              */
    int64_t step;        /* the iteration; -1 = the whole trace           */
    bool hta;            /* HTA's TraceDiff rules (--hta-compat)          */
    uint32_t *ev;        /* selected events (complete, with a category,
                            not the Trace span, in the iteration), file order */
    size_t n;
} kt_diff_side;

/* Select rank `rank` (-1: the first) and iteration `iteration` (a step
 * number, KT_DIFF_FIRST_STEP or KT_DIFF_WHOLE) of t.  KT_EUSAGE (with why
 * in err) when the rank or the step is not in the trace; KT_EINPUT when
 * the rank has no events, or none that a diff compares (complete events). */
kt_status kt_diff_side_open(const kt_trace *t, const char *label, int rank, int64_t iteration, bool hta,
                            kt_diff_side *s, char *err, size_t errlen);
void kt_diff_side_close(kt_diff_side *s);

/* An event's ts and dur in ns: as written, or rounded to µs as HTA rounds
 * ns-resolution traces.                                                   */
void kt_diff_side_time(const kt_diff_side *s, uint32_t ev, int64_t *ts, int64_t *dur);
/* GPU-side for the "device" filter: HTA: stream != -1; ours: GPU work,
 * GPU annotations and anything on a stream.                               */
bool kt_diff_side_is_gpu(const kt_diff_side *s, uint32_t ev);

#endif
