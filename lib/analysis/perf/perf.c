/*
 * perf.c — `kineta perf`: the reduce step and the tables (kineta.h).
 *
 * Each selected rank is mapped on its own (perf_rank.c) and the partials
 * merged; the tables are then built from the merged groups: TraceLens's
 * ops_summary, ops_summary_by_category and roofline sheets, and our
 * headroom, per-family, per-step, unmodelled-op and notes tables.
 */
#include "analysis/common/kernel_names.h"
#include "analysis/perf/device_spec.h"
#include "analysis/perf/kernel_details.h"
#include "analysis/perf/perf_rank.h"
#include "output/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kt_perf_options kt_perf_defaults(void) { return (kt_perf_options){ .top = 20 }; }

typedef struct perf_run {
    const kt_trace *t;
    kt_perf_options o;
    kt_perf_partial all;
    bool have_spec;
    kt_device_spec spec;
    kt_table *notes;
} perf_run;

static const char *op_name(const perf_run *run, uint32_t name)
{
    return name == KT_NONE ? "" : kt_strtab_get(run->t->strs, name);
}

/* A column named TraceLens's way under --tracelens, ours otherwise. */
static size_t col(const perf_run *run, kt_table *t, const char *tl, const char *own, kt_col_type type, int prec)
{
    return kt_table_add_col(t, run->o.tracelens ? tl : own, type, prec);
}

static void note(perf_run *run, const char *level, const char *msg)
{
    kt_table_add_row(run->notes);
    kt_table_set_str(run->notes, 0, level);
    kt_table_set_str(run->notes, 1, msg);
}

/* ---- statistics the way pandas aggregates (NaN skipped, sample std) ------ */

typedef struct agg {
    double mean, median, std, min, max, sum;
    size_t n;
} agg;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v ascending: the per-call arrays arrive sorted (sort_calls) or,
 * for throughputs (a constant over busy time), sorted the other way, so
 * the check saves the sort for all but the odd case.                    */
static void sort_values(double *v, size_t n)
{
    size_t i = 1;
    while (i < n && v[i - 1] <= v[i]) i++;
    if (i >= n) return;
    for (i = 1; i < n && v[i - 1] >= v[i]; i++) {}
    if (i < n) {
        qsort(v, n, sizeof *v, cmp_double);
        return;
    }
    for (size_t l = 0, r = n - 1; l < r; l++, r--) {
        double t = v[l];
        v[l] = v[r];
        v[r] = t;
    }
}

/* v is reordered; NaNs are left out. */
static agg aggregate(double *v, size_t n)
{
    agg a = { NAN, NAN, NAN, NAN, NAN, 0, 0 };
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) v[k++] = v[i];
    a.n = k;
    if (!k) return a;
    sort_values(v, k);
    for (size_t i = 0; i < k; i++) a.sum += v[i];
    a.mean = a.sum / (double)k;
    a.min = v[0];
    a.max = v[k - 1];
    a.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    if (k > 1) {
        double ss = 0;
        for (size_t i = 0; i < k; i++) ss += (v[i] - a.mean) * (v[i] - a.mean);
        a.std = sqrt(ss / (double)(k - 1));
    }
    return a;
}

static void set_agg(kt_table *t, size_t c, const agg *a, bool sum)
{
    kt_table_set_float(t, c, a->mean);
    kt_table_set_float(t, c + 1, a->median);
    kt_table_set_float(t, c + 2, a->std);
    kt_table_set_float(t, c + 3, a->min);
    kt_table_set_float(t, c + 4, a->max);
    if (sum) kt_table_set_float(t, c + 5, a->sum);
}

static size_t add_agg_cols(const perf_run *run, kt_table *t, const char *tl, const char *own, bool sum, int prec)
{
    static const char *const tl_suffix[] = { "mean", "median", "std", "min", "max", "sum" };
    size_t first = 0;
    for (int i = 0; i < (sum ? 6 : 5); i++) {
        char a[96], b[96];
        snprintf(a, sizeof a, "%s_%s", tl, tl_suffix[i]);
        snprintf(b, sizeof b, "%s_%s", own, tl_suffix[i]);
        size_t c = col(run, t, a, b, KT_COL_FLOAT, prec);
        if (i == 0) first = c;
    }
    return first;
}

