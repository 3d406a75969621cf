/*
 * perf_tables.h — what the files building `kineta perf`'s tables share:
 * the run (options, merged partials, device spec), column naming, the
 * pandas-style statistics over a group's calls, TraceLens's
 * kernel_details columns, the roofline, and the table builders.
 */
#ifndef KT_PERF_TABLES_H
#define KT_PERF_TABLES_H

#include "analysis/perf/device_spec.h"
#include "analysis/perf/perf_rank.h"
#include "table/table.h"

typedef struct perf_run {
    const kt_trace *t;
    kt_perf_options o;
    kt_perf_partial all;
    bool have_spec;
    kt_device_spec spec;
    char device[128];         /* the GPU the trace names ("" when none) */
    kt_table *notes;
} perf_run;

/* Statistics of a group's calls, as pandas aggregates them. */
typedef struct agg {
    double mean, median, std, min, max, sum;
    size_t n;
} agg;

typedef struct roofline {
    double time_us;        /* NaN when the spec lacks the precision */
    bool compute_bound;
} roofline;

/* ---- perf.c ---- */
/* The run's device spec, notes and the merged groups of every rank of sel
 * (kt_perf_map_rank's flags); on failure nothing is left to free.        */
kt_status kt_perf_run_begin(perf_run *run, const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt,
                            unsigned flags, char *err, size_t errlen);
void kt_perf_run_end(perf_run *run);

/* ---- perf_table_util.c ---- */
const char *kt_pt_op_name(const perf_run *run, uint32_t name);
const char *kt_pt_or_empty(const char *s);
/* A column named TraceLens's way under --tracelens, ours otherwise. */
size_t kt_pt_col(const perf_run *run, kt_table *t, const char *tl, const char *own, kt_col_type type, int prec);
/* mean, median, sample std, min, max, sum of v (reordered; NaNs left out). */
agg kt_pt_aggregate(double *v, size_t n);
/* Sum, mean and sample std of v[0..k) (k > 0, no NaN) in row order, as
 * pandas' groupby computes them (pandas/_libs/groupby.pyx): the sum with
 * Kahan compensation (group_sum, group_mean), the variance by Welford's
 * updates (group_var), so that every digit is TraceLens's.  Sets a's sum,
 * mean and std only.                                                     */
void kt_pt_moments(const double *v, size_t k, agg *a);
/* The five (sum: six) columns <tl|own>_mean ... _max[, _sum]; the first. */
size_t kt_pt_add_agg_cols(const perf_run *run, kt_table *t, const char *tl, const char *own, bool sum, int prec);
void kt_pt_set_agg(kt_table *t, size_t c, const agg *a, bool sum);
/* TraceLens's kernel_details columns (--tracelens only): add, then fill
 * at *c (moved past them); false on OOM.                                 */
void kt_pt_kernel_detail_cols(const perf_run *run, kt_table *t, const char *summary_name);
bool kt_pt_set_kernel_details(const perf_run *run, kt_table *t, size_t *c, const kt_pgroup *g);
/* Roofline time of a model against the run's spec (NaN without one). */
roofline kt_pt_roofline_of(const perf_run *run, const kt_perf_eval *e);
/* FLOPs and bytes in tera, and FLOPs per byte, with TraceLens's operations
 * in its order (the same double to the last digit).                      */
double kt_pt_tera_flops(double flops);
double kt_pt_tera_bytes(double bytes);
double kt_pt_flops_per_byte(double flops, double bytes); /* NaN without bytes */
/* Per-call throughput: tera (kt_pt_tera_*) per second of busy time (TB/s,
 * TFLOP/s).                                                              */
void kt_pt_per_call(const kt_pgroup *g, double tera, double *out);
/* qsort orders of kt_pgroup pointers: by descending subtree time (then
 * first event), and by first event (rank, then event index).           */
int kt_pt_by_time_then_first(const void *a, const void *b);
int kt_pt_by_first_event(const void *a, const void *b);
/* A table builder's end: frees its two work arrays and returns t, or,
 * when !ok, frees t too and returns NULL.                               */
kt_table *kt_pt_finish(kt_table *t, bool ok, void *v, void *scratch);
/* The span of the linked GPU events in µs as TraceLens has it (its
 * gpu_timeline's total_time, in ms and back): the base of "percent of
 * total time".                                                           */
double kt_pt_gpu_span_us(const perf_run *run);

/* ---- perf_ops_tables.c: TraceLens's launcher sheets ---- */
kt_table *kt_pt_ops_summary(const perf_run *run);
kt_table *kt_pt_ops_by_category(const perf_run *run);
kt_table *kt_pt_ops_unique_args(const perf_run *run);
kt_table *kt_pt_unified_summary(const perf_run *run);
kt_table *kt_pt_short_kernels(const perf_run *run);

/* ---- perf_kernel_summary.c ---- */
kt_table *kt_pt_kernel_summary(const perf_run *run);

/* ---- perf_model_tables.c ---- */
/* The roofline sheet of a family, NULL when it has no rows (or on OOM). */
kt_table *kt_pt_family_sheet(const perf_run *run, int family);
kt_table *kt_pt_headroom(const perf_run *run);
/* The unified groups with a roofline, by time lost against it (the
 * headroom table's rows, all of them; malloc'd, NULL on OOM).           */
typedef struct headroom_row {
    const kt_pgroup *g;
    roofline rl;
    double busy_us, lost_us;
} headroom_row;
headroom_row *kt_pt_headroom_rows(const perf_run *run, size_t *n);
/* A group's model parameters as text: "M=141, N=512, ...". */
void kt_pt_params_text(const kt_pgroup *g, char *out, size_t len);
kt_table *kt_pt_throughput_table(const perf_run *run, bool by_step);
kt_table *kt_pt_unmodelled(const perf_run *run);

/* ---- perf_coverage_tables.c ---- */
kt_table *kt_pt_coverage(const perf_run *run);
/* "unmodelled": GPU time outside the modelled ops, by op, largest first. */
kt_table *kt_pt_unmodelled_time(const perf_run *run);

#endif
