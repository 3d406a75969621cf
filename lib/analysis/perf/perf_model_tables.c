/*
 * perf_model_tables.c — the tables built on the op models: the roofline
 * sheets (GEMM, SDPA_fwd, ... one row per op and parameters), headroom,
 * FLOPs per family and per step, and the ops no model could use.
 */
#include "analysis/common/kernel_names.h"
#include "analysis/perf/perf_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- roofline sheets, one per model family ---------------------------------------- */

/* Modelled groups of a family, by total kernel time, then first event. */
static kt_pgroup **family_groups(const perf_run *run, int family, size_t *n)
{
    const kt_pgroups *gs = &run->all.models;
    kt_pgroup **v = malloc((gs->n ? gs->n : 1) * sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++)
        if (gs->g[i].family == family && gs->g[i].modelled) v[(*n)++] = &gs->g[i];
    qsort(v, *n, sizeof *v, kt_pt_by_time_then_first);
    return v;
}

/* The parameter columns: every name any row has, in the order the ops
 * first show them in the trace (pandas' column union over TraceLens's rows). */
#define MAX_PARAM_COLS (2 * KT_PERF_MAX_PARAMS)
typedef struct param_cols {
    const char *name[MAX_PARAM_COLS];
    size_t n;
} param_cols;

static bool param_columns(const perf_run *run, kt_table *t, kt_pgroup *const *v, size_t n, param_cols *pc)
{
    kt_pgroup **order = malloc(n * sizeof *order);
    if (!order) return false;
    memcpy(order, v, n * sizeof *order);
    qsort(order, n, sizeof *order, kt_pt_by_first_event);
    pc->n = 0;
    for (size_t g = 0; g < n; g++)
        for (size_t i = 0; i < order[g]->eval.nparams; i++) {
            const kt_perf_param *p = &order[g]->eval.p[i];
            size_t k = 0;
            while (k < pc->n && strcmp(pc->name[k], p->name)) k++;
            if (k < pc->n || pc->n == MAX_PARAM_COLS) continue;
            char tl[64];
            pc->name[pc->n++] = p->name;
            snprintf(tl, sizeof tl, "param: %s", p->name);
            kt_pt_col(run, t, tl, p->name, p->is_int ? KT_COL_INT : KT_COL_STR, 0);
        }
    free(order);
    return true;
}

static bool sheet_row(const perf_run *run, kt_table *t, const param_cols *pc, const kt_pgroup *g, double *scratch)
{
    const kt_perf_eval *e = &g->eval;
    size_t c = 0;
    kt_table_add_row(t);
    kt_table_set_str(t, c++, kt_pt_op_name(run, g->name));
    for (size_t k = 0; k < pc->n; k++, c++) {
        size_t i = 0;
        while (i < e->nparams && strcmp(e->p[i].name, pc->name[k])) i++;
        if (i == e->nparams) { /* this op has no such parameter: NaN, as pandas writes it */
            if (kt_table_col_type(t, c) == KT_COL_STR) kt_table_set_str(t, c, "nan");
        } else if (e->p[i].is_int) {
            kt_table_set_int(t, c, e->p[i].i);
        } else {
            kt_table_set_str(t, c, e->p[i].s);
        }
    }
    kt_table_set_float(t, c++, e->flops / 1e9);
    kt_table_set_float(t, c++, e->bytes / (1024.0 * 1024.0));
    kt_table_set_float(t, c++, kt_pt_flops_per_byte(e->flops, e->bytes));
    kt_pt_per_call(g, kt_pt_tera_bytes(e->bytes), scratch);
    agg a = kt_pt_aggregate(scratch, g->n);
    kt_pt_set_agg(t, c, &a, false);
    c += 5;
    kt_pt_per_call(g, kt_pt_tera_flops(e->flops), scratch);
    a = kt_pt_aggregate(scratch, g->n);
    kt_pt_set_agg(t, c, &a, false);
    c += 5;
    kt_table_set_str(t, c++, kt_pt_or_empty(g->process_name));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->process_label));
    kt_table_set_str(t, c++, kt_pt_or_empty(g->thread_name));
    kt_table_set_str(t, c++, e->compute_spec);
    if (!kt_pt_set_kernel_details(run, t, &c, g)) return false;
    kt_table_set_str(t, c++, g->dims);
    kt_table_set_str(t, c++, g->types);
    kt_table_set_str(t, c++, g->strides);
    kt_table_set_str(t, c++, g->concrete);
    memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
    agg k = kt_pt_aggregate(scratch, g->n);
    kt_pt_set_agg(t, c, &k, true);
    c += 6;
    kt_table_set_int(t, c++, (int64_t)g->n);
    kt_table_set_int(t, c++, g->first_ev);
    if (!run->have_spec) return true;
    roofline rl = kt_pt_roofline_of(run, e);
    kt_table_set_float(t, c++, rl.time_us);
    if (!isnan(rl.time_us)) kt_table_set_str(t, c, rl.compute_bound ? "COMPUTE_BOUND" : "MEMORY_BOUND");
    c++;
    kt_table_set_float(t, c++, rl.time_us / k.mean * 100);
    return true;
}

