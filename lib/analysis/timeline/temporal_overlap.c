/*
 * temporal_overlap.c — kt_temporal and kt_overlap (HTA A4.1, A4.4), whole
 * and by step, from one build of the busy unions per rank (see
 * temporal_overlap.h).
 *
 * The temporal breakdown's query is a superset of the overlap's: the same
 * events, groups and kernel-type classes, plus the union of every event
 * (class 0) that the overlap leaves out.  Built by step, its unions serve
 * the by-step tables, and folded together (the union of the steps' unions
 * is the union of all events) the whole-rank ones.
 */
#include "analysis/timeline/temporal_overlap.h"
#include "analysis/common/kernel_type.h"
#include "table/table.h"

typedef struct pair_ctx {
    kt_table *tb[KT_PAIR_TABLES];
    bool compat;
} pair_ctx;

static kt_status pair_rows(void *ctx, const kt_rank *r, const kt_busy *by_step)
{
    static const kt_temporal_options whole = { 0 }, steps = { .by_step = 1 };
    pair_ctx *c = ctx;
    kt_busy all;
    kt_status s = kt_busy_fold_groups(by_step, &all);
    if (s != KT_OK) return s;
    kt_temporal_add_rows(c->tb[KT_PAIR_TEMPORAL], &whole, c->compat, r->rank, &all);
    kt_overlap_add_rows(c->tb[KT_PAIR_OVERLAP], false, c->compat, r->rank, &all);
    kt_temporal_add_rows(c->tb[KT_PAIR_TEMPORAL_BY_STEP], &steps, c->compat, r->rank, by_step);
    kt_overlap_add_rows(c->tb[KT_PAIR_OVERLAP_BY_STEP], true, c->compat, r->rank, by_step);
    kt_busy_free(&all);
    return KT_OK;
}

static bool new_tables(kt_table *tb[KT_PAIR_TABLES])
{
    static const kt_temporal_options whole = { 0 }, steps = { .by_step = 1 };
    tb[KT_PAIR_TEMPORAL] = kt_temporal_table_new(&whole);
    tb[KT_PAIR_OVERLAP] = kt_overlap_table_new(false);
    tb[KT_PAIR_TEMPORAL_BY_STEP] = kt_temporal_table_new(&steps);
    tb[KT_PAIR_OVERLAP_BY_STEP] = kt_overlap_table_new(true);
    for (int i = 0; i < KT_PAIR_TABLES; i++)
        if (!tb[i]) return false;
    return true;
}

/* Each table in a list of its own, or all freed. */
static kt_status hand_out(kt_table *tb[KT_PAIR_TABLES], kt_tables *out[KT_PAIR_TABLES])
{
    kt_status s = KT_OK;
    for (int i = 0; i < KT_PAIR_TABLES; i++)
        if (s == KT_OK) s = kt_tables_from(&tb[i], 1, &out[i]);
        else kt_table_free(tb[i]);
    for (int i = 0; s != KT_OK && i < KT_PAIR_TABLES; i++) {
        kt_tables_free(out[i]);
        out[i] = NULL;
    }
    return s;
}

kt_status kt_temporal_overlap(const kt_trace *t, const kt_rank_sel *sel, kt_tables *out[KT_PAIR_TABLES])
{
    pair_ctx c = { .compat = t->hta_compat };
    for (int i = 0; i < KT_PAIR_TABLES; i++) out[i] = NULL;
    kt_type_cache *types = kt_type_cache_new(t->strs, t->hta_compat);
    kt_status s = new_tables(c.tb) && types ? KT_OK : KT_ENOMEM;
    if (s == KT_OK) {
        kt_busy_query q = { .hta_events = t->hta_compat, .by_step = true, .classify = kt_busy_kernel_type,
                            .ctx = types };
        s = kt_busy_each_rank(t, sel, &q, pair_rows, &c);
    }
    kt_type_cache_free(types);
    if (s == KT_OK) return hand_out(c.tb, out);
    for (int i = 0; i < KT_PAIR_TABLES; i++) kt_table_free(c.tb[i]);
    return s;
}
