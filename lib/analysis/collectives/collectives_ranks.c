/*
 * collectives_ranks.c — the per-rank tables of `kineta collectives`:
 * "stragglers" (TraceLens straggler_summary), "clock_offsets" and "ranks"
 * (where each rank's metadata came from).
 */
#include "analysis/collectives/collectives_tables.h"
#include "analysis/common/stats.h"

#include <stdlib.h>

kt_rank_arrivals *kt_rank_arrivals_of(const kt_comm_world *w)
{
    kt_rank_arrivals *a = calloc(w->nranks ? w->nranks : 1, sizeof *a);
    if (!a) return NULL;
    for (size_t r = 0; r < w->nranks; r++) a[r].rank = w->ranks[r].rank;
    for (size_t i = 0; i < w->match.ninst; i++) {
        const kt_coll_inst *in = &w->match.inst[i];
        const kt_coll_member *x = &w->match.members[in->first];
        if (in->status != KT_INST_COMPLETE || !kt_coll_implicit_sync((kt_coll_kind)kt_member_rec(&w->match, x)->kind))
            continue;
        kt_inst_times tm = kt_instance_times(w, in);
        for (uint32_t k = 0; k < in->n; k++) {
            kt_rank_arrivals *ra = &a[x[k].rank_i];
            ra->total_wait_us += (tm.start_max - kt_world_ts(w, &x[k])) / 1e3;
            ra->nccl_us += kt_member_rec(&w->match, &x[k])->dur / 1e3;
            ra->collectives++;
        }
        a[x[tm.latest].rank_i].last++;
        a[x[tm.earliest].rank_i].first++;
    }
    return a;
}

static int by_wait(const void *p, const void *q)
{
    const kt_rank_arrivals *x = p, *y = q;
    if (x->total_wait_us != y->total_wait_us) return x->total_wait_us < y->total_wait_us ? -1 : 1;
    return x->rank - y->rank;
}

kt_table *kt_coll_stragglers_table(const kt_comm_world *w, int gpus_per_node)
{
    static const char *const cols[] = { "rank", "total_wait_time_us", "mean_wait_time_us", "times_arrived_last",
                                        "times_arrived_first", "pct_arrived_last", "num_collectives",
                                        "total_nccl_dur_us" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_INT,
                                         KT_COL_INT, KT_COL_FLOAT, KT_COL_INT, KT_COL_FLOAT };
    kt_table *tb = kt_table_new("stragglers");
    kt_rank_arrivals *a = kt_rank_arrivals_of(w);
    if (!tb || !a) {
        free(a);
        kt_table_free(tb);
        return NULL;
    }
    for (size_t i = 0; i < 8; i++) kt_table_add_col(tb, cols[i], types[i], 3);
    if (gpus_per_node > 0) kt_table_add_col(tb, "node_id", KT_COL_INT, 0);
    qsort(a, w->nranks, sizeof *a, by_wait);
    for (size_t r = 0; r < w->nranks; r++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, a[r].rank);
        kt_table_set_float(tb, 1, a[r].total_wait_us);
        kt_table_set_float(tb, 2, a[r].collectives ? a[r].total_wait_us / a[r].collectives : 0.0 / 0.0);
        kt_table_set_int(tb, 3, a[r].last);
        kt_table_set_int(tb, 4, a[r].first);
        kt_table_set_float(tb, 5, kt_pct(a[r].last, a[r].collectives));
        kt_table_set_int(tb, 6, a[r].collectives);
        kt_table_set_float(tb, 7, a[r].nccl_us);
        if (gpus_per_node > 0) kt_table_set_int(tb, 8, a[r].rank / gpus_per_node);
    }
    free(a);
    return tb;
}

kt_table *kt_coll_offsets_table(const kt_comm_world *w)
{
    kt_table *tb = kt_table_new("clock_offsets");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "offset_us", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "spread_us", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "collectives", KT_COL_INT, 0);
    kt_table_add_col(tb, "via", KT_COL_INT, 0);
    kt_table_add_col(tb, "applied", KT_COL_INT, 0);
    for (size_t r = 0; r < w->nranks; r++) {
        const kt_clock_offset *o = &w->off[r];
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, w->ranks[r].rank);
        kt_table_set_float(tb, 1, o->offset / 1e3);
        kt_table_set_float(tb, 2, o->spread / 1e3);
        kt_table_set_int(tb, 3, o->used);
        if (o->via >= 0) kt_table_set_int(tb, 4, o->via);
        kt_table_set_int(tb, 5, w->aligned);
    }
    return tb;
}

kt_table *kt_coll_ranks_table(const kt_comm_world *w)
{
    static const char *const cols[] = { "rank", "comm_kernels", "metadata_from_kernel", "metadata_from_cpu_op",
                                        "name_only", "with_seq" };
    kt_table *tb = kt_table_new("ranks");
    if (!tb) return NULL;
    for (size_t i = 0; i < 6; i++) kt_table_add_col(tb, cols[i], KT_COL_INT, 0);
    for (size_t r = 0; r < w->nranks; r++) {
        const kt_comm_recs *c = &w->ranks[r];
        size_t seq = 0;
        for (size_t k = 0; k < c->n; k++) seq += c->r[k].seq >= 0;
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, c->rank);
        kt_table_set_int(tb, 1, (int64_t)c->n);
        kt_table_set_int(tb, 2, (int64_t)(c->n - c->from_cpu_op - c->name_only));
        kt_table_set_int(tb, 3, (int64_t)c->from_cpu_op);
        kt_table_set_int(tb, 4, (int64_t)c->name_only);
        kt_table_set_int(tb, 5, (int64_t)seq);
    }
    return tb;
}
