/*
 * collectives.c — `kineta collectives`: every collective instance matched
 * across ranks, with TraceLens's per-instance numbers (NcclAnalyser, spec
 * §1.7) in the tables "implicit_sync", "all2allv" and "other", and every
 * instance that could not be matched completely in "unmatched".
 */
#include "analysis/common/dtypes.h"
#include "analysis/collectives/collectives_tables.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct coll_run {
    const kt_trace *t;
    const kt_comm_world *w;
    kt_collectives_options o;
    kt_table *sync, *a2a, *other, *unmatched;
    size_t sync_rank_col, a2a_rank_col; /* first per-rank column */
} coll_run;

void kt_collectives_options_init(kt_collectives_options *o, size_t size)
{
    const kt_collectives_options d = { .align = KT_ALIGN_COLLECTIVES };
    kt_options_init(o, size, &d, sizeof d);
}

void kt_collective_id(const kt_trace *t, const kt_coll_inst *in, char *buf, size_t n)
{
    if (in->pg == KT_NONE) snprintf(buf, n, "stream%" PRId32 "_%" PRId64, in->stream, in->key);
    else snprintf(buf, n, "%s_%" PRId64, kt_strtab_get(t->strs, in->pg), in->key);
}

static const char *str_or_empty(const kt_trace *t, uint32_t id)
{
    return id == KT_NONE ? "" : kt_strtab_get(t->strs, id);
}

static void add_cols(kt_table *tb, const char *const *names, const kt_col_type *types, size_t n)
{
    for (size_t i = 0; i < n; i++) kt_table_add_col(tb, names[i], types[i], types[i] == KT_COL_FLOAT ? 3 : 0);
}

/* rank_<r>_<what> for every loaded rank; returns the first column. */
static size_t add_rank_cols(kt_table *tb, const kt_comm_world *w, const char *const *what, size_t nwhat)
{
    size_t first = kt_table_ncols(tb);
    for (size_t i = 0; i < w->nranks; i++)
        for (size_t k = 0; k < nwhat; k++) {
            char name[64];
            snprintf(name, sizeof name, "rank_%d_%s", w->ranks[i].rank, what[k]);
            kt_table_add_col(tb, name, KT_COL_FLOAT, 3);
        }
    return first;
}

#define S KT_COL_STR
#define I KT_COL_INT
#define F KT_COL_FLOAT
static bool make_tables(coll_run *run)
{
    static const char *const sync_cols[] = {
        "collective_id", "match", "Collective name", "dtype", "In msg nelems", "Out msg nelems",
        "Process Group Name", "Process Group Description", "Group size", "ranks", "Full msg size (MB)",
        "comm_latency", "skew in start time", "skew in end time", "avg_wait_time", "earliest arrival rank",
        "latest arrival rank", "algo bw (GB/s)", "bus bw (GB/s)" };
    static const kt_col_type sync_types[] = { S, S, S, S, I, I, S, S, I, I, F, F, F, F, F, I, I, F, F };
    static const char *const a2a_cols[] = {
        "collective_id", "match", "dtype", "Process Group Name", "Group size", "total bytes", "wall_time",
        "throughput (GB/s)", "size_imbalance", "max_rank_dur/min_rank_dur", "skew in start time",
        "skew in end time" };
    static const kt_col_type a2a_types[] = { S, S, S, S, I, I, F, F, F, F, F, F };
    static const char *const other_cols[] = {
        "collective_id", "match", "Collective name", "dtype", "In msg nelems", "Process Group Name",
        "Group size", "ranks", "comm_latency", "skew in start time", "algo bw (GB/s)" };
    static const kt_col_type other_types[] = { S, S, S, S, I, S, I, I, F, F, F };
    static const char *const un_cols[] = { "collective_id", "match", "Collective name", "Process Group Name",
                                           "key", "status", "ranks present", "ranks expected", "detail" };
    static const kt_col_type un_types[] = { S, S, S, S, I, S, I, I, S };
    static const char *const sync_rank[] = { "ts", "dur", "wait_time" }, *const a2a_rank[] = { "bytes", "dur" };
    run->sync = kt_table_new("implicit_sync");
    run->a2a = kt_table_new("all2allv");
    run->other = kt_table_new("other");
    run->unmatched = kt_table_new("unmatched");
    if (!run->sync || !run->a2a || !run->other || !run->unmatched) return false;
    add_cols(run->sync, sync_cols, sync_types, sizeof sync_types / sizeof *sync_types);
    if (run->o.gpus_per_node > 0) {
        kt_table_add_col(run->sync, "node_span", KT_COL_INT, 0);
        kt_table_add_col(run->sync, "intra_node", KT_COL_INT, 0);
    }
    run->sync_rank_col = add_rank_cols(run->sync, run->w, sync_rank, 3);
    add_cols(run->a2a, a2a_cols, a2a_types, sizeof a2a_types / sizeof *a2a_types);
    run->a2a_rank_col = add_rank_cols(run->a2a, run->w, a2a_rank, 2);
    add_cols(run->other, other_cols, other_types, sizeof other_types / sizeof *other_types);
    add_cols(run->unmatched, un_cols, un_types, sizeof un_types / sizeof *un_types);
    return true;
}
#undef S
#undef I
#undef F