/* ---- ops_summary and ops_summary_by_category ------------------------------ */

typedef struct name_total {
    const char *key;       /* op name or category */
    double direct_us, subtree_us;
    size_t count;
    char cats[256];        /* Python list repr of the categories */
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
    else if (len + strlen(item) + 3 < sizeof n->cats) snprintf(n->cats + len - 1, sizeof n->cats - len + 1, ", %s]", item);
}

/* Totals by op name (by_category false) or by category. */
static name_total *launcher_totals(const perf_run *run, bool by_category, size_t *n)
{
    const kt_pgroups *gs = &run->all.launchers;
    name_total *v = calloc(gs->n ? gs->n : 1, sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        const char *key = by_category ? g->category : op_name(run, g->name);
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
    return v;
}

static kt_table *ops_summary(const perf_run *run)
{
    kt_table *t = kt_table_new("ops_summary");
    if (!t) return NULL;
    col(run, t, "name", "op", KT_COL_STR, 0);
    col(run, t, "total_direct_kernel_time_sum", "direct_kernel_time_us", KT_COL_FLOAT, 3);
    col(run, t, "total_subtree_kernel_time_sum", "subtree_kernel_time_us", KT_COL_FLOAT, 3);
    if (run->o.tracelens) {
        col(run, t, "total_direct_kernel_time_ms", "", KT_COL_FLOAT, 6);
        col(run, t, "total_subtree_kernel_time_ms", "", KT_COL_FLOAT, 6);
    }
    col(run, t, "Count", "calls", KT_COL_INT, 0);
    col(run, t, "Categories", "categories", KT_COL_STR, 0);
    col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, 2);
    col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, 2);
    size_t n;
    name_total *v = launcher_totals(run, false, &n);
    if (!v) {
        kt_table_free(t);
        return NULL;
    }
    double total = 0, cum = 0;
    for (size_t i = 0; i < n; i++) total += v[i].direct_us / 1e3;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        double pct = v[i].direct_us / 1e3 / total * 100;
        cum += pct;
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
        kt_table_set_float(t, c++, pct);
        kt_table_set_float(t, c++, cum);
    }
    free(v);
    return t;
}

static kt_table *ops_by_category(const perf_run *run)
{
    kt_table *t = kt_table_new("ops_summary_by_category");
    if (!t) return NULL;
    col(run, t, "op category", "category", KT_COL_STR, 0);
    col(run, t, "Count", "calls", KT_COL_INT, 0);
    col(run, t, "total_direct_kernel_time_ms", "direct_kernel_time_ms", KT_COL_FLOAT, 6);
    col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, 2);
    col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, 2);
    size_t n;
    name_total *v = launcher_totals(run, true, &n);
    if (!v) {
        kt_table_free(t);
        return NULL;
    }
    double total = 0, cum = 0;
    for (size_t i = 0; i < n; i++) total += v[i].direct_us / 1e3;
    for (size_t i = 0; i < n; i++) {
        double pct = v[i].direct_us / 1e3 / total * 100;
        cum += pct;
        kt_table_add_row(t);
        kt_table_set_str(t, 0, v[i].key);
        kt_table_set_int(t, 1, (int64_t)v[i].count);
        kt_table_set_float(t, 2, v[i].direct_us / 1e3);
        kt_table_set_float(t, 3, pct);
        kt_table_set_float(t, 4, cum);
    }
    free(v);
    return t;
}

/* ---- TraceLens's kernel_details columns (--tracelens only) --------------- */

static void kernel_detail_cols(const perf_run *run, kt_table *t, const char *summary_name)
{
    if (!run->o.tracelens) return;
    kt_table_add_col(t, summary_name, KT_COL_STR, 0);
    kt_table_add_col(t, "trunc_kernel_details", KT_COL_STR, 0);
}

