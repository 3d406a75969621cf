/*
 * perf_ops_tables.c — the kernel-launcher tables of `kineta perf`:
 * ops_summary, ops_summary_by_category, ops_unique_args,
 * unified_perf_summary and short_kernels_summary (TraceLens's sheets).
 */
#include "analysis/perf/perf_tables.h"

#include "analysis/common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ops_summary and ops_summary_by_category ------------------------------ */

typedef struct name_total {
    const char *key;       /* op name or category */
    double direct_us, subtree_us;
    size_t count;
    char cats[256];        /* Python list repr of the categories */
    double pct, cum_pct;   /* share of the direct time, and running share */
} name_total;

static int by_key(const void *a, const void *b)
{
    return strcmp(((const name_total *)a)->key, ((const name_total *)b)->key);
}

/* Descending direct time; stable on the key order (pandas sorts the
 * group-by result by key, then sorts by time). */
static int by_direct_desc(const void *a, const void *b)
{
    const name_total *x = a, *y = b;
    if (x->direct_us != y->direct_us) return (x->direct_us < y->direct_us) - (x->direct_us > y->direct_us);
    return strcmp(x->key, y->key);
}

static void add_category(name_total *n, const char *cat)
{
    char item[80];
    snprintf(item, sizeof item, "'%s'", cat);
    if (strstr(n->cats, item)) return;
    size_t len = strlen(n->cats);
    if (!len) snprintf(n->cats, sizeof n->cats, "[%s]", item);
    else if (len + strlen(item) + 3 < sizeof n->cats)
        snprintf(n->cats + len - 1, sizeof n->cats - len + 1, ", %s]", item);
}

/* The ms column's total as TraceLens takes it (Series.sum: numpy's
 * pairwise sum, in the table's order), so that every digit of the
 * percentages is its; false when out of memory.                          */
static bool ms_total(const name_total *v, size_t n, double *total)
{
    double *ms = malloc((n ? n : 1) * sizeof *ms);
    if (!ms) return false;
    for (size_t i = 0; i < n; i++) ms[i] = v[i].direct_us / 1e3;
    *total = kt_np_sum(ms, n);
    free(ms);
    return true;
}

/* Totals by op name (by_category false) or by category, largest first,
 * with their shares of the total; NULL when out of memory.              */
static name_total *launcher_totals(const perf_run *run, bool by_category, size_t *n)
{
    const kt_pgroups *gs = &run->all.launchers;
    name_total *v = calloc(gs->n ? gs->n : 1, sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        const char *key = by_category ? g->category : kt_pt_op_name(run, g->name);
        size_t j = 0;
        while (j < *n && strcmp(v[j].key, key)) j++;
        if (j == *n) v[(*n)++].key = key;
        v[j].direct_us += g->direct_sum_us;
        v[j].subtree_us += g->subtree_sum_us;
        v[j].count += g->n;
        add_category(&v[j], g->category);
    }
    qsort(v, *n, sizeof *v, by_key);
    qsort(v, *n, sizeof *v, by_direct_desc);
    double total, cum = 0;
    if (!ms_total(v, *n, &total)) {
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < *n; i++) {
        v[i].pct = v[i].direct_us / 1e3 / total * 100;
        v[i].cum_pct = cum += v[i].pct;
    }
    return v;
}

/* The share columns that close both tables. */
static void share_cols(const perf_run *run, kt_table *t)
{
    kt_pt_col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, 2);
    kt_pt_col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, 2);
}

