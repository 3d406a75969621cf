/*
 * value_counts.h — the distinct values of a sample and their counts.
 *
 * Durations and gaps repeat a lot (the same kernel, the same time), so
 * sorting a sample's few distinct values and expanding their counts beats
 * sorting all of it: describe() statistics and duration runs do so when
 * at most one value in KT_VALUE_COUNTS_SHARE is new.  Values are 64-bit
 * keys (a double's bits), told apart exactly.
 */
#ifndef KT_VALUE_COUNTS_H
#define KT_VALUE_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counting pays while at most one value in this many is new. */
#define KT_VALUE_COUNTS_SHARE 8

typedef struct kt_value_counts {
    int64_t *key;    /* a slot's value                          */
    uint64_t *n;     /* its count; 0: the slot is empty         */
    int64_t *seen;   /* the distinct values, in order found     */
    size_t nseen, limit, mask;
    int shift;       /* 64 − log2(slots): the hash's top bits    */
} kt_value_counts;

/* Room for up to limit distinct values; false without memory. */
bool kt_value_counts_init(kt_value_counts *c, size_t limit);
void kt_value_counts_free(kt_value_counts *c);

/* key's slot, empty if key was never added.  Fibonacci hashing: the
 * product's top bits depend on every bit of the key (round values differ
 * in their high bits only).  Inline: it runs once per value counted.    */
static inline size_t kt_value_counts_slot(const kt_value_counts *c, int64_t key)
{
    size_t at = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15u) >> c->shift);
    while (c->n[at] && c->key[at] != key) at = (at + 1) & c->mask;
    return at;
}

/* Counts one value; false when it would be distinct value limit + 1. */
static inline bool kt_value_counts_add(kt_value_counts *c, int64_t key)
{
    size_t at = kt_value_counts_slot(c, key);
    if (!c->n[at]) {
        if (c->nseen == c->limit) return false;
        c->key[at] = key;
        c->seen[c->nseen++] = key;
    }
    c->n[at]++;
    return true;
}

/* The count of key (0 if never added). */
static inline uint64_t kt_value_counts_of(const kt_value_counts *c, int64_t key)
{
    return c->n[kt_value_counts_slot(c, key)];
}

#endif