/* Fills them at column *c (and moves *c past them); false on OOM. */
static bool set_kernel_details(const perf_run *run, kt_table *t, size_t *c, const kt_pgroup *g)
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

typedef struct roofline {
    double time_us;        /* NaN when the spec lacks the precision */
    bool compute_bound;
} roofline;

static roofline roofline_of(const perf_run *run, const kt_perf_eval *e)
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

/* ---- roofline sheets (GEMM, SDPA_fwd) ---------------------------------------------- */

/* Modelled groups of a family, by total kernel time, then first event. */
static int by_time_then_uid(const void *a, const void *b)
{
    const kt_pgroup *x = *(const kt_pgroup *const *)a, *y = *(const kt_pgroup *const *)b;
    if (x->subtree_sum_us != y->subtree_sum_us) return (x->subtree_sum_us < y->subtree_sum_us) - (x->subtree_sum_us > y->subtree_sum_us);
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

static kt_pgroup **family_groups(const perf_run *run, int family, size_t *n)
{
    const kt_pgroups *gs = &run->all.models;
    kt_pgroup **v = malloc((gs->n ? gs->n : 1) * sizeof *v);
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < gs->n; i++)
        if (gs->g[i].family == family && gs->g[i].modelled) v[(*n)++] = &gs->g[i];
    qsort(v, *n, sizeof *v, by_time_then_uid);
    return v;
}

static const char *or_empty(const char *s) { return s ? s : ""; }

/* Per-call throughput: value / (busy µs · 1e6) = value·1e-12 per second. */
static void per_call(const kt_pgroup *g, double value, double *out)
{
    for (size_t i = 0; i < g->n; i++) out[i] = g->busy_us[i] > 0 && !isnan(value) ? value / (g->busy_us[i] * 1e6) : NAN;
}

/* The parameter columns: every name any row has, in the order the ops
 * first show them in the trace (pandas' column union over TraceLens's rows). */
#define MAX_PARAM_COLS (2 * KT_PERF_MAX_PARAMS)
typedef struct param_cols {
    const char *name[MAX_PARAM_COLS];
    size_t n;
} param_cols;

static int by_first_event(const void *a, const void *b)
{
    const kt_pgroup *x = *(const kt_pgroup *const *)a, *y = *(const kt_pgroup *const *)b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

static bool param_columns(const perf_run *run, kt_table *t, kt_pgroup *const *v, size_t n, param_cols *pc)
{
    kt_pgroup **order = malloc(n * sizeof *order);
    if (!order) return false;
    memcpy(order, v, n * sizeof *order);
    qsort(order, n, sizeof *order, by_first_event);
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
            col(run, t, tl, p->name, p->is_int ? KT_COL_INT : KT_COL_STR, 0);
        }
    free(order);
    return true;
}

static bool sheet_row(const perf_run *run, kt_table *t, const param_cols *pc, const kt_pgroup *g, double *scratch)
{
    const kt_perf_eval *e = &g->eval;
    size_t c = 0;
    kt_table_add_row(t);
    kt_table_set_str(t, c++, op_name(run, g->name));
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
    kt_table_set_float(t, c++, e->bytes > 0 ? e->flops / e->bytes : NAN);
    per_call(g, e->bytes, scratch);
    agg a = aggregate(scratch, g->n);
    set_agg(t, c, &a, false);
    c += 5;
    per_call(g, e->flops, scratch);
    a = aggregate(scratch, g->n);
    set_agg(t, c, &a, false);
    c += 5;
    kt_table_set_str(t, c++, or_empty(g->process_name));
    kt_table_set_str(t, c++, or_empty(g->process_label));
    kt_table_set_str(t, c++, or_empty(g->thread_name));
    kt_table_set_str(t, c++, e->compute_spec);
    if (!set_kernel_details(run, t, &c, g)) return false;
    kt_table_set_str(t, c++, g->dims);
    kt_table_set_str(t, c++, g->types);
    kt_table_set_str(t, c++, g->strides);
    kt_table_set_str(t, c++, g->concrete);
    memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
    agg k = aggregate(scratch, g->n);
    set_agg(t, c, &k, true);
    c += 6;
    kt_table_set_int(t, c++, (int64_t)g->n);
    kt_table_set_int(t, c++, g->first_ev);
    if (!run->have_spec) return true;
    roofline rl = roofline_of(run, e);
    kt_table_set_float(t, c++, rl.time_us);
    if (!isnan(rl.time_us)) kt_table_set_str(t, c, rl.compute_bound ? "COMPUTE_BOUND" : "MEMORY_BOUND");
    c++;
    kt_table_set_float(t, c++, rl.time_us / k.mean * 100);
    return true;
}

