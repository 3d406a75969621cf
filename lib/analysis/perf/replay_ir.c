/*
 * replay_ir.c — `kineta replay`'s IR (kt_replay_ir, kineta.h): which ops to
 * re-run, picked from the perf analysis's groups (the roofline sheets'
 * rows, the headroom's, ops_unique_args'), each with its first call's
 * recorded arguments (replay_args.c) and the GPU work it launched.
 * Rendering the IR as JSON and Python scripts is output/replay_write.c's.
 */
#include "analysis/kernels/kernel_stats.h"
#include "analysis/perf/perf_tables.h"
#include "analysis/perf/replay_args.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_replay_options_init(kt_replay_options *o, size_t size)
{
    const kt_replay_options d = { .group = -1 };
    kt_options_init(o, size, &d, sizeof d);
}

typedef struct pick {
    const kt_pgroup *g;
    const char *by;           /* "roofline", "headroom", "unique_args"    */
    double lost_us;           /* headroom only, else NaN                  */
    char *args;               /* the first call's args text (owned)       */
    size_t len;
} pick;

typedef struct picks {
    pick *v;
    size_t n, cap;
} picks;

static bool name_matches(const char *pattern, const char *name)
{
    if (!pattern) return true;
    return strpbrk(pattern, "*?[") ? fnmatch(pattern, name, 0) == 0 : strstr(name, pattern) != NULL;
}

static bool picked(const picks *p, const kt_pgroup *g)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i].g->rank == g->rank && p->v[i].g->first_ev == g->first_ev) return true;
    return false;
}

static bool add_pick(picks *p, const kt_pgroup *g, const char *by, double lost_us)
{
    if (!kt_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v)) return false;
    p->v[p->n++] = (pick){ g, by, lost_us, NULL, 0 };
    return true;
}

/* The roofline sheets' order: by family, then total time, rank, event. */
static int by_sheet(const void *a, const void *b)
{
    const kt_pgroup *x = ((const pick *)a)->g, *y = ((const pick *)b)->g;
    if (x->family != y->family) return (x->family > y->family) - (x->family < y->family);
    if (x->subtree_sum_us != y->subtree_sum_us) return (x->subtree_sum_us < y->subtree_sum_us) - (x->subtree_sum_us > y->subtree_sum_us);
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->first_ev > y->first_ev) - (x->first_ev < y->first_ev);
}

static bool pick_by_name(const perf_run *run, const kt_replay_options *o, picks *p)
{
    const kt_pgroups *m = &run->all.models, *u = &run->all.unique;
    for (size_t i = 0; i < m->n; i++)
        if (m->g[i].modelled && m->g[i].family != KT_PF_TRITON &&
            name_matches(o->op, kt_pt_op_name(run, m->g[i].name)) && !add_pick(p, &m->g[i], "roofline", NAN))
            return false;
    if (p->n) qsort(p->v, p->n, sizeof *p->v, by_sheet);
    for (size_t i = 0; o->op && i < u->n; i++)
        if (name_matches(o->op, kt_pt_op_name(run, u->g[i].name)) && !picked(p, &u->g[i]) &&
            !add_pick(p, &u->g[i], "unique_args", NAN))
            return false;
    return true;
}

static kt_status pick_top(const perf_run *run, const kt_replay_options *o, picks *p, kt_diags **diags)
{
    if (!run->have_spec) {
        kt_diags_fail(diags, NULL, "--top ranks ops by the headroom table, which needs the GPU's peaks: the trace's "
                                   "GPU (\"%s\") is not in the built-in table (docs/perf.md)", run->device);
        return KT_EUSAGE;
    }
    size_t n;
    headroom_row *h = kt_pt_headroom_rows(run, &n);
    if (!h) return KT_ENOMEM;
    bool ok = true;
    for (size_t i = 0; ok && i < n && p->n < o->top; i++)
        if (name_matches(o->op, kt_pt_op_name(run, h[i].g->name))) ok = add_pick(p, h[i].g, "headroom", h[i].lost_us);
    free(h);
    return ok ? KT_OK : KT_ENOMEM;
}

