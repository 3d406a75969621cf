/*
 * pattern_map.h — the map step of `kineta patterns` for one rank: which
 * ops to look at, their root occurrences, and the launch sequence under
 * each root gathered into a kt_pattern_set.
 */
#ifndef KT_PATTERN_MAP_H
#define KT_PATTERN_MAP_H

#include "analysis/structure/op_tree.h"
#include "analysis/structure/pattern_set.h"

/* An op to look for: names containing substr (HTA's rule), or exactly the
 * name id `exact` when substr is NULL.                                    */
typedef struct kt_op_query {
    const char *substr;
    uint32_t exact;
} kt_op_query;

/* The up to `want` cpu_op names that launched the most GPU events (their
 * nearest enclosing cpu_op), most first, ties by name; *n gets how many. */
kt_status kt_pick_launching_ops(const kt_trace *t, const kt_op_tree *tr, size_t want, uint32_t *names,
                                int64_t *gpu_events, size_t *n);

/* Roots of q (hta_compat: HTA's shallowest matches anywhere in the rank;
 * else matches with no matching ancestor) with at least min_len GPU
 * events under them, their sequences added to s; *roots = how many.     */
kt_status kt_patterns_map(const kt_trace *t, const kt_op_tree *tr, const kt_op_query *q, size_t min_len,
                          kt_pattern_set *s, int64_t *roots);

#endif
