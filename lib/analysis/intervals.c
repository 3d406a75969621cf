/*
 * intervals.c — see intervals.h.
 */
#include "intervals.h"

#include <stdlib.h>

static int by_start(const void *a, const void *b)
{
    const kt_interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

size_t kt_intervals_merge(kt_interval *iv, size_t n)
{
    if (n == 0) return 0;
    qsort(iv, n, sizeof *iv, by_start);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (iv[i].start <= iv[m].end) {
            if (iv[i].end > iv[m].end) iv[m].end = iv[i].end;
        } else {
            iv[++m] = iv[i];
        }
    }
    return m + 1;
}

int64_t kt_intervals_length(const kt_interval *iv, size_t n)
{
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) total += iv[i].end - iv[i].start;
    return total;
}

size_t kt_intervals_intersect(const kt_interval *a, size_t na, const kt_interval *b, size_t nb,
                              kt_interval *out)
{
    size_t i = 0, j = 0, n = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (e > s) out[n++] = (kt_interval){ s, e };
        if (a[i].end < b[j].end) i++;
        else j++;
    }
    return n;
}

int64_t kt_intervals_overlap(const kt_interval *a, size_t na, const kt_interval *b, size_t nb)
{
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t e = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (e > s) total += e - s;
        if (a[i].end < b[j].end) i++;
        else j++;
    }
    return total;
}
