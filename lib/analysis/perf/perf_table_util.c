/*
 * perf_table_util.c — what the perf tables share (perf_tables.h): column
 * naming (TraceLens's or ours), pandas-style statistics over a group's
 * calls, TraceLens's kernel_details columns and the roofline of a model.
 */
#include "analysis/perf/perf_tables.h"

#include "analysis/perf/kernel_details.h"
#include "model/radix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kt_pt_op_name(const perf_run *run, uint32_t name)
{
    return name == KT_NONE ? "" : kt_strtab_get(run->t->strs, name);
}

double kt_pt_gpu_span_us(const perf_run *run)
{
    return (run->all.gpu_last_us - run->all.gpu_first_us) / 1e3 * 1e3;
}

/* A column named TraceLens's way under --tracelens, ours otherwise. */
size_t kt_pt_col(const perf_run *run, kt_table *t, const char *tl, const char *own, kt_col_type type, int prec)
{
    return kt_table_add_col(t, run->o.tracelens ? tl : own, type, prec);
}

/* ---- statistics the way pandas aggregates (NaN skipped, sample std) ------ */

/* Sorts v ascending; calls often come in order already (one shape, one
 * kernel: equal or rising times), and throughputs (a constant over busy
 * time) then in the reverse order, so the check saves most sorts.        */
static void sort_values(double *v, size_t n)
{
    size_t i = 1;
    while (i < n && v[i - 1] <= v[i]) i++;
    if (i >= n) return;
    for (i = 1; i < n && v[i - 1] >= v[i]; i++) {}
    if (i < n) {
        kt_sort_doubles(v, n);
        return;
    }
    for (size_t l = 0, r = n - 1; l < r; l++, r--) {
        double t = v[l];
        v[l] = v[r];
        v[r] = t;
    }
}

void kt_pt_moments(const double *v, size_t k, agg *a)
{
    double sum = 0, comp = 0, mean = 0, m2 = 0;
    for (size_t i = 0; i < k; i++) {
        double y = v[i] - comp, t = sum + y;
        comp = t - sum - y;
        sum = t;
        double old = mean;
        mean += (v[i] - old) / (double)(i + 1);
        m2 += (v[i] - mean) * (v[i] - old);
    }
    a->sum = sum;
    a->mean = sum / (double)k;
    a->std = k > 1 ? sqrt(m2 / (double)(k - 1)) : NAN;
}

/* v (the calls in row order) is reordered; NaNs are left out. */
agg kt_pt_aggregate(double *v, size_t n)
{
    agg a = { NAN, NAN, NAN, NAN, NAN, 0, 0 };
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) v[k++] = v[i];
    a.n = k;
    if (!k) return a;
    kt_pt_moments(v, k, &a);
    sort_values(v, k);
    a.min = v[0];
    a.max = v[k - 1];
    a.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    return a;
}

void kt_pt_set_agg(kt_table *t, size_t c, const agg *a, bool sum)
{
    kt_table_set_float(t, c, a->mean);
    kt_table_set_float(t, c + 1, a->median);
    kt_table_set_float(t, c + 2, a->std);
    kt_table_set_float(t, c + 3, a->min);
    kt_table_set_float(t, c + 4, a->max);
    if (sum) kt_table_set_float(t, c + 5, a->sum);
}

size_t kt_pt_add_agg_cols(const perf_run *run, kt_table *t, const char *tl, const char *own, bool sum, int prec)
{
    static const char *const tl_suffix[] = { "mean", "median", "std", "min", "max", "sum" };
    size_t first = 0;
    for (int i = 0; i < (sum ? 6 : 5); i++) {
        char a[96], b[96];
        snprintf(a, sizeof a, "%s_%s", tl, tl_suffix[i]);
        snprintf(b, sizeof b, "%s_%s", own, tl_suffix[i]);
        size_t c = kt_pt_col(run, t, a, b, KT_COL_FLOAT, prec);
        if (i == 0) first = c;
    }
    return first;
}

const char *kt_pt_or_empty(const char *s) { return s ? s : ""; }

/* ---- TraceLens's kernel_details columns (--tracelens only) --------------- */

void kt_pt_kernel_detail_cols(const perf_run *run, kt_table *t, const char *summary_name)
{
    if (!run->o.tracelens) return;
    kt_table_add_col(t, summary_name, KT_COL_STR, 0);
    kt_table_add_col(t, "trunc_kernel_details", KT_COL_STR, 0);
}

/* Fills them at column *c (and moves *c past them); false on OOM. */
bool kt_pt_set_kernel_details(const perf_run *run, kt_table *t, size_t *c, const kt_pgroup *g)
{
    if (!run->o.tracelens) return true;
    for (int trunc = 0; trunc < 2; trunc++) {
        if (trunc && (!g->kd_n || !g->kd_calls)) { /* TraceLens: no short form of [] */
            (*c)++;
            continue;
        }
        char *r = kt_kernel_details_repr(run->t->strs, g, trunc);
        if (!r) return false;
        kt_table_set_str(t, (*c)++, r);
        free(r);
    }
    return true;
}

/* ---- roofline ---------------------------------------------------------------- */

roofline kt_pt_roofline_of(const perf_run *run, const kt_perf_eval *e)
{
    roofline rl = { NAN, false };
    int key = kt_spec_key_of(e->compute_spec);
    if (!run->have_spec || key < 0 || !(run->spec.tflops[key] > 0) || isnan(e->bytes)) return rl;
    double compute_us = e->flops / (run->spec.tflops[key] * 1e6);
    double memory_us = e->bytes / (run->spec.mem_bw_gbps * 1e3);
    rl.compute_bound = compute_us >= memory_us;
    rl.time_us = rl.compute_bound ? compute_us : memory_us;
    return rl;
}

/* TraceLens's arithmetic, operation by operation, so that every digit is
 * its: TFLOPS/s = (GFLOPS / 1e3) / (busy µs / 1e6), TB/s = (bytes / 1e12)
 * / (busy µs / 1e6), FLOPS/Byte = (GFLOPS · 1e9) / bytes.               */
double kt_pt_tera_flops(double flops)
{
    return flops / 1e9 / 1e3;
}

double kt_pt_tera_bytes(double bytes)
{
    return bytes / 1e12;
}

double kt_pt_flops_per_byte(double flops, double bytes)
{
    return bytes > 0 ? flops / 1e9 * 1e9 / bytes : NAN;
}

/* Per-call throughput: tera (kt_pt_tera_*) per second of busy time. */
void kt_pt_per_call(const kt_pgroup *g, double tera, double *out)
{
    for (size_t i = 0; i < g->n; i++) out[i] = g->busy_us[i] > 0 && !isnan(tera) ? tera / (g->busy_us[i] / 1e6) : NAN;
}

int kt_pt_by_first_event(const void *a, const void *b)
{
    const kt_pgroup *x = *(const kt_pgroup *const *)a, *y = *(const kt_pgroup *const *)b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

int kt_pt_by_time_then_first(const void *a, const void *b)
{
    const kt_pgroup *x = *(const kt_pgroup *const *)a, *y = *(const kt_pgroup *const *)b;
    double sx = x->subtree_sum_us, sy = y->subtree_sum_us;
    if (sx != sy) return (sx < sy) - (sx > sy);
    return kt_pt_by_first_event(a, b);
}

kt_table *kt_pt_finish(kt_table *t, bool ok, void *v, void *scratch)
{
    free(v);
    free(scratch);
    if (ok) return t;
    kt_table_free(t);
    return NULL;
}