static void set_head(coll_run *run, kt_table *tb, const kt_coll_inst *in)
{
    char id[160];
    kt_collective_id(run->t, in, id, sizeof id);
    kt_table_add_row(tb);
    kt_table_set_str(tb, 0, id);
    kt_table_set_str(tb, 1, kt_match_mode_name((kt_match_mode)in->mode));
}

static int member_rank(const kt_comm_world *w, const kt_coll_inst *in, uint32_t k)
{
    return w->ranks[w->match.members[in->first + k].rank_i].rank;
}

/* Nodes (rank / gpus_per_node) of the process group: its "Process Group
 * Ranks" when the trace lists them (ranks not loaded count too), else the
 * members'.  At most 4096 distinct nodes are told apart.                   */
static int node_span(const kt_trace *t, const kt_comm_world *w, const kt_coll_inst *in, int gpn)
{
    enum { MAX_NODES = 4096 };
    int64_t nodes[MAX_NODES];
    int span = 0;
    const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
    const char *list = c0->pg_ranks == KT_NONE ? "" : kt_strtab_get(t->strs, c0->pg_ranks);
    const char *p = *list == '[' ? list + 1 : "";
    for (uint32_t k = 0; span < MAX_NODES;) {
        int64_t rank;
        if (*p && *p != ']') {
            char *end;
            rank = strtoll(p, &end, 10);
            if (end == p) break;
            for (p = end; *p == ',' || *p == ' ';) p++;
        } else if (list[0] != '[' && k < in->n) {
            rank = member_rank(w, in, k++);
        } else {
            break;
        }
        int64_t node = rank / gpn;
        bool seen = false;
        for (int j = 0; j < span && !seen; j++) seen = nodes[j] == node;
        if (!seen) nodes[span++] = node;
    }
    return span;
}

static void add_sync_row(coll_run *run, const kt_coll_inst *in)
{
    const kt_comm_world *w = run->w;
    const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
    kt_inst_metrics m = kt_instance_metrics(run->t, w, in);
    kt_table *tb = run->sync;
    set_head(run, tb, in);
    kt_table_set_str(tb, 2, c0->coll_name != KT_NONE ? kt_strtab_get(run->t->strs, c0->coll_name)
                                                     : kt_coll_kind_name((kt_coll_kind)c0->kind));
    kt_table_set_str(tb, 3, str_or_empty(run->t, c0->dtype));
    if (c0->in_nelems >= 0) kt_table_set_int(tb, 4, c0->in_nelems);
    if (c0->out_nelems >= 0) kt_table_set_int(tb, 5, c0->out_nelems);
    kt_table_set_str(tb, 6, str_or_empty(run->t, c0->pg));
    kt_table_set_str(tb, 7, str_or_empty(run->t, c0->pg_desc));
    kt_table_set_int(tb, 8, m.group);
    kt_table_set_int(tb, 9, in->n);
    kt_table_set_float(tb, 10, m.msg_mb);
    kt_table_set_float(tb, 11, m.latency_us);
    kt_table_set_float(tb, 12, m.skew_start_us);
    kt_table_set_float(tb, 13, m.skew_end_us);
    kt_table_set_float(tb, 14, m.avg_wait_us);
    kt_table_set_int(tb, 15, member_rank(w, in, m.tm.earliest));
    kt_table_set_int(tb, 16, member_rank(w, in, m.tm.latest));
    kt_table_set_float(tb, 17, m.algo_bw);
    kt_table_set_float(tb, 18, m.bus_bw);
    if (run->o.gpus_per_node > 0) {
        int span = node_span(run->t, w, in, run->o.gpus_per_node);
        kt_table_set_int(tb, 19, span);
        kt_table_set_int(tb, 20, span == 1);
    }
    for (uint32_t k = 0; k < in->n; k++) {
        const kt_coll_member *x = &w->match.members[in->first + k];
        int64_t ts = kt_world_ts(w, x);
        size_t col = run->sync_rank_col + 3 * x->rank_i;
        kt_table_set_float(tb, col, (ts - w->origin) / 1e3);
        kt_table_set_float(tb, col + 1, kt_member_rec(&w->match, x)->dur / 1e3);
        kt_table_set_float(tb, col + 2, (m.tm.start_max - ts) / 1e3);
    }
}

