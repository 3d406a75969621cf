/*
 * perf_kernel_summary.c — TraceLens's kernel_summary sheet: every GPU
 * kernel grouped by its launching op's category, the op, the kernel name
 * and its stream, with duration sum, count, mean, min and max and its
 * share of all kernel time and of the GPU span.  Kept apart from the
 * launcher sheets because its rows are kernels, not ops.
 */
#include "analysis/perf/perf_tables.h"

#include "analysis/common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A NULL string sorts after every other, as pandas puts NaN keys last. */
static int null_last_cmp(const char *a, const char *b)
{
    if (!a || !b) return (a == NULL) - (b == NULL);
    return strcmp(a, b);
}

typedef struct ks_row {
    const kt_pgroup *g;
    const char *op, *kernel;
} ks_row;

/* Descending sum; ties in pandas' group-key order. */
static int by_sum_then_keys(const void *a, const void *b)
{
    const ks_row *x = a, *y = b;
    if (x->g->direct_sum_us != y->g->direct_sum_us)
        return (x->g->direct_sum_us < y->g->direct_sum_us) - (x->g->direct_sum_us > y->g->direct_sum_us);
    int d = null_last_cmp(x->g->category, y->g->category);
    if (!d) d = null_last_cmp(x->op, y->op);
    if (!d) d = strcmp(x->kernel, y->kernel);
    if (!d) d = (x->g->stream > y->g->stream) - (x->g->stream < y->g->stream);
    return d;
}

/* TraceLens has no "Parent cpu_op" column when no kernel has a cpu_op. */
static bool with_op(const perf_run *run)
{
    return !run->o.tracelens || run->all.kernel_cpu_ops;
}

static void summary_cols(const perf_run *run, kt_table *t)
{
    kt_pt_col(run, t, "Parent op category", "category", KT_COL_STR, 0);
    if (with_op(run)) kt_pt_col(run, t, "Parent cpu_op", "op", KT_COL_STR, 0);
    kt_pt_col(run, t, "Kernel name", "kernel", KT_COL_STR, 0);
    kt_pt_col(run, t, "Kernel stream", "stream", KT_COL_INT, 0);
    kt_pt_col(run, t, "Kernel duration (\xc2\xb5s)_sum", "time_us_sum", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Kernel duration (\xc2\xb5s)_count", "count", KT_COL_INT, 0);
    kt_pt_col(run, t, "Kernel duration (\xc2\xb5s)_mean", "time_us_mean", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Kernel duration (\xc2\xb5s)_min", "time_us_min", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Kernel duration (\xc2\xb5s)_max", "time_us_max", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Percent of kernels time (%)", "pct_of_kernel_time", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Percent of total time (%)", "pct_of_gpu_span", KT_COL_FLOAT, -1);
}

static void summary_row(const perf_run *run, kt_table *t, const ks_row *row, double total_us, double *scratch)
{
    double span_us = kt_pt_gpu_span_us(run);
    size_t c = 0;
    const kt_pgroup *g = row->g;
    agg m;
    kt_pt_moments(g->busy_us, g->n, &m);
    memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
    agg mm = kt_pt_aggregate(scratch, g->n);
    kt_table_add_row(t);
    if (g->category) kt_table_set_str(t, c, g->category);
    c++;
    if (with_op(run) && row->op) kt_table_set_str(t, c, row->op);
    c += with_op(run);
    kt_table_set_str(t, c++, row->kernel);
    if (g->stream >= 0) kt_table_set_int(t, c, g->stream);
    c++;
    kt_table_set_float(t, c++, m.sum);
    kt_table_set_int(t, c++, (int64_t)g->n);
    kt_table_set_float(t, c++, m.mean);
    kt_table_set_float(t, c++, mm.min);
    kt_table_set_float(t, c++, mm.max);
    kt_table_set_float(t, c++, total_us > 0 ? m.sum / total_us * 100 : NAN);
    kt_table_set_float(t, c, span_us > 0 ? m.sum / span_us * 100 : NAN);
}

kt_table *kt_pt_kernel_summary(const perf_run *run)
{
    const kt_pgroups *gs = &run->all.kernels;
    kt_table *t = kt_table_new("kernel_summary");
    ks_row *rows = malloc((gs->n ? gs->n : 1) * sizeof *rows);
    size_t most = 1;
    for (size_t i = 0; i < gs->n; i++) most = gs->g[i].n > most ? gs->g[i].n : most;
    double *scratch = malloc(most * sizeof *scratch), total = run->all.kernel_total_us;
    if (!t || !rows || !scratch) {
        kt_table_free(t);
        t = NULL;
    }
    for (size_t i = 0; t && i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        rows[i] = (ks_row){ g, g->name == KT_NONE ? NULL : kt_pt_op_name(run, g->name),
                            kt_pt_op_name(run, g->kernels[0]) };
    }
    if (t) {
        summary_cols(run, t);
        qsort(rows, gs->n, sizeof *rows, by_sum_then_keys);
        for (size_t i = 0; i < gs->n; i++) summary_row(run, t, &rows[i], total, scratch);
    }
    free(rows);
    free(scratch);
    return t;
}