kt_table *kt_pt_ops_summary(const perf_run *run)
{
    kt_table *t = kt_table_new("ops_summary");
    if (!t) return NULL;
    kt_pt_col(run, t, "name", "op", KT_COL_STR, 0);
    kt_pt_col(run, t, "total_direct_kernel_time_sum", "direct_kernel_time_us", KT_COL_FLOAT, 3);
    kt_pt_col(run, t, "total_subtree_kernel_time_sum", "subtree_kernel_time_us", KT_COL_FLOAT, 3);
    if (run->o.tracelens) {
        kt_pt_col(run, t, "total_direct_kernel_time_ms", "", KT_COL_FLOAT, 6);
        kt_pt_col(run, t, "total_subtree_kernel_time_ms", "", KT_COL_FLOAT, 6);
    }
    kt_pt_col(run, t, "Count", "calls", KT_COL_INT, 0);
    kt_pt_col(run, t, "Categories", "categories", KT_COL_STR, 0);
    share_cols(run, t);
    size_t n;
    name_total *v = launcher_totals(run, false, &n);
    if (!v) {
        kt_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        kt_table_add_row(t);
        kt_table_set_str(t, c++, v[i].key);
        kt_table_set_float(t, c++, v[i].direct_us);
        kt_table_set_float(t, c++, v[i].subtree_us);
        if (run->o.tracelens) {
            kt_table_set_float(t, c++, v[i].direct_us / 1e3);
            kt_table_set_float(t, c++, v[i].subtree_us / 1e3);
        }
        kt_table_set_int(t, c++, (int64_t)v[i].count);
        kt_table_set_str(t, c++, v[i].cats);
        kt_table_set_float(t, c++, v[i].pct);
        kt_table_set_float(t, c++, v[i].cum_pct);
    }
    free(v);
    return t;
}

kt_table *kt_pt_ops_by_category(const perf_run *run)
{
    kt_table *t = kt_table_new("ops_summary_by_category");
    if (!t) return NULL;
    kt_pt_col(run, t, "op category", "category", KT_COL_STR, 0);
    kt_pt_col(run, t, "Count", "calls", KT_COL_INT, 0);
    kt_pt_col(run, t, "total_direct_kernel_time_ms", "direct_kernel_time_ms", KT_COL_FLOAT, 6);
    share_cols(run, t);
    size_t n;
    name_total *v = launcher_totals(run, true, &n);
    if (!v) {
        kt_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        kt_table_add_row(t);
        kt_table_set_str(t, 0, v[i].key);
        kt_table_set_int(t, 1, (int64_t)v[i].count);
        kt_table_set_float(t, 2, v[i].direct_us / 1e3);
        kt_table_set_float(t, 3, v[i].pct);
        kt_table_set_float(t, 4, v[i].cum_pct);
    }
    free(v);
    return t;
}

/* ---- ops_unique_args, unified_perf_summary, short_kernels_summary ------------ */

/* gs's groups sorted by sort_sum (copied into subtree_sum_us's place). */
static kt_pgroup **sorted_groups(const kt_pgroups *gs, bool by_direct, double *total)
{
    kt_pgroup **v = malloc((gs->n ? gs->n : 1) * sizeof *v);
    *total = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++) {
        v[i] = &gs->g[i];
        *total += by_direct ? v[i]->direct_sum_us : v[i]->subtree_sum_us;
    }
    if (by_direct) /* sort on the direct sum: swap it in, sort, swap back */
        for (size_t i = 0; i < gs->n; i++) {
            double d = v[i]->direct_sum_us;
            v[i]->direct_sum_us = v[i]->subtree_sum_us;
            v[i]->subtree_sum_us = d;
        }
    qsort(v, gs->n, sizeof *v, kt_pt_by_time_then_first);
    if (by_direct)
        for (size_t i = 0; i < gs->n; i++) {
            double d = v[i]->direct_sum_us;
            v[i]->direct_sum_us = v[i]->subtree_sum_us;
            v[i]->subtree_sum_us = d;
        }
    return v;
}

static void shape_cols(const perf_run *run, kt_table *t)
{
    kt_pt_col(run, t, "Input Dims", "input_dims", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input type", "input_types", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input Strides", "input_strides", KT_COL_STR, 0);
    kt_pt_col(run, t, "Concrete Inputs", "concrete_inputs", KT_COL_STR, 0);
}