kt_table *kt_pt_family_sheet(const perf_run *run, int family)
{
    size_t n;
    kt_pgroup **v = family_groups(run, family, &n);
    if (!v || !n) {
        free(v);
        return NULL;
    }
    kt_table *t = kt_table_new(kt_perf_family_sheet(family));
    size_t most = 1;
    for (size_t i = 0; i < n; i++) most = v[i]->n > most ? v[i]->n : most;
    double *scratch = malloc(most * sizeof *scratch);
    if (!t || !scratch) goto fail;
    kt_pt_col(run, t, "name", "op", KT_COL_STR, 0);
    param_cols pc;
    if (!param_columns(run, t, v, n, &pc)) goto fail;
    kt_pt_col(run, t, "GFLOPS_first", "gflops", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "Data Moved (MB)_first", "data_moved_mib", KT_COL_FLOAT, -1);
    kt_pt_col(run, t, "FLOPS/Byte_first", "flops_per_byte", KT_COL_FLOAT, -1);
    kt_pt_add_agg_cols(run, t, "TB/s", "tb_per_s", false, -1);
    kt_pt_add_agg_cols(run, t, "TFLOPS/s", "tflops_per_s", false, -1);
    kt_pt_col(run, t, "process_name_first", "process_name", KT_COL_STR, 0);
    kt_pt_col(run, t, "process_label_first", "process_label", KT_COL_STR, 0);
    kt_pt_col(run, t, "thread_name_first", "thread_name", KT_COL_STR, 0);
    kt_pt_col(run, t, "Compute Spec", "compute_spec", KT_COL_STR, 0);
    kt_pt_kernel_detail_cols(run, t, "kernel_details__summarize_kernel_stats");
    kt_pt_col(run, t, "Input Dims_first", "input_dims", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input type_first", "input_types", KT_COL_STR, 0);
    kt_pt_col(run, t, "Input Strides_first", "input_strides", KT_COL_STR, 0);
    kt_pt_col(run, t, "Concrete Inputs_first", "concrete_inputs", KT_COL_STR, 0);
    kt_pt_add_agg_cols(run, t, "Kernel Time (µs)", "kernel_time_us", true, -1);
    kt_pt_col(run, t, "name_count", "calls", KT_COL_INT, 0);
    kt_pt_col(run, t, "UID_first", "first_event", KT_COL_INT, 0);
    if (run->have_spec) {
        kt_pt_col(run, t, "Roofline Time (µs)", "roofline_time_us", KT_COL_FLOAT, -1);
        kt_pt_col(run, t, "Roofline Bound", "roofline_bound", KT_COL_STR, 0);
        kt_pt_col(run, t, "Pct Roofline", "pct_roofline", KT_COL_FLOAT, -1);
    }
    for (size_t i = 0; i < n; i++)
        if (!sheet_row(run, t, &pc, v[i], scratch)) goto fail;
    return kt_pt_finish(t, true, v, scratch);
fail:
    return kt_pt_finish(t, false, v, scratch);
}

/* ---- headroom ---------------------------------------------------------------------- */

static int by_lost_desc(const void *a, const void *b)
{
    const headroom_row *x = a, *y = b;
    if (x->lost_us != y->lost_us) return (x->lost_us < y->lost_us) - (x->lost_us > y->lost_us);
    return strcmp(x->g->key, y->g->key);
}

void kt_pt_params_text(const kt_pgroup *g, char *out, size_t len)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < g->eval.nparams && k < len; i++) {
        const kt_perf_param *p = &g->eval.p[i];
        if (p->is_int) k += (size_t)snprintf(out + k, len - k, "%s%s=%lld", i ? ", " : "", p->name, (long long)p->i);
        else k += (size_t)snprintf(out + k, len - k, "%s%s=%s", i ? ", " : "", p->name, p->s);
    }
}

