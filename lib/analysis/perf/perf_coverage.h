/*
 * perf_coverage.h — how much of a rank's GPU time `kineta perf` models,
 * and what it does not, by op (the map side; the tables are in
 * perf_model_tables.c).
 *
 * A roofline table that ranks a few modelled ops says nothing about the
 * half of the GPU time spent in ops it has no model for; the coverage says
 * how much that is and names them.  Each GPU event (kernel, memcpy,
 * memset) is counted once, by its duration: under the outermost modelled
 * op above it (modelled when that op's shapes fit its model), else under
 * the op that launched it directly, else under the launcher key of
 * kernel tables (the op around the launch call, the call, "(unlinked)").
 */
#ifndef KT_PERF_COVERAGE_H
#define KT_PERF_COVERAGE_H

#include "analysis/perf/op_kernels.h"
#include "analysis/perf/perf_groups.h"

typedef struct kt_perf_cover {
    double gpu_us;            /* Σ durations of the rank's GPU events       */
    double modelled_us;       /* of those, under an op whose model evaluated */
    kt_pgroups unmodelled;    /* the rest; key "op\x1freason", subtree_sum_us */
} kt_perf_cover;

/* One rank's pass: owned marks the GPU events counted so far (a bitmap
 * of the rank's events, zeroed by the caller).                          */
typedef struct kt_perf_cover_pass {
    const kt_trace *t;
    const kt_rank *r;
    const kt_op_map *m;
    uint8_t *owned;
    kt_perf_cover *cv;
} kt_perf_cover_pass;

/* Op record o (its name, whether its model evaluated, why not): counted
 * when it is the outermost modelled op or a launcher outside any.       */
bool kt_perf_cover_op(kt_perf_cover_pass *p, const kt_op_rec *o, const char *name, bool modelled, const char *why);
/* After every op: the GPU events no op record counted.                  */
bool kt_perf_cover_rest(kt_perf_cover_pass *p);
bool kt_perf_cover_merge(kt_perf_cover *dst, kt_perf_cover *src);
void kt_perf_cover_free(kt_perf_cover *cv);

#endif