static size_t set_names(const perf_run *run, kt_table *t, const kt_pgroup *g, bool shapes)
{
    size_t c = 0;
    kt_table_set_str(t, c++, kt_pt_op_name(run, g->name));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->category));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->process_name));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->process_label));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->thread_name));
    if (shapes) {
        kt_table_set_str(t, c++, g->dims);
        kt_table_set_str(t, c++, g->types);
        kt_table_set_str(t, c++, g->strides);
        kt_table_set_str(t, c++, g->concrete);
    }
    return c;
}

static void name_cols(const perf_run *run, kt_table *t)
{
    kt_pt_col(run, t, "name", "op", KT_COL_STR, 0);
    kt_pt_col(run, t, "op category", "category", KT_COL_STR, 0);
    kt_pt_col(run, t, "process_name", "process_name", KT_COL_STR, 0);
    kt_pt_col(run, t, "process_label", "process_label", KT_COL_STR, 0);
    kt_pt_col(run, t, "thread_name", "thread_name", KT_COL_STR, 0);
    shape_cols(run, t);
}

kt_table *kt_pt_ops_unique_args(const perf_run *run)
{
    static const char *const stat[] = { "mean", "median", "std", "min", "max", "sum" };
    double total;
    kt_pgroup **v = sorted_groups(&run->all.unique, true, &total);
    kt_table *t = kt_table_new("ops_unique_args");
    size_t most = 1;
    for (size_t i = 0; v && i < run->all.unique.n; i++) most = v[i]->n > most ? v[i]->n : most;
    double *scratch = malloc(most * sizeof *scratch);
    if (!v || !t || !scratch) goto fail;
    name_cols(run, t);
    kt_pt_col(run, t, "operation_count", "calls", KT_COL_INT, 0);
    for (int k = 0; k < 6; k++)
        for (int w = 0; w < 2; w++) {
            char tl[64], own[64];
            snprintf(tl, sizeof tl, "total_%s_kernel_time_%s", w ? "subtree" : "direct", stat[k]);
            snprintf(own, sizeof own, "%s_kernel_time_us_%s", w ? "subtree" : "direct", stat[k]);
            kt_pt_col(run, t, tl, own, KT_COL_FLOAT, -1);
        }
    kt_pt_col(run, t, "ex_UID", "first_event", KT_COL_INT, 0);
    kt_pt_kernel_detail_cols(run, t, "kernel_details_summary");
    kt_pt_col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, -1);
    double cum = 0;
    for (size_t i = 0; i < run->all.unique.n; i++) {
        const kt_pgroup *g = v[i];
        kt_table_add_row(t);
        size_t c = set_names(run, t, g, true);
        kt_table_set_int(t, c++, (int64_t)g->n);
        memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
        agg d = kt_pt_aggregate(scratch, g->n);
        memcpy(scratch, g->v2, g->n * sizeof *scratch);
        agg s = kt_pt_aggregate(scratch, g->n);
        const double dv[6] = { d.mean, d.median, d.std, d.min, d.max, d.sum };
        const double sv[6] = { s.mean, s.median, s.std, s.min, s.max, s.sum };
        for (int k = 0; k < 6; k++) {
            kt_table_set_float(t, c++, dv[k]);
            kt_table_set_float(t, c++, sv[k]);
        }
        double pct = g->direct_sum_us / total * 100;
        cum += pct;
        kt_table_set_int(t, c++, g->first_ev);
        if (!kt_pt_set_kernel_details(run, t, &c, g)) goto fail;
        kt_table_set_float(t, c++, pct);
        kt_table_set_float(t, c++, cum);
    }
    return kt_pt_finish(t, true, v, scratch);
fail:
    return kt_pt_finish(t, false, v, scratch);
}

