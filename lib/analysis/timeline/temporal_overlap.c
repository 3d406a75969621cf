/*
 * temporal_overlap.c — kt_temporal and kt_overlap (HTA A4.1, A4.4) from
 * one build of the busy unions per rank (see temporal_overlap.h).
 *
 * The temporal breakdown's query is a superset of the overlap's: the same
 * events, groups and kernel-type classes, plus the union of every event
 * (class 0) that the overlap leaves out.  Its unions serve both tables.
 */
#include "analysis/timeline/temporal_overlap.h"
#include "analysis/common/kernel_type.h"
#include "output/table.h"

typedef struct pair_ctx {
    kt_table *temporal, *overlap;
    kt_temporal_options o;
    bool compat;
} pair_ctx;

static kt_status pair_rows(void *ctx, const kt_rank *r, const kt_busy *b)
{
    pair_ctx *c = ctx;
    kt_temporal_add_rows(c->temporal, &c->o, c->compat, r->rank, b);
    kt_overlap_add_rows(c->overlap, c->o.by_step, c->compat, r->rank, b);
    return KT_OK;
}

kt_status kt_temporal_overlap(const kt_trace *t, const kt_rank_sel *sel, bool by_step, kt_tables **temporal,
                              kt_tables **overlap)
{
    pair_ctx c = { .o = { .by_step = by_step }, .compat = t->hta_compat };
    c.temporal = kt_temporal_table_new(&c.o);
    c.overlap = kt_overlap_table_new(by_step);
    kt_type_cache *types = kt_type_cache_new(t->strs, t->hta_compat);
    kt_status s = c.temporal && c.overlap && types ? KT_OK : KT_ENOMEM;
    if (s == KT_OK) {
        kt_busy_query q = { .hta_events = t->hta_compat, .by_step = by_step, .classify = kt_busy_kernel_type,
                            .ctx = types };
        s = kt_busy_each_rank(t, sel, &q, pair_rows, &c);
    }
    kt_type_cache_free(types);
    *temporal = *overlap = NULL;
    if (s != KT_OK) {
        kt_table_free(c.temporal);
        kt_table_free(c.overlap);
        return s;
    }
    s = kt_tables_from(&c.temporal, 1, temporal);
    if (s != KT_OK) {
        kt_table_free(c.overlap);
        return s;
    }
    s = kt_tables_from(&c.overlap, 1, overlap);
    if (s != KT_OK) {
        kt_tables_free(*temporal);
        *temporal = NULL;
    }
    return s;
}
