/*
 * intervals.h — unions and intersections of time intervals.
 *
 * Busy time, idle time, overlap and exposed-communication figures are all
 * lengths of unions/intersections of event intervals; computing them in one
 * place keeps every analysis consistent (touching intervals merge, as HTA).
 */
#ifndef KT_INTERVALS_H
#define KT_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

typedef struct kt_interval {
    int64_t start, end; /* ns, end >= start */
} kt_interval;

/* Sort by start and merge overlapping or touching intervals in place;
 * returns the number of merged intervals.  The merge rule is HTA's (a new
 * interval starts when start > the running end), which also defines what
 * happens to the inverted intervals (end < start) HTA's rounding makes.   */
size_t kt_intervals_merge(kt_interval *iv, size_t n);
/* Same result as kt_intervals_merge, linear when iv is a concatenation of a
 * few runs sorted by start (e.g. one run per GPU stream): runs are merged
 * pairwise.  tmp: scratch space for n intervals.                          */
size_t kt_intervals_merge_runs(kt_interval *iv, size_t n, kt_interval *tmp);
/* Union of two merged sets written to out (capacity na + nb); returns the
 * count.                                                                   */
size_t kt_intervals_union(const kt_interval *a, size_t na, const kt_interval *b, size_t nb,
                          kt_interval *out);
/* Total length of merged intervals. */
int64_t kt_intervals_length(const kt_interval *iv, size_t n);
/* Last end − first start of merged intervals (0 when empty). */
int64_t kt_intervals_span(const kt_interval *iv, size_t n);
/* Length of the intersection of two merged interval sets. */
int64_t kt_intervals_overlap(const kt_interval *a, size_t na, const kt_interval *b, size_t nb);
/* Intersection of two merged sets written to out (capacity na + nb);
 * returns the count.                                                        */
size_t kt_intervals_intersect(const kt_interval *a, size_t na, const kt_interval *b, size_t nb,
                              kt_interval *out);

#endif