static void kernels_text(const perf_run *run, const kt_pgroup *g, char *out, size_t len)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < g->nkernels && k < len; i++) {
        char *s = kt_kernel_short_name(kt_pt_op_name(run, g->kernels[i]));
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? "; " : "", s ? s : kt_pt_op_name(run, g->kernels[i]));
        free(s);
    }
}

static void headroom_fill(const perf_run *run, kt_table *t, headroom_row *v, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++) total += v[i].lost_us;
    size_t top = run->o.top && run->o.top < n ? run->o.top : n;
    char params[512], kernels[512];
    for (size_t i = 0; i < top; i++) {
        const kt_pgroup *g = v[i].g;
        kt_pt_params_text(g, params, sizeof params);
        kernels_text(run, g, kernels, sizeof kernels);
        double busy_s = v[i].busy_us / 1e6, calls = (double)g->n;
        kt_table_add_row(t);
        kt_table_set_int(t, 0, (int64_t)i + 1);
        kt_table_set_str(t, 1, kt_pt_op_name(run, g->name));
        kt_table_set_str(t, 2, kt_perf_family_sheet(g->family));
        kt_table_set_str(t, 3, params);
        kt_table_set_int(t, 4, (int64_t)g->n);
        kt_table_set_float(t, 5, v[i].busy_us);
        kt_table_set_float(t, 6, v[i].rl.time_us * calls);
        kt_table_set_float(t, 7, v[i].lost_us);
        kt_table_set_float(t, 8, total > 0 ? v[i].lost_us / total * 100 : NAN);
        kt_table_set_float(t, 9, v[i].busy_us > 0 ? v[i].rl.time_us * calls / v[i].busy_us * 100 : NAN);
        kt_table_set_str(t, 10, v[i].rl.compute_bound ? "compute" : "memory");
        kt_table_set_float(t, 11, busy_s > 0 ? g->eval.flops * calls / busy_s / 1e12 : NAN);
        kt_table_set_float(t, 12, busy_s > 0 ? g->eval.bytes * calls / busy_s / 1e12 : NAN);
        kt_table_set_str(t, 13, kernels);
    }
}

headroom_row *kt_pt_headroom_rows(const perf_run *run, size_t *n)
{
    /* the unified ops: a modelled op inside another (native_layer_norm in
     * layer_norm) would count the same kernels twice */
    const kt_pgroups *gs = &run->all.unified;
    headroom_row *v = malloc((gs->n ? gs->n : 1) * sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        roofline rl = g->modelled ? kt_pt_roofline_of(run, &g->eval) : (roofline){ NAN, false };
        if (isnan(rl.time_us)) continue;
        headroom_row *h = &v[(*n)++];
        *h = (headroom_row){ .g = g, .rl = rl };
        for (size_t c = 0; c < g->n; c++) {
            h->busy_us += g->busy_us[c];
            if (g->busy_us[c] > rl.time_us) h->lost_us += g->busy_us[c] - rl.time_us;
        }
    }
    qsort(v, *n, sizeof *v, by_lost_desc);
    return v;
}

