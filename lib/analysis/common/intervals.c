/*
 * intervals.c — see intervals.h.
 */
#include "analysis/common/intervals.h"
#include "model/radix.h"

#include <stdbool.h>

#include <stdlib.h>
#include <string.h>

static int by_start(const void *a, const void *b)
{
    const kt_interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* By start, stably: equal starts keep their order, which decides what
 * inverted intervals (HTA's rounding) merge into, as glibc's merge-sort
 * qsort kept it.  A radix sort of the starts (a comparator call per pair
 * was half of `breakdown`'s instructions); qsort without memory for it.  */
static void sort_by_start(kt_interval *iv, size_t n)
{
    size_t i = 1;
    while (i < n && iv[i - 1].start <= iv[i].start) i++;
    if (i >= n) return; /* already in order */
    uint64_t *major = malloc(n * sizeof *major), *minor = calloc(n, sizeof *minor);
    bool ok = major && minor;
    for (size_t k = 0; ok && k < n; k++) major[k] = kt_radix_key_i64(iv[k].start);
    if (!ok || !kt_radix_sort_records(iv, sizeof *iv, n, major, minor)) qsort(iv, n, sizeof *iv, by_start);
    free(major);
    free(minor);
}

/* Merge intervals sorted by start in place; returns the merged count. */
static size_t merge_sorted(kt_interval *iv, size_t n)
{
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

size_t kt_intervals_merge(kt_interval *iv, size_t n)
{
    if (n == 0) return 0;
    sort_by_start(iv, n);
    return merge_sorted(iv, n);
}

/* Append x to the merged sequence out[0..*m); x comes in start order. */
static inline void fold(kt_interval *out, size_t *m, kt_interval x)
{
    if (*m && x.start <= out[*m - 1].end) {
        if (x.end > out[*m - 1].end) out[*m - 1].end = x.end;
    } else {
        out[(*m)++] = x;
    }
}

/* Merging by start then folding gives the union even of unmerged sorted runs. */
size_t kt_intervals_union(const kt_interval *a, size_t na, const kt_interval *b, size_t nb,
                          kt_interval *out)
{
    size_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        bool take_a = j == nb || (i < na && a[i].start <= b[j].start);
        fold(out, &m, take_a ? a[i++] : b[j++]);
    }
    return m;
}

static size_t run_end(const kt_interval *iv, size_t i, size_t n)
{
    while (++i < n && iv[i].start >= iv[i - 1].start) {}
    return i;
}

size_t kt_intervals_merge_runs(kt_interval *iv, size_t n, kt_interval *tmp)
{
    if (n == 0) return 0;
    size_t first = run_end(iv, 0, n); /* the first pass's first run, found once */
    if (first == n) return merge_sorted(iv, n); /* one run: no copies */
    kt_interval *src = iv, *dst = tmp;
    for (size_t pairs = 2; pairs > 1;) {
        size_t w = 0, i = 0;
        pairs = 0;
        while (i < n) {
            size_t j = first ? first : run_end(src, i, n), k = j < n ? run_end(src, j, n) : j;
            first = 0;
            w += kt_intervals_union(src + i, j - i, src + j, k - j, dst + w);
            i = k;
            pairs++;
        }
        n = w;
        kt_interval *x = src;
        src = dst;
        dst = x;
    }
    if (src != iv) memcpy(iv, src, n * sizeof *iv);
    return n;
}

int64_t kt_intervals_length(const kt_interval *iv, size_t n)
{
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) total += iv[i].end - iv[i].start;
    return total;
}

int64_t kt_intervals_span(const kt_interval *iv, size_t n)
{
    return n ? iv[n - 1].end - iv[0].start : 0;
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
