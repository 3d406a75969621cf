/*
 * py_sort.h — CPython 3.11's list.sort(), reproduced.
 *
 * HTA nests a thread's events by sorting their endpoints with
 * sorted(key=cmp_to_key(cmp)) and a comparator that is not a total order
 * (zero-length events at the instant one event ends and another starts
 * form a cycle).  The result then depends on which pairs the sort happens
 * to compare, so --hta-compat replays the very algorithm: timsort with
 * CPython's run detection (strictly descending runs reversed), binary
 * insertion to minrun, the powersort merge policy (3.11) and galloping
 * merges with the adaptive min_gallop (Objects/listobject.c).
 */
#ifndef KT_PY_SORT_H
#define KT_PY_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "x < y" as the list's __lt__ answers it. */
typedef bool (*kt_py_less_fn)(void *ctx, uint32_t x, uint32_t y);

/* Sorts v[0..n) in place exactly as CPython 3.11's list.sort() orders a
 * list of those items under `less`; false on allocation failure (v then
 * holds a permutation of its input).                                      */
bool kt_py_sort(uint32_t *v, size_t n, kt_py_less_fn less, void *ctx);

#endif