/* Python dict repr of a model's parameters. */
static void perf_params(const kt_perf_eval *e, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "{");
    for (size_t i = 0; i < e->nparams && k < len; i++) {
        const kt_perf_param *p = &e->p[i];
        k += (size_t)snprintf(out + k, len - k, "%s'%s': ", i ? ", " : "", p->name);
        if (k >= len) break;
        if (p->is_int) k += (size_t)snprintf(out + k, len - k, "%lld", (long long)p->i);
        else if (p->word) k += (size_t)snprintf(out + k, len - k, "'%s'", p->s);
        else k += (size_t)snprintf(out + k, len - k, "%s", p->s[0] ? p->s : "None");
    }
    if (k < len) snprintf(out + k, len - k, "}");
}

static bool unified_row(const perf_run *run, kt_table *t, const kt_pgroup *g, double total, double *cum,
                        double *scratch)
{
    const kt_perf_eval *e = &g->eval;
    bool m = g->modelled;
    kt_table_add_row(t);
    size_t c = set_names(run, t, g, true);
    kt_table_set_int(t, c++, g->first_ev);
    kt_table_set_int(t, c++, (int64_t)g->n);
    memcpy(scratch, g->v2, g->n * sizeof *scratch);
    agg cpu = kt_pt_aggregate(scratch, g->n);
    kt_table_set_float(t, c++, cpu.sum);
    kt_table_set_float(t, c++, cpu.mean);
    kt_table_set_float(t, c++, cpu.std);
    kt_table_set_float(t, c++, m ? e->flops / 1e9 : NAN);
    kt_table_set_float(t, c++, m ? e->bytes / (1024.0 * 1024.0) : NAN);
    kt_table_set_float(t, c++, m ? kt_pt_flops_per_byte(e->flops, e->bytes) : NAN);
    if (m) kt_table_set_str(t, c, e->compute_spec);
    c++;
    kt_pt_per_call(g, m ? kt_pt_tera_bytes(e->bytes) : NAN, scratch);
    agg tb = kt_pt_aggregate(scratch, g->n);
    kt_pt_per_call(g, m ? kt_pt_tera_flops(e->flops) : NAN, scratch + g->n);
    agg tf = kt_pt_aggregate(scratch + g->n, g->n);
    memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
    agg k = kt_pt_aggregate(scratch, g->n);
    const double first[] = { tb.mean, tb.std, tf.mean, tf.std, k.mean, k.std, k.sum, cpu.median, cpu.min, cpu.max,
                             tb.median, tb.min, tb.max, tf.median, tf.min, tf.max, k.median, k.min, k.max };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) kt_table_set_float(t, c++, first[i]);
    if (!kt_pt_set_kernel_details(run, t, &c, g)) return false;
    char params[1024];
    perf_params(e, params, sizeof params);
    if (m) kt_table_set_str(t, c, params);
    c++;
    kt_table_set_str(t, c++, m ? "True" : "False");
    double pct = g->subtree_sum_us / total * 100;
    *cum += pct;
    kt_table_set_float(t, c++, pct);
    kt_table_set_float(t, c++, *cum);
    return true;
}