static kt_table *family_sheet(const perf_run *run, int family)
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
    col(run, t, "name", "op", KT_COL_STR, 0);
    param_cols pc;
    if (!param_columns(run, t, v, n, &pc)) goto fail;
    col(run, t, "GFLOPS_first", "gflops", KT_COL_FLOAT, -1);
    col(run, t, "Data Moved (MB)_first", "data_moved_mib", KT_COL_FLOAT, -1);
    col(run, t, "FLOPS/Byte_first", "flops_per_byte", KT_COL_FLOAT, -1);
    add_agg_cols(run, t, "TB/s", "tb_per_s", false, -1);
    add_agg_cols(run, t, "TFLOPS/s", "tflops_per_s", false, -1);
    col(run, t, "process_name_first", "process_name", KT_COL_STR, 0);
    col(run, t, "process_label_first", "process_label", KT_COL_STR, 0);
    col(run, t, "thread_name_first", "thread_name", KT_COL_STR, 0);
    col(run, t, "Compute Spec", "compute_spec", KT_COL_STR, 0);
    kernel_detail_cols(run, t, "kernel_details__summarize_kernel_stats");
    col(run, t, "Input Dims_first", "input_dims", KT_COL_STR, 0);
    col(run, t, "Input type_first", "input_types", KT_COL_STR, 0);
    col(run, t, "Input Strides_first", "input_strides", KT_COL_STR, 0);
    col(run, t, "Concrete Inputs_first", "concrete_inputs", KT_COL_STR, 0);
    add_agg_cols(run, t, "Kernel Time (µs)", "kernel_time_us", true, -1);
    col(run, t, "name_count", "calls", KT_COL_INT, 0);
    col(run, t, "UID_first", "first_event", KT_COL_INT, 0);
    if (run->have_spec) {
        col(run, t, "Roofline Time (µs)", "roofline_time_us", KT_COL_FLOAT, -1);
        col(run, t, "Roofline Bound", "roofline_bound", KT_COL_STR, 0);
        col(run, t, "Pct Roofline", "pct_roofline", KT_COL_FLOAT, -1);
    }
    for (size_t i = 0; i < n; i++)
        if (!sheet_row(run, t, &pc, v[i], scratch)) goto fail;
    free(v);
    free(scratch);
    return t;
fail:
    free(v);
    free(scratch);
    kt_table_free(t);
    return NULL;
}

/* ---- ops_unique_args, unified_perf_summary, short_kernels_summary ------------ */

/* Groups by descending sum (busy_us sums), then first event. */
static int by_sum_then_uid(const void *a, const void *b)
{
    const kt_pgroup *x = *(const kt_pgroup *const *)a, *y = *(const kt_pgroup *const *)b;
    double sx = x->subtree_sum_us, sy = y->subtree_sum_us;
    if (sx != sy) return (sx < sy) - (sx > sy);
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

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
    qsort(v, gs->n, sizeof *v, by_sum_then_uid);
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
    col(run, t, "Input Dims", "input_dims", KT_COL_STR, 0);
    col(run, t, "Input type", "input_types", KT_COL_STR, 0);
    col(run, t, "Input Strides", "input_strides", KT_COL_STR, 0);
    col(run, t, "Concrete Inputs", "concrete_inputs", KT_COL_STR, 0);
}