kt_table *kt_pt_headroom(const perf_run *run)
{
    static const char *const cols[] = { "rank_by_lost", "op", "family", "params", "calls", "kernel_time_us",
                                        "roofline_time_us", "lost_us", "pct_of_lost", "pct_roofline", "bound",
                                        "achieved_tflops_per_s", "achieved_tb_per_s", "kernels" };
    kt_table *t = kt_table_new("headroom");
    size_t n;
    headroom_row *v = t ? kt_pt_headroom_rows(run, &n) : NULL;
    if (!v) {
        kt_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < 14; i++) {
        kt_col_type type = i == 0 || i == 4 ? KT_COL_INT : (i >= 5 && i != 10 && i != 13) ? KT_COL_FLOAT : KT_COL_STR;
        kt_table_add_col(t, cols[i], type, 3);
    }
    headroom_fill(run, t, v, n);
    free(v);
    return t;
}

/* ---- FLOPs per family and per step, unmodelled ops ---------------------------------- */

static void throughput_row(kt_table *t, size_t calls, double flops, double busy_us)
{
    kt_table_set_int(t, 1, (int64_t)calls);
    kt_table_set_float(t, 2, flops / 1e9);
    kt_table_set_float(t, 3, busy_us);
    kt_table_set_float(t, 4, busy_us > 0 ? kt_pt_tera_flops(flops) / (busy_us / 1e6) : NAN);
}

kt_table *kt_pt_throughput_table(const perf_run *run, bool by_step)
{
    kt_table *t = kt_table_new(by_step ? "perf_by_step" : "perf_by_family");
    if (!t) return NULL;
    kt_table_add_col(t, by_step ? "step" : "family", by_step ? KT_COL_INT : KT_COL_STR, 0);
    kt_table_add_col(t, "calls", KT_COL_INT, 0);
    kt_table_add_col(t, "gflops", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "kernel_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "achieved_tflops_per_s", KT_COL_FLOAT, 3);
    const kt_perf_partial *p = &run->all;
    if (by_step) {
        for (size_t i = 0; i < p->nsteps; i++) {
            kt_table_add_row(t);
            kt_table_set_int(t, 0, p->steps[i].step);
            throughput_row(t, p->steps[i].calls, p->steps[i].flops, p->steps[i].busy_us);
        }
        return t;
    }
    for (int f = 0; f < KT_PF__COUNT; f++) {
        if (!p->fam_calls[f]) continue;
        kt_table_add_row(t);
        kt_table_set_str(t, 0, kt_perf_family_sheet(f));
        throughput_row(t, p->fam_calls[f], p->fam_flops[f], p->fam_busy_us[f]);
    }
    return t;
}

kt_table *kt_pt_unmodelled(const perf_run *run)
{
    kt_table *t = kt_table_new("unmodelled_ops");
    if (!t) return NULL;
    kt_table_add_col(t, "op", KT_COL_STR, 0);
    kt_table_add_col(t, "reason", KT_COL_STR, 0);
    kt_table_add_col(t, "calls", KT_COL_INT, 0);
    kt_table_add_col(t, "kernel_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "input_dims", KT_COL_STR, 0);
    const kt_pgroups *gs = &run->all.models;
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        if (g->modelled) continue;
        kt_table_add_row(t);
        kt_table_set_str(t, 0, kt_pt_op_name(run, g->name));
        kt_table_set_str(t, 1, g->eval.why ? g->eval.why : "");
        kt_table_set_int(t, 2, (int64_t)g->n);
        kt_table_set_float(t, 3, g->subtree_sum_us);
        kt_table_set_str(t, 4, g->dims);
    }
    return t;
}
