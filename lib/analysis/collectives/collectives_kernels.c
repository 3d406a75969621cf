/*
 * collectives_kernels.c — the "kernels" table of `kineta collectives`: every
 * communication kernel of every rank with its metadata and the instance it
 * was matched into (TraceLens's long format, nccl_long), so that a kernel
 * missing from the matched tables can be found and seen.
 */
#include "analysis/collectives/collectives_tables.h"

#include <stdlib.h>

static const char *const meta_names[] = { "kernel", "cpu_op", "name" };

/* For each rank, the instance of each of its records. */
static uint32_t **instance_of(const kt_comm_world *w)
{
    uint32_t **io = calloc(w->nranks ? w->nranks : 1, sizeof *io);
    bool ok = io != NULL;
    for (size_t r = 0; ok && r < w->nranks; r++) ok = (io[r] = malloc((w->ranks[r].n ? w->ranks[r].n : 1) * sizeof **io));
    for (size_t i = 0; ok && i < w->match.ninst; i++)
        for (uint32_t k = 0; k < w->match.inst[i].n; k++) {
            const kt_coll_member *x = &w->match.members[w->match.inst[i].first + k];
            io[x->rank_i][x->rec] = (uint32_t)i;
        }
    if (!ok)
        for (size_t r = 0; io && r < w->nranks; r++) free(io[r]);
    if (!ok) free(io);
    return ok ? io : NULL;
}

static kt_table *new_table(void)
{
    static const char *const cols[] = { "rank", "collective_id", "match", "status", "Collective name", "kind",
                                        "dtype", "In msg nelems", "Out msg nelems", "Group size",
                                        "Process Group Name", "Seq", "stream", "ts", "dur", "metadata", "name" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_STR, KT_COL_STR, KT_COL_STR,
                                         KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_STR, KT_COL_INT,
                                         KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_STR, KT_COL_STR };
    kt_table *tb = kt_table_new("kernels");
    for (size_t i = 0; tb && i < sizeof types / sizeof *types; i++) kt_table_add_col(tb, cols[i], types[i], 3);
    return tb;
}

static void add_row(kt_table *tb, const kt_trace *t, const kt_comm_world *w, size_t r, size_t k, const kt_coll_inst *in)
{
    const kt_comm_rec *c = &w->ranks[r].r[k];
    char id[160];
    kt_collective_id(t, in, id, sizeof id);
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, w->ranks[r].rank);
    kt_table_set_str(tb, 1, id);
    kt_table_set_str(tb, 2, kt_match_mode_name((kt_match_mode)in->mode));
    kt_table_set_str(tb, 3, kt_inst_status_name((kt_inst_status)in->status));
    if (c->coll_name != KT_NONE) kt_table_set_str(tb, 4, kt_strtab_get(t->strs, c->coll_name));
    kt_table_set_str(tb, 5, kt_coll_kind_name((kt_coll_kind)c->kind));
    if (c->dtype != KT_NONE) kt_table_set_str(tb, 6, kt_strtab_get(t->strs, c->dtype));
    if (c->in_nelems >= 0) kt_table_set_int(tb, 7, c->in_nelems);
    if (c->out_nelems >= 0) kt_table_set_int(tb, 8, c->out_nelems);
    if (c->group_size >= 0) kt_table_set_int(tb, 9, c->group_size);
    if (c->pg != KT_NONE) kt_table_set_str(tb, 10, kt_strtab_get(t->strs, c->pg));
    if (c->seq >= 0) kt_table_set_int(tb, 11, c->seq);
    kt_table_set_int(tb, 12, c->stream);
    kt_table_set_float(tb, 13, (c->ts - (w->aligned ? w->off[r].offset : 0) - w->origin) / 1e3);
    kt_table_set_float(tb, 14, c->dur / 1e3);
    kt_table_set_str(tb, 15, meta_names[c->meta]);
    uint32_t name = w->ranks[r].src->ev.name[c->ev];
    if (name != KT_NONE) kt_table_set_str(tb, 16, kt_strtab_get(t->strs, name));
}

kt_table *kt_coll_kernels_table(const kt_trace *t, const kt_comm_world *w)
{
    kt_table *tb = new_table();
    uint32_t **io = tb ? instance_of(w) : NULL;
    if (!io) {
        kt_table_free(tb);
        return NULL;
    }
    for (size_t r = 0; r < w->nranks; r++) {
        for (size_t k = 0; k < w->ranks[r].n; k++) add_row(tb, t, w, r, k, &w->match.inst[io[r][k]]);
        free(io[r]);
    }
    free(io);
    return tb;
}