static size_t set_names(const perf_run *run, kt_table *t, const kt_pgroup *g, bool shapes)
{
    size_t c = 0;
    kt_table_set_str(t, c++, op_name(run, g->name));
    kt_table_set_str(t, c++, or_empty(g->category));
    kt_table_set_str(t, c++, or_empty(g->process_name));
    kt_table_set_str(t, c++, or_empty(g->process_label));
    kt_table_set_str(t, c++, or_empty(g->thread_name));
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
    col(run, t, "name", "op", KT_COL_STR, 0);
    col(run, t, "op category", "category", KT_COL_STR, 0);
    col(run, t, "process_name", "process_name", KT_COL_STR, 0);
    col(run, t, "process_label", "process_label", KT_COL_STR, 0);
    col(run, t, "thread_name", "thread_name", KT_COL_STR, 0);
    shape_cols(run, t);
}

static kt_table *ops_unique_args(const perf_run *run)
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
    col(run, t, "operation_count", "calls", KT_COL_INT, 0);
    for (int k = 0; k < 6; k++)
        for (int w = 0; w < 2; w++) {
            char tl[64], own[64];
            snprintf(tl, sizeof tl, "total_%s_kernel_time_%s", w ? "subtree" : "direct", stat[k]);
            snprintf(own, sizeof own, "%s_kernel_time_us_%s", w ? "subtree" : "direct", stat[k]);
            col(run, t, tl, own, KT_COL_FLOAT, -1);
        }
    col(run, t, "ex_UID", "first_event", KT_COL_INT, 0);
    kernel_detail_cols(run, t, "kernel_details_summary");
    col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, -1);
    col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, -1);
    double cum = 0;
    for (size_t i = 0; i < run->all.unique.n; i++) {
        const kt_pgroup *g = v[i];
        kt_table_add_row(t);
        size_t c = set_names(run, t, g, true);
        kt_table_set_int(t, c++, (int64_t)g->n);
        memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
        agg d = aggregate(scratch, g->n);
        memcpy(scratch, g->v2, g->n * sizeof *scratch);
        agg s = aggregate(scratch, g->n);
        const double dv[6] = { d.mean, d.median, d.std, d.min, d.max, d.sum };
        const double sv[6] = { s.mean, s.median, s.std, s.min, s.max, s.sum };
        for (int k = 0; k < 6; k++) {
            kt_table_set_float(t, c++, dv[k]);
            kt_table_set_float(t, c++, sv[k]);
        }
        double pct = g->direct_sum_us / total * 100;
        cum += pct;
        kt_table_set_int(t, c++, g->first_ev);
        if (!set_kernel_details(run, t, &c, g)) goto fail;
        kt_table_set_float(t, c++, pct);
        kt_table_set_float(t, c++, cum);
    }
    free(v);
    free(scratch);
    return t;
fail:
    free(v);
    free(scratch);
    kt_table_free(t);
    return NULL;
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
    agg cpu = aggregate(scratch, g->n);
    kt_table_set_float(t, c++, cpu.sum);
    kt_table_set_float(t, c++, cpu.mean);
    kt_table_set_float(t, c++, cpu.std);
    kt_table_set_float(t, c++, m ? e->flops / 1e9 : NAN);
    kt_table_set_float(t, c++, m ? e->bytes / (1024.0 * 1024.0) : NAN);
    kt_table_set_float(t, c++, m && e->bytes > 0 ? e->flops / e->bytes : NAN);
    if (m) kt_table_set_str(t, c, e->compute_spec);
    c++;
    per_call(g, m ? e->bytes : NAN, scratch);
    agg tb = aggregate(scratch, g->n);
    per_call(g, m ? e->flops : NAN, scratch + g->n);
    agg tf = aggregate(scratch + g->n, g->n);
    memcpy(scratch, g->busy_us, g->n * sizeof *scratch);
    agg k = aggregate(scratch, g->n);
    const double first[] = { tb.mean, tb.std, tf.mean, tf.std, k.mean, k.std, k.sum, cpu.median, cpu.min, cpu.max,
                             tb.median, tb.min, tb.max, tf.median, tf.min, tf.max, k.median, k.min, k.max };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) kt_table_set_float(t, c++, first[i]);
    if (!set_kernel_details(run, t, &c, g)) return false;
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