static kt_status pick_group(const perf_run *run, const kt_replay_options *o, picks *p, kt_diags **diags)
{
    const kt_pgroups *u = &run->all.unique;
    for (size_t i = 0; i < u->n; i++)
        if ((int64_t)u->g[i].first_ev == o->group && !add_pick(p, &u->g[i], "unique_args", NAN)) return KT_ENOMEM;
    if (p->n) return KT_OK;
    kt_diags_fail(diags, NULL, "--group %lld: no ops_unique_args row has that first_event (kineta perf --table "
                               "ops_unique_args lists them)", (long long)o->group);
    return KT_EUSAGE;
}

/* Each pick's args text, read rank by rank in file order (the reader's
 * cheapest: a gzip file is decompressed once).                           */
static int by_rank_event(const void *a, const void *b)
{
    const pick *x = *(const pick *const *)a, *y = *(const pick *const *)b;
    if (x->g->rank != y->g->rank) return (x->g->rank > y->g->rank) - (x->g->rank < y->g->rank);
    return (x->g->first_ev > y->g->first_ev) - (x->g->first_ev < y->g->first_ev);
}

static bool read_args(const kt_trace *t, picks *p)
{
    pick **order = malloc((p->n ? p->n : 1) * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < p->n; i++) order[i] = &p->v[i];
    qsort(order, p->n, sizeof *order, by_rank_event);
    kt_args_reader *rd = NULL;
    const kt_rank *r = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < p->n; i++) {
        pick *k = order[i];
        if (!r || r->rank != k->g->rank) {
            kt_args_reader_close(rd);
            rd = NULL;
            r = NULL;
            for (size_t j = 0; j < t->nranks && !r; j++)
                if (t->ranks[j]->rank == k->g->rank) r = t->ranks[j];
            if (r && kt_args_reader_open(r, &rd) != KT_OK) rd = NULL;
        }
        const char *text;
        size_t len;
        if (rd && kt_args_reader_get(rd, k->g->first_ev, &text, &len) == KT_OK) {
            ok = (k->args = malloc(len + 1)) != NULL;
            if (ok) memcpy(k->args, text, len + 1);
            k->len = len;
        }
    }
    kt_args_reader_close(rd);
    free(order);
    return ok;
}

/* ---- the tables ---------------------------------------------------------------- */

enum { O_ID, O_OP, O_RANK, O_FIRST, O_BY, O_FAMILY, O_PARAMS, O_CALLS, O_MEAN, O_SUM, O_LOST, O_OK, O_REASON };

static kt_table *ops_table(void)
{
    static const char *const cols[] = { "id", "op", "rank", "first_event", "selected_by", "family", "params", "calls",
                                        "kernel_time_us_mean", "kernel_time_us_sum", "lost_us", "replayable",
                                        "reason" };
    kt_table *t = kt_table_new("replay_ops");
    for (size_t i = 0; t && i < sizeof cols / sizeof *cols; i++) {
        bool num = i == O_MEAN || i == O_SUM || i == O_LOST;
        bool integer = i == O_ID || i == O_RANK || i == O_FIRST || i == O_CALLS || i == O_OK;
        kt_table_add_col(t, cols[i], num ? KT_COL_FLOAT : integer ? KT_COL_INT : KT_COL_STR, num ? 3 : 0);
    }
    return t;
}

static void op_row(const perf_run *run, kt_table *t, int64_t id, const pick *k, const char *reason)
{
    const kt_pgroup *g = k->g;
    double sum = 0;
    for (size_t c = 0; c < g->n; c++) sum += g->busy_us[c];
    char params[1024] = "";
    if (strcmp(k->by, "unique_args")) kt_pt_params_text(g, params, sizeof params);
    kt_table_add_row(t);
    kt_table_set_int(t, O_ID, id);
    kt_table_set_str(t, O_OP, kt_pt_op_name(run, g->name));
    kt_table_set_int(t, O_RANK, g->rank);
    kt_table_set_int(t, O_FIRST, g->first_ev);
    kt_table_set_str(t, O_BY, k->by);
    kt_table_set_str(t, O_FAMILY, g->family >= 0 && strcmp(k->by, "unique_args") ? kt_perf_family_sheet(g->family) : "");
    kt_table_set_str(t, O_PARAMS, params);
    kt_table_set_int(t, O_CALLS, (int64_t)g->n);
    kt_table_set_float(t, O_MEAN, g->n ? sum / (double)g->n : NAN);
    kt_table_set_float(t, O_SUM, sum);
    kt_table_set_float(t, O_LOST, k->lost_us);
    kt_table_set_int(t, O_OK, !reason[0]);
    kt_table_set_str(t, O_REASON, reason);
}