/* Bytes a rank sends in an all-to-all-v: the sum of its "In split size"
 * list times the dtype size, else In msg nelems times it.                  */
static int64_t a2a_bytes(const kt_trace *t, const kt_comm_rec *c)
{
    int b = c->dtype == KT_NONE ? 0 : kt_scalar_type_bytes(kt_strtab_get(t->strs, c->dtype));
    if (b == 0) return -1;
    const char *s = c->in_split == KT_NONE ? "" : kt_strtab_get(t->strs, c->in_split);
    int64_t sum = 0;
    bool any = false;
    for (const char *p = *s == '[' ? s + 1 : ""; *p && *p != ']';) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        sum += v;
        any = true;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    if (!any) sum = c->in_nelems;
    return sum < 0 ? -1 : sum * b;
}

static void add_a2a_row(coll_run *run, const kt_coll_inst *in)
{
    const kt_comm_world *w = run->w;
    const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
    kt_inst_metrics m = kt_instance_metrics(run->t, w, in);
    kt_table *tb = run->a2a;
    set_head(run, tb, in);
    kt_table_set_str(tb, 2, str_or_empty(run->t, c0->dtype));
    kt_table_set_str(tb, 3, str_or_empty(run->t, c0->pg));
    kt_table_set_int(tb, 4, m.group);
    int64_t total = 0, maxb = 0, mind = INT64_MAX, maxd = 0;
    bool sizes = true;
    for (uint32_t k = 0; k < in->n; k++) {
        const kt_coll_member *x = &w->match.members[in->first + k];
        const kt_comm_rec *c = kt_member_rec(&w->match, x);
        int64_t b = a2a_bytes(run->t, c);
        sizes &= b >= 0;
        total += b;
        maxb = b > maxb ? b : maxb;
        mind = c->dur < mind ? c->dur : mind;
        maxd = c->dur > maxd ? c->dur : maxd;
        size_t col = run->a2a_rank_col + 2 * x->rank_i;
        if (b >= 0) kt_table_set_float(tb, col, (double)b);
        kt_table_set_float(tb, col + 1, c->dur / 1e3);
    }
    double wall = (m.tm.end_max - m.tm.start_min) / 1e3;
    if (sizes) kt_table_set_int(tb, 5, total);
    kt_table_set_float(tb, 6, wall);
    kt_table_set_float(tb, 7, sizes && wall > 0 ? total / 1e9 / (wall / 1e6) : NAN);
    kt_table_set_float(tb, 8, sizes && total > 0 ? maxb / ((double)total / in->n) : NAN);
    kt_table_set_float(tb, 9, mind > 0 ? (double)maxd / mind : NAN);
    kt_table_set_float(tb, 10, m.skew_start_us);
    kt_table_set_float(tb, 11, m.skew_end_us);
}

static void add_other_row(coll_run *run, const kt_coll_inst *in)
{
    const kt_comm_world *w = run->w;
    const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
    kt_inst_metrics m = kt_instance_metrics(run->t, w, in);
    kt_table *tb = run->other;
    set_head(run, tb, in);
    kt_table_set_str(tb, 2, c0->coll_name != KT_NONE ? kt_strtab_get(run->t->strs, c0->coll_name)
                                                     : kt_coll_kind_name((kt_coll_kind)c0->kind));
    kt_table_set_str(tb, 3, str_or_empty(run->t, c0->dtype));
    if (c0->in_nelems >= 0) kt_table_set_int(tb, 4, c0->in_nelems);
    kt_table_set_str(tb, 5, str_or_empty(run->t, c0->pg));
    kt_table_set_int(tb, 6, m.group);
    kt_table_set_int(tb, 7, in->n);
    kt_table_set_float(tb, 8, m.latency_us);
    kt_table_set_float(tb, 9, m.skew_start_us);
    kt_table_set_float(tb, 10, m.algo_bw);
}