static kt_table *unified_summary(const perf_run *run)
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
    col(run, t, "ex_UID", "first_event", KT_COL_INT, 0);
    col(run, t, "operation_count", "calls", KT_COL_INT, 0);
    col(run, t, "total_duration_us", "cpu_time_us_sum", KT_COL_FLOAT, -1);
    col(run, t, "mean_duration_us", "cpu_time_us_mean", KT_COL_FLOAT, -1);
    col(run, t, "std_duration_us", "cpu_time_us_std", KT_COL_FLOAT, -1);
    col(run, t, "GFLOPS", "gflops", KT_COL_FLOAT, -1);
    col(run, t, "Data Moved (MB)", "data_moved_mib", KT_COL_FLOAT, -1);
    col(run, t, "FLOPS/Byte", "flops_per_byte", KT_COL_FLOAT, -1);
    col(run, t, "Compute Spec", "compute_spec", KT_COL_STR, 0);
    for (size_t i = 0; i < sizeof tl_cols / sizeof tl_cols[0]; i++) col(run, t, tl_cols[i], own_cols[i], KT_COL_FLOAT, -1);
    kernel_detail_cols(run, t, "kernel_details_summary");
    col(run, t, "perf_params", "perf_params", KT_COL_STR, 0);
    col(run, t, "has_perf_model", "has_perf_model", KT_COL_STR, 0);
    col(run, t, "Percentage (%)", "pct", KT_COL_FLOAT, -1);
    col(run, t, "Cumulative Percentage (%)", "cum_pct", KT_COL_FLOAT, -1);
    for (size_t i = 0; i < run->all.unified.n; i++)
        if (!unified_row(run, t, v[i], total, &cum, scratch)) goto fail;
    free(v);
    free(scratch);
    return t;
fail:
    free(v);
    free(scratch);
    kt_table_free(t);
    return NULL;
}

static kt_table *short_kernels(const perf_run *run)
{
    double total;
    kt_pgroup **v = sorted_groups(&run->all.shorts, true, &total);
    kt_table *t = kt_table_new("short_kernels_summary");
    if (!v || !t) {
        free(v);
        kt_table_free(t);
        return NULL;
    }
    col(run, t, "Parent cpu_op", "op", KT_COL_STR, 0);
    col(run, t, "Input dims", "input_dims", KT_COL_STR, 0);
    col(run, t, "Input strides", "input_strides", KT_COL_STR, 0);
    col(run, t, "Concrete Inputs", "concrete_inputs", KT_COL_STR, 0);
    col(run, t, "Kernel name", "kernel", KT_COL_STR, 0);
    col(run, t, "Short Kernel duration (µs) sum", "time_us", KT_COL_FLOAT, -1);
    col(run, t, "Short Kernel count", "count", KT_COL_INT, 0);
    col(run, t, "Short Kernel duration (µs) mean", "mean_us", KT_COL_FLOAT, -1);
    col(run, t, "Short Kernel duration (µs) percent of total time", "pct_of_gpu_span", KT_COL_FLOAT, -1);
    double span = run->all.gpu_last_us - run->all.gpu_first_us;
    for (size_t i = 0; i < run->all.shorts.n; i++) {
        const kt_pgroup *g = v[i];
        double sum = 0;
        for (size_t k = 0; k < g->n; k++) sum += g->busy_us[k];
        kt_table_add_row(t);
        kt_table_set_str(t, 0, op_name(run, g->name));
        kt_table_set_str(t, 1, g->dims);
        kt_table_set_str(t, 2, g->strides);
        kt_table_set_str(t, 3, g->concrete);
        kt_table_set_str(t, 4, op_name(run, g->kernels[0]));
        kt_table_set_float(t, 5, sum);
        kt_table_set_int(t, 6, (int64_t)g->n);
        kt_table_set_float(t, 7, sum / (double)g->n);
        kt_table_set_float(t, 8, span > 0 ? sum / span * 100 : NAN);
    }
    free(v);
    return t;
}

/* ---- headroom ---------------------------------------------------------------------- */

