/*
 * stats.h — descriptive statistics the way pandas computes them.
 *
 * HTA reports pandas `describe()` (sample std, linearly interpolated
 * quartiles) and numpy rounding; reproducing them bit for bit in one place
 * lets every analysis match HTA's numbers.
 */
#ifndef KT_STATS_H
#define KT_STATS_H

#include <stddef.h>

typedef struct kt_describe {
    size_t count;
    double mean, std, min, q25, q50, q75, max; /* NaN when undefined */
} kt_describe;

/* v[0..n) in kt_sort_doubles' order, bit for bit: by counting the
 * distinct values and sorting only those when they repeat (per-call and
 * per-kernel times mostly take a few values), as they are when already in
 * order, else by kt_sort_doubles.                                         */
void kt_sort_values(double *v, size_t n);
/* describe() of v[0..n); sorts v in place (kt_sort_values). */
kt_describe kt_describe_values(double *v, size_t n);
/* kt_describe_values' q50 of the finite values v[0..n), n > 0, found by
 * selection instead of a sort (v reordered): for callers that want the
 * median alone, of many samples.                                          */
double kt_median_values(double *v, size_t n);
/* numpy's sum of a[0..n) (pairwise: 8 running sums in blocks of up to
 * 128, halves above), which pandas' Series.sum is too.                  */
double kt_np_sum(const double *a, size_t n);
/* numpy.round(x, decimals): round half to even on x * 10^decimals. */
double kt_np_round(double x, int decimals);
/* 100 * part / whole, NaN when whole is 0. */
double kt_pct(double part, double whole);

#endif