/* "ranks 0,3 of 4; rank 1 at 12.5 us, ..." kept short: which ranks are there. */
static void unmatched_detail(const coll_run *run, const kt_coll_inst *in, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "present on rank");
    for (uint32_t i = 0; i < in->n && k + 16 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? "," : " ", member_rank(run->w, in, i));
    if (in->status == KT_INST_MISSING && k + 64 < n)
        snprintf(buf + k, n - k, "; the other ranks' traces start or end before it, or they diverged");
}

static void add_unmatched_row(coll_run *run, const kt_coll_inst *in)
{
    const kt_comm_rec *c0 = kt_member_rec(&run->w->match, &run->w->match.members[in->first]);
    kt_table *tb = run->unmatched;
    char detail[512];
    set_head(run, tb, in);
    kt_table_set_str(tb, 2, c0->coll_name != KT_NONE ? kt_strtab_get(run->t->strs, c0->coll_name)
                                                     : kt_coll_kind_name((kt_coll_kind)c0->kind));
    kt_table_set_str(tb, 3, str_or_empty(run->t, c0->pg));
    kt_table_set_int(tb, 4, in->key);
    kt_table_set_str(tb, 5, kt_inst_status_name((kt_inst_status)in->status));
    kt_table_set_int(tb, 6, in->n);
    kt_table_set_int(tb, 7, in->expected);
    unmatched_detail(run, in, detail, sizeof detail);
    kt_table_set_str(tb, 8, detail);
}

static void add_instance(coll_run *run, const kt_coll_inst *in)
{
    if (in->status != KT_INST_COMPLETE) {
        add_unmatched_row(run, in);
        return;
    }
    kt_coll_kind k = (kt_coll_kind)kt_member_rec(&run->w->match, &run->w->match.members[in->first])->kind;
    if (kt_coll_implicit_sync(k)) add_sync_row(run, in);
    else if (k == KT_COLL_ALLTOALLV) add_a2a_row(run, in);
    else add_other_row(run, in);
}

kt_status kt_collectives(const kt_trace *t, const kt_rank_sel *sel, const kt_collectives_options *opt,
                         kt_tables **out)
{
    coll_run run = { .t = t, .o = kt_collectives_defaults() };
    if (!kt_options_take(&run.o, sizeof run.o, opt)) return KT_EUSAGE;
    if (run.o.tracelens) run.o.align = KT_ALIGN_NONE;
    if (t->hta_compat && run.o.align == KT_ALIGN_COLLECTIVES) run.o.align = KT_ALIGN_HTA;
    kt_comm_world w;
    kt_status s = kt_comm_world_build(t, sel, run.o.align, run.o.tracelens, &w);
    if (s != KT_OK) return s;
    run.w = &w;
    kt_table *tb[11] = { 0 };
    if (make_tables(&run)) {
        for (size_t i = 0; i < w.match.ninst; i++) add_instance(&run, &w.match.inst[i]);
        if (!w.match.ninst)
            kt_table_add_note(run.sync, "no collectives: the trace holds no communication kernel (NCCL/RCCL) or call");
        tb[1] = kt_coll_summary_table(t, &w);
        tb[4] = kt_coll_stragglers_table(&w, run.o.gpus_per_node);
        tb[6] = kt_coll_offsets_table(&w);
        tb[7] = kt_coll_ranks_table(&w);
        tb[8] = kt_coll_heatmap_table(t, &w);
        tb[9] = kt_coll_kernels_table(t, &w);
        tb[10] = kt_coll_a2a_summary_table(run.a2a);
    }
    tb[0] = run.sync;
    tb[2] = run.a2a;
    tb[3] = run.other;
    tb[5] = run.unmatched;
    kt_comm_world_free(&w);
    /* the heatmap after all2allv, as TraceLens's sheets */
    kt_table *ordered[11] = { tb[0], tb[1], tb[2], tb[10], tb[8], tb[3], tb[4], tb[5], tb[6], tb[7], tb[9] };
    return kt_tables_from(ordered, 11, out);
}