typedef struct headroom_row {
    const kt_pgroup *g;
    roofline rl;
    double busy_us, lost_us;
} headroom_row;

static int by_lost_desc(const void *a, const void *b)
{
    const headroom_row *x = a, *y = b;
    if (x->lost_us != y->lost_us) return (x->lost_us < y->lost_us) - (x->lost_us > y->lost_us);
    return strcmp(x->g->key, y->g->key);
}

/* "M=141, N=512, ..." */
static void params_text(const kt_pgroup *g, char *out, size_t len)
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
        char *s = kt_kernel_short_name(op_name(run, g->kernels[i]));
        k += (size_t)snprintf(out + k, len - k, "%s%s", i ? "; " : "", s ? s : op_name(run, g->kernels[i]));
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
        params_text(g, params, sizeof params);
        kernels_text(run, g, kernels, sizeof kernels);
        double busy_s = v[i].busy_us / 1e6, calls = (double)g->n;
        kt_table_add_row(t);
        kt_table_set_int(t, 0, (int64_t)i + 1);
        kt_table_set_str(t, 1, op_name(run, g->name));
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

static kt_table *headroom(const perf_run *run)
{
    static const char *const cols[] = { "rank_by_lost", "op", "family", "params", "calls", "kernel_time_us",
                                        "roofline_time_us", "lost_us", "pct_of_lost", "pct_roofline", "bound",
                                        "achieved_tflops_per_s", "achieved_tb_per_s", "kernels" };
    const kt_pgroups *gs = &run->all.models;
    kt_table *t = kt_table_new("headroom");
    headroom_row *v = malloc((gs->n ? gs->n : 1) * sizeof *v);
    if (!t || !v) {
        kt_table_free(t);
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < 14; i++) {
        kt_col_type type = i == 0 || i == 4 ? KT_COL_INT : (i >= 5 && i != 10 && i != 13) ? KT_COL_FLOAT : KT_COL_STR;
        kt_table_add_col(t, cols[i], type, 3);
    }
    size_t n = 0;
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = &gs->g[i];
        roofline rl = g->modelled ? roofline_of(run, &g->eval) : (roofline){ NAN, false };
        if (isnan(rl.time_us)) continue;
        headroom_row *h = &v[n++];
        *h = (headroom_row){ .g = g, .rl = rl };
        for (size_t c = 0; c < g->n; c++) {
            h->busy_us += g->busy_us[c];
            if (g->busy_us[c] > rl.time_us) h->lost_us += g->busy_us[c] - rl.time_us;
        }
    }
    qsort(v, n, sizeof *v, by_lost_desc);
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
    kt_table_set_float(t, 4, busy_us > 0 ? flops / (busy_us * 1e6) : NAN);
}

static kt_table *throughput_table(const perf_run *run, bool by_step)
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

static kt_table *unmodelled(const perf_run *run)
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
        kt_table_set_str(t, 0, op_name(run, g->name));
        kt_table_set_str(t, 1, g->eval.why ? g->eval.why : "");
        kt_table_set_int(t, 2, (int64_t)g->n);
        kt_table_set_float(t, 3, g->subtree_sum_us);
        kt_table_set_str(t, 4, g->dims);
    }
    return t;
}

/* ---- driver -------------------------------------------------------------------------- */

static kt_status pick_spec(perf_run *run, const kt_rank_sel *sel, char *err, size_t errlen)
{
    char msg[256];
    if (run->o.device_spec) {
        if (!kt_device_spec_parse(run->o.device_spec, strlen(run->o.device_spec), &run->spec, err, errlen))
            return KT_EUSAGE;
        run->have_spec = true;
    } else if (!run->o.tracelens) {
        for (size_t i = 0; i < run->t->nranks && !run->have_spec; i++) {
            const kt_rank *r = run->t->ranks[i];
            if (!kt_rank_selected(sel, r->rank) || !r->ndevices) continue;
            run->have_spec = kt_device_spec_for(kt_strtab_get(run->t->strs, r->device_names[0]), &run->spec);
        }
    }
    if (run->have_spec) {
        snprintf(msg, sizeof msg, "roofline against %s: %s", run->spec.name, run->spec.source);
        note(run, "info", msg);
    } else {
        note(run, "info", run->o.tracelens && !run->o.device_spec
                              ? "no roofline columns: --tracelens uses a device spec only when given (--device-spec)"
                              : "no roofline columns: the trace names no GPU we know; give --device-spec FILE");
    }
    return KT_OK;
}