static kt_table *kernels_table(void)
{
    static const char *const cols[] = { "id", "position", "kernel", "stream", "dur_us_mean", "calls" };
    kt_table *t = kt_table_new("replay_kernels");
    for (size_t i = 0; t && i < sizeof cols / sizeof *cols; i++)
        kt_table_add_col(t, cols[i], i == 2 ? KT_COL_STR : i == 4 ? KT_COL_FLOAT : KT_COL_INT, i == 4 ? 3 : 0);
    return t;
}

/* The GPU events of the group's calls, position by position (kernel_details). */
static void kernel_rows(const perf_run *run, kt_table *t, int64_t id, const kt_pgroup *g)
{
    for (size_t k = 0; g->kd_set && k < g->kd_n; k++) {
        double sum = 0;
        for (size_t c = 0; c < g->kd_calls; c++) sum += g->kd_dur[c * g->kd_n + k];
        kt_table_add_row(t);
        kt_table_set_int(t, 0, id);
        kt_table_set_int(t, 1, (int64_t)k);
        kt_table_set_str(t, 2, kt_pt_op_name(run, g->kd_name[k]));
        kt_table_set_int(t, 3, g->kd_stream[k]);
        kt_table_set_float(t, 4, g->kd_calls ? sum / (double)g->kd_calls : NAN);
        kt_table_set_int(t, 5, (int64_t)g->kd_calls);
    }
}

static kt_status ir_tables(const perf_run *run, const picks *p, kt_tables **out)
{
    kt_table *tb[3] = { ops_table(), kt_table_new("replay_args"), kernels_table() };
    if (tb[1]) kt_replay_args_cols(tb[1]);
    kt_jtree tree = { 0 };
    char why[256];
    for (size_t i = 0; tb[0] && tb[1] && tb[2] && i < p->n; i++) {
        const char *reason;
        kt_replay_args_rows(tb[1], (int64_t)i + 1, p->v[i].args, p->v[i].len, &tree, &reason, why, sizeof why);
        op_row(run, tb[0], (int64_t)i + 1, &p->v[i], reason);
        kernel_rows(run, tb[2], (int64_t)i + 1, p->v[i].g);
    }
    kt_jtree_free(&tree);
    return kt_tables_from(tb, 3, out);
}

kt_status kt_replay_ir(const kt_trace *t, const kt_rank_sel *sel, const kt_replay_options *opt, kt_tables **out,
                       kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_replay_options o = kt_replay_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_perf_options po = kt_perf_defaults();
    po.device_spec = o.device_spec;
    perf_run run;
    char err[512] = "";
    kt_status st = kt_perf_run_begin(&run, t, sel, &po, KT_PERF_KERNEL_DETAILS | KT_PERF_SHAPE_GROUPS, err, sizeof err);
    if (st != KT_OK) {
        if (err[0]) kt_diags_fail(diags, NULL, "%s", err);
        return st;
    }
    picks p = { 0 };
    if (o.group >= 0) st = pick_group(&run, &o, &p, diags);
    else if (o.top) st = pick_top(&run, &o, &p, diags);
    else st = pick_by_name(&run, &o, &p) ? KT_OK : KT_ENOMEM;
    if (st == KT_OK) st = read_args(t, &p) ? KT_OK : KT_ENOMEM;
    if (st == KT_OK) st = ir_tables(&run, &p, out);
    for (size_t i = 0; i < p.n; i++) free(p.v[i].args);
    free(p.v);
    kt_perf_run_end(&run);
    return st;
}
