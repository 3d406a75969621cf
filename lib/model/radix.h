/*
 * radix.h — stable sort of event ids by 64-bit keys.
 *
 * Index building orders millions of events by time, stream, thread or
 * correlation; an LSD radix sort does that in a few linear passes (passes
 * where every key shares the byte are skipped, which is most of them for
 * absolute timestamps), far faster than qsort with a multi-column compare.
 * Keys that arrive as a few ascending runs (events gathered stream by
 * stream, each in time order) are merged instead when that takes fewer
 * passes, and sorted keys are left alone; ids sorted by a column that are
 * in many runs but each only a few places out of order (records written
 * as they complete) take an insertion sort.
 * Composite orders are built from successive stable sorts, least
 * significant key first.
 */
#ifndef KT_RADIX_H
#define KT_RADIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sort ids[0..n) ascending by keys[0..n) (both permuted), stable; ids
 * NULL sorts the keys alone.  Returns false on allocation failure (arrays
 * then unchanged in content).                                            */
bool kt_radix_sort(uint64_t *keys, uint32_t *ids, size_t n);

/* Sort v[0..n) ascending (-0 before +0; NaNs last, as numpy sorts)
 * without a comparator call per pair: statistics sort millions of
 * per-call values (with no memory for that, qsort in the same order).    */
void kt_sort_doubles(double *v, size_t n);

/* Sort v[0..n) ascending; false (v unchanged in content) without memory. */
bool kt_sort_i64(int64_t *v, size_t n);

/* Stable sort of n records of size bytes by (major[i], minor[i]), the keys
 * of record i: analyses order millions of small structs by two keys, which
 * qsort's comparator calls made a tenth of `kineta report`.  minor is
 * overwritten; false (records unchanged) without memory; n < 2^32.       */
bool kt_radix_sort_records(void *recs, size_t size, size_t n, const uint64_t *major, uint64_t *minor);

/* Stable sort of event ids by an int64 column (ts, pid, tid, corr, ...). */
bool kt_sort_ids_by_i64(uint32_t *ids, size_t n, const int64_t *col);
/* The same, merging nearly ordered ids through spare (room for n ids, any
 * content) instead of memory of its own: a caller with an array not yet
 * filled saves touching fresh pages (a third of the index build's cost). */
bool kt_sort_ids_by_i64_using(uint32_t *ids, size_t n, const int64_t *col, uint32_t *spare);

/* Stable sort of event ids that share a ts, longer dur first (file order
 * among equal ones when ids come in file order); with clamp, a negative
 * dur counts as 0 (HTA's op tree), else as written (the call tree).       */
bool kt_sort_ids_longer_first(uint32_t *ids, size_t n, const int64_t *dur, bool clamp);

/* Stable sort of event ids by an int32 column (the id columns: corr, ...). */
bool kt_sort_ids_by_i32(uint32_t *ids, size_t n, const int32_t *col);

/* Order-preserving map of a signed value onto an unsigned key. */
static inline uint64_t kt_radix_key_i64(int64_t v) { return (uint64_t)v ^ ((uint64_t)1 << 63); }

#endif
