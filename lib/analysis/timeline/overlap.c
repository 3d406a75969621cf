/*
 * overlap.c — kt_overlap: how much of the communication time computation
 * hides (HTA A4.4): |∪comm ∩ ∪comp| / |∪comm| per rank (and step).
 */
#include "analysis/common/gpu_busy.h"
#include "analysis/common/kernel_type.h"
#include "analysis/common/stats.h"
#include "analysis/common/type_differences.h"
#include "analysis/timeline/temporal_overlap.h"
#include "table/table.h"

void kt_overlap_add_rows(kt_table *tb, bool by_step, bool compat, int rank, const kt_busy *b)
{
    const size_t comm = 1 + KT_TYPE_COMMUNICATION, comp = 1 + KT_TYPE_COMPUTATION;
    for (size_t i = 0; i < b->ng; i++) {
        const kt_busy_group *g = &b->g[i];
        int64_t both = kt_intervals_overlap(g->iv[comm], g->n[comm], g->iv[comp], g->n[comp]);
        double pct = kt_pct((double)both, (double)kt_intervals_length(g->iv[comm], g->n[comm]));
        size_t col = 0;
        kt_table_add_row(tb);
        kt_table_set_int(tb, col++, rank);
        if (by_step) kt_table_set_int(tb, col++, g->step);
        kt_table_set_float(tb, col, compat ? kt_np_round(pct, 2) : pct);
    }
}

kt_table *kt_overlap_table_new(bool by_step)
{
    kt_table *tb = kt_table_new("comm_comp_overlap");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    if (by_step) kt_table_add_col(tb, "step", KT_COL_INT, 0);
    kt_table_add_col(tb, "comp_comm_overlap_pctg", KT_COL_FLOAT, 2);
    return tb;
}

typedef struct overlap_ctx {
    kt_table *tb;
    bool by_step, compat;
} overlap_ctx;

static kt_status overlap_rows(void *ctx, const kt_rank *r, const kt_busy *b)
{
    overlap_ctx *c = ctx;
    kt_overlap_add_rows(c->tb, c->by_step, c->compat, r->rank, b);
    return KT_OK;
}

void kt_overlap_options_init(kt_overlap_options *o, size_t size)
{
    const kt_overlap_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_overlap(const kt_trace *t, const kt_rank_sel *sel, const kt_overlap_options *opt,
                     kt_tables **out)
{
    kt_overlap_options o = kt_overlap_defaults();
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    bool by_step = o.by_step;
    overlap_ctx c = { kt_overlap_table_new(by_step), by_step, t->hta_compat };
    kt_type_cache *types = kt_type_cache_new(t->strs, t->hta_compat);
    kt_status s = c.tb && types ? KT_OK : KT_ENOMEM;
    if (s == KT_OK) {
        kt_busy_query q = { .hta_events = t->hta_compat, .by_step = c.by_step,
                            .classify = kt_busy_kernel_type, .ctx = types, .classes_only = true };
        s = kt_busy_each_rank(t, sel, &q, overlap_rows, &c);
    }
    kt_type_cache_free(types);
    if (s == KT_OK) s = kt_note_comm_differences(c.tb, t, sel, KT_REF_HTA, t->hta_compat);
    *out = NULL;
    if (s != KT_OK) {
        kt_table_free(c.tb);
        return s;
    }
    return kt_tables_from(&c.tb, 1, out);
}