kt_table *kt_pt_unified_summary(const perf_run *run)
{
    static const char *const tl_cols[] = { "TB/s_mean", "TB/s_std", "TFLOPS/s_mean", "TFLOPS/s_std",
        "Kernel Time (µs)_mean", "Kernel Time (µs)_std", "Kernel Time (µs)_sum", "duration_us_median",
        "duration_us_min", "duration_us_max", "TB/s_median", "TB/s_min", "TB/s_max", "TFLOPS/s_median",
        "TFLOPS/s_min", "TFLOPS/s_max", "Kernel Time (µs)_median", "Kernel Time (µs)_min", "Kernel Time (µs)_max" };
    static const char *const own_cols[] = { "tb_per_s_mean", "tb_per_s_std", "tflops_per_s_mean",
        "tflops_per_s_std", "kernel_time_us_mean", "kernel_time_us_std", "kernel_time_us_sum", "cpu_time_us_median",
        "cpu_time_us_min", "cpu_time_us_max", "tb_per_s_median", "tb_per_s_min", "tb_per_s_max",
        "tflops_per_s_median", "tflops_per_s_min", "tflops_per_s_max", "kernel_time_us_median",
        "kernel_time_us_min", "kernel_time_us_max" };
    double total, cum = 0;
    kt_pgroup **v = sorted_groups(&run->all.unified, false, &total);
    kt_table *t = kt_table_new("unified_perf_summary");
    size_t most = 1;
    for (size_t i = 0; v && i < run->all.unified.n; i++) most = v[i]->n > most ? v[i]->n : most;
    double *scratch = malloc(2 * most * sizeof *scratch);
    if (!v || !t || !scratch) goto fail;
    name_cols(run, t);
    kt_pt_col(run, t, "ex_UID", "first_event", KT_COL_INT, 0);
    kt_pt_col(run, t, "operation_count", "calls", KT_COL_INT, 0);
    kt_pt_col(run, t, "total_duration_us", "cpu_time_us_sum", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "mean_duration_us", "cpu_time_us_mean", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "std_duration_us", "cpu_time_us_std", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "GFLOPS", "gflops", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Data Moved (MB)", "data_moved_mib", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "FLOPS/Byte", "flops_per_byte", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Compute Spec", "compute_spec", KT_COL_STR, 0);
    for (size_t i = 0; i < sizeof tl_cols / sizeof tl_cols[0]; i++)
        kt_pt_col(run, t, tl_cols[i], own_cols[i], KT_COL_FLOAT, -1);
    kt_pt_kernel_detail_cols(run, t, "kernel_details_summary");
    kt_pt_col(run, t, "perf_params", "perf_params", KT_COL_STR, 0);
    kt_pt_col(run, t, "has_perf_model", "has_perf_model", KT_COL_STR, 0);
    kt_pt_col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, -1);
    for (size_t i = 0; i < run->all.unified.n; i++)
        if (!unified_row(run, t, v[i], total, &cum, scratch)) goto fail;
    return kt_pt_finish(t, true, v, scratch);
fail:
    return kt_pt_finish(t, false, v, scratch);
}

kt_table *kt_pt_short_kernels(const perf_run *run)
{
    double total;
    kt_pgroup **v = sorted_groups(&run->all.shorts, true, &total);
    kt_table *t = kt_table_new("short_kernels_summary");
    if (!v || !t) {
        free(v);
        kt_table_free(t);
        return NULL;
    }
    kt_pt_col(run, t, "Parent cpu_op", "op", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input dims", "input_dims", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input strides", "input_strides", KT_COL_STR, 0);
    kt_pt_col(run, t, "Concrete Inputs", "concrete_inputs", KT_COL_STR, 0);
    kt_pt_col(run, t, "Kernel name", "kernel", KT_COL_STR, 0);
    kt_pt_col(run, t, "Short Kernel duration (µs) sum", "time_us", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Short Kernel count", "count", KT_COL_INT, 0);
    kt_pt_col(run, t, "Short Kernel duration (µs) mean", "mean_us", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Short Kernel duration (µs) percent of total time", "pct_of_gpu_span", KT_COL_FLOAT, -1);
    double span_us = kt_pt_gpu_span_us(run);
    for (size_t i = 0; i < run->all.shorts.n; i++) {
        const kt_pgroup *g = v[i];
        agg m;
        kt_pt_moments(g->busy_us, g->n, &m);
        kt_table_add_row(t);
        kt_table_set_str(t, 0, kt_pt_op_name(run, g->name));
        kt_table_set_str(t, 1, g->dims);
        kt_table_set_str(t, 2, g->strides);
        kt_table_set_str(t, 3, g->concrete);
        kt_table_set_str(t, 4, kt_pt_op_name(run, g->kernels[0]));
        kt_table_set_float(t, 5, m.sum);
        kt_table_set_int(t, 6, (int64_t)g->n);
        kt_table_set_float(t, 7, m.mean);
        kt_table_set_float(t, 8, span_us > 0 ? m.sum / span_us * 100 : NAN);
    }
    free(v);
    return t;
}
