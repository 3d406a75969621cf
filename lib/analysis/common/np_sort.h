/*
 * np_sort.h — numpy's argsort(kind="quicksort"), reproduced.
 *
 * pandas sort_values(by=...) on one column is numpy's unstable introsort.
 * HTA sorts launch/kernel and copy start/end events that way before
 * cumulative sums, so at equal timestamps the intermediate values of its
 * time series depend on this exact algorithm.  --hta-compat reproduces them
 * by permuting the same input with the same comparisons and swaps
 * (numpy 1.24 npysort/quicksort.cpp aquicksort_ and heapsort.cpp
 * aheapsort_; no AVX-512 path exists for argsort in that version).
 */
#ifndef KT_NP_SORT_H
#define KT_NP_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Permutes idx[0..n) (any initial contents: the input order) so that
 * v[idx[k]] ascend, exactly as numpy.argsort(v_in_idx_order, "quicksort")
 * orders them.                                                            */
void kt_np_argsort_i64(const int64_t *v, uint32_t *idx, size_t n);

#endif
