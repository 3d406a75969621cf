/*
 * sat_math.h — integer sums that saturate instead of overflowing.
 *
 * Damaged or hand-edited traces hold durations near 2^63 ns; summing two
 * of them in int64_t is undefined behaviour (found by the pipeline fuzzer,
 * docs/robustness.md).  A total pinned at INT64_MAX/MIN is still "huge"
 * and never wraps into a negative time.
 */
#ifndef KT_SAT_MATH_H
#define KT_SAT_MATH_H

#include <stdint.h>

static inline int64_t kt_sat_add(int64_t a, int64_t b)
{
    int64_t s;
    if (!__builtin_add_overflow(a, b, &s)) return s;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t kt_sat_sub(int64_t a, int64_t b)
{
    int64_t d;
    if (!__builtin_sub_overflow(a, b, &d)) return d;
    return b < 0 ? INT64_MAX : INT64_MIN;
}

#endif
