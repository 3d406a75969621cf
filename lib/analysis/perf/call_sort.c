/*
 * call_sort.c — per-call values sorted by their distinct values
 * (call_sort.h).
 */
#include "analysis/perf/call_sort.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

/* Below this many values kt_sort_doubles sorts by insertion, cheaply. */
#define FEW 48
/* Counting pays while at most one value in this many is new. */
#define SHARE 8

bool kt_call_sort_init(kt_call_sort *s, size_t most)
{
    size_t slots = 2;
    while (slots < 2 * (most / SHARE + 1)) slots *= 2;
    *s = (kt_call_sort){ .bits = malloc(slots * sizeof *s->bits), .count = malloc(slots * sizeof *s->count),
                         .distinct = malloc((most / SHARE + 1) * sizeof *s->distinct), .slots = slots };
    return s->bits && s->count && s->distinct;
}

void kt_call_sort_free(kt_call_sort *s)
{
    free(s->bits);
    free(s->count);
    free(s->distinct);
    memset(s, 0, sizeof *s);
}

/* Fibonacci hashing: the product's top bits depend on every bit of the
 * value (round values differ in their top bits only).  mask + 1 slots, a
 * power of two: its bits are counted by ctz (popcount is a libgcc call on
 * baseline x86-64, 1.4 M instructions of a report).                      */
static size_t slot_of(const kt_call_sort *s, uint64_t bits, size_t mask)
{
    size_t at = (size_t)((bits * 0x9E3779B97F4A7C15u) >> (64 - __builtin_ctzll(mask + 1)));
    while (s->count[at] && s->bits[at] != bits) at = (at + 1) & mask;
    return at;
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Counts v's distinct values (in the first 2 * limit slots); their number,
 * or SIZE_MAX past limit or at a NaN (kt_sort_doubles keeps NaNs of any
 * payload in their order, which counting would not).                     */
static size_t count_distinct(kt_call_sort *s, const double *v, size_t n, size_t limit, size_t mask)
{
    size_t nd = 0;
    memset(s->count, 0, (mask + 1) * sizeof *s->count);
    for (size_t i = 0; i < n; i++) {
        if (v[i] != v[i]) return SIZE_MAX;
        uint64_t b = bits_of(v[i]);
        size_t at = slot_of(s, b, mask);
        if (!s->count[at]) {
            if (nd == limit) return SIZE_MAX;
            s->bits[at] = b;
            s->distinct[nd++] = v[i];
        }
        s->count[at]++;
    }
    return nd;
}

void kt_call_sort_values(kt_call_sort *s, double *v, size_t n)
{
    size_t limit = n / SHARE, slots = 2;
    while (slots < 2 * limit) slots *= 2;
    size_t nd = n < FEW || slots > s->slots ? SIZE_MAX : count_distinct(s, v, n, limit, slots - 1);
    if (nd == SIZE_MAX) {
        kt_sort_doubles(v, n);
        return;
    }
    kt_sort_doubles(s->distinct, nd);
    size_t out = 0;
    for (size_t k = 0; k < nd; k++)
        for (uint32_t c = s->count[slot_of(s, bits_of(s->distinct[k]), slots - 1)]; c; c--) v[out++] = s->distinct[k];
}