static void shape_notes(perf_run *run)
{
    char msg[320];
    const kt_perf_partial *p = &run->all;
    if (p->args_unreadable)
        note(run, "warning", "the trace file could not be re-read for op shapes (moved, changed or loaded from memory)");
    if (p->no_shapes) {
        snprintf(msg, sizeof msg,
                 "%zu of %zu modelled op calls have no Input Dims: record the trace with "
                 "torch.profiler.profile(record_shapes=True) to get FLOPs and bytes; timing columns only",
                 p->no_shapes, p->modelled_calls);
        note(run, "warning", msg);
    }
    if (p->bad_shapes) {
        snprintf(msg, sizeof msg, "%zu op calls have shapes their model cannot use (see unmodelled_ops)", p->bad_shapes);
        note(run, "warning", msg);
    }
}

/* The per-call values of the tables with medians in ascending order, once
 * (the other statistics do not depend on the order).                     */
static void sort_calls(kt_perf_partial *p)
{
    kt_pgroups *all[] = { &p->unique, &p->unified, &p->models };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        for (size_t i = 0; i < all[k]->n; i++) {
            kt_pgroup *g = &all[k]->g[i];
            qsort(g->busy_us, g->n, sizeof *g->busy_us, cmp_double);
            if (all[k] != &p->models) qsort(g->v2, g->n, sizeof *g->v2, cmp_double);
        }
}

static kt_status map_ranks(perf_run *run, const kt_rank_sel *sel)
{
    for (size_t i = 0; i < run->t->nranks; i++) {
        const kt_rank *r = run->t->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        kt_perf_partial part;
        kt_status st = kt_perf_map_rank(run->t, r, !run->o.tracelens, &part);
        if (st != KT_OK) return st;
        if (!kt_perf_partial_merge(&run->all, &part)) return KT_ENOMEM;
    }
    return KT_OK;
}

kt_status kt_perf(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                  char *err, size_t errlen)
{
    *out = NULL;
    if (err && errlen) err[0] = '\0';
    perf_run run = { .t = t, .o = opt ? *opt : kt_perf_defaults() };
    run.all.gpu_first_us = INFINITY;
    run.all.gpu_last_us = -INFINITY;
    char dummy[8];
    run.notes = kt_table_new("notes");
    if (!run.notes) return KT_ENOMEM;
    kt_table_add_col(run.notes, "level", KT_COL_STR, 0);
    kt_table_add_col(run.notes, "message", KT_COL_STR, 0);
    kt_status st = pick_spec(&run, sel, err ? err : dummy, err ? errlen : sizeof dummy);
    if (st == KT_OK) st = map_ranks(&run, sel);
    if (st != KT_OK) {
        kt_table_free(run.notes);
        kt_perf_partial_free(&run.all);
        return st;
    }
    shape_notes(&run);
    sort_calls(&run.all);
    kt_table *tb[20];
    size_t n = 0;
    tb[n++] = ops_summary(&run);
    tb[n++] = ops_by_category(&run);
    tb[n++] = ops_unique_args(&run);
    tb[n++] = unified_summary(&run);
    tb[n++] = short_kernels(&run);
    for (int f = 0; f < KT_PF__COUNT; f++) {
        kt_table *s = family_sheet(&run, f);
        if (s) tb[n++] = s;
    }
    if (run.have_spec) tb[n++] = headroom(&run);
    tb[n++] = throughput_table(&run, false);
    tb[n++] = throughput_table(&run, true);
    tb[n++] = unmodelled(&run);
    tb[n++] = run.notes;
    kt_perf_partial_free(&run.all);
    return kt_tables_from(tb, n, out);
}
