/*
 * call_sort.h — sorting the per-call values of the perf groups.
 *
 * The tables take medians and sums over each group's per-call times in
 * ascending order, so every group's values are sorted once (perf.c).  The
 * calls of one op mostly take one of a few times (the same kernels, the
 * same durations), so counting the distinct values and sorting only those
 * is several times cheaper than a radix sort of all of them (which was a
 * tenth of `kineta perf` past the load).
 */
#ifndef KT_CALL_SORT_H
#define KT_CALL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kt_call_sort {
    uint64_t *bits;    /* a slot's value, as bits                  */
    uint32_t *count;   /* its count; 0: the slot is empty          */
    double *distinct;  /* the distinct values, in order found     */
    size_t slots;      /* room in bits / count                     */
} kt_call_sort;

/* Room for sorting up to most values at once; false on OOM. */
bool kt_call_sort_init(kt_call_sort *s, size_t most);
/* v[0..n) in kt_sort_doubles' order, bit for bit. */
void kt_call_sort_values(kt_call_sort *s, double *v, size_t n);
void kt_call_sort_free(kt_call_sort *s);

#endif
