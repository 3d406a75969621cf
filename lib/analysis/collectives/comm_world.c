/*
 * comm_world.c — map every selected rank, reduce, estimate clock offsets
 * (comm_world.h).  Kept apart from the commands so that collectives and
 * stragglers read the same matched, aligned collectives.
 */
#include "analysis/collectives/comm_world.h"

#include <stdlib.h>

kt_status kt_comm_world_build(const kt_trace *t, const kt_rank_sel *sel, kt_align_mode align, bool position_only,
                              kt_comm_world *w)
{
    *w = (kt_comm_world){ .origin = t->min_ts };
    w->ranks = calloc(t->nranks ? t->nranks : 1, sizeof *w->ranks);
    if (!w->ranks) return KT_ENOMEM;
    kt_status s = KT_OK;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) {
            s = kt_comm_map(t, t->ranks[i], &w->ranks[w->nranks]);
            if (s == KT_OK) w->nranks++;
        }
    if (s == KT_OK) s = kt_comm_match_build(t, w->ranks, w->nranks, position_only, &w->match);
    if (s == KT_OK) {
        w->off = calloc(w->nranks ? w->nranks : 1, sizeof *w->off);
        s = w->off ? kt_clock_offsets(&w->match, w->off) : KT_ENOMEM;
    }
    w->aligned = align == KT_ALIGN_COLLECTIVES;
    if (s != KT_OK) kt_comm_world_free(w);
    return s;
}

void kt_comm_world_free(kt_comm_world *w)
{
    kt_comm_match_free(&w->match);
    for (size_t i = 0; w->ranks && i < w->nranks; i++) kt_comm_recs_free(&w->ranks[i]);
    free(w->ranks);
    free(w->off);
    *w = (kt_comm_world){ 0 };
}

kt_inst_times kt_instance_times(const kt_comm_world *w, const kt_coll_inst *in)
{
    kt_inst_times r = { INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX, 0, 0 };
    for (uint32_t k = 0; k < in->n; k++) {
        const kt_coll_member *x = &w->match.members[in->first + k];
        int64_t ts = kt_world_ts(w, x), dur = kt_member_rec(&w->match, x)->dur, end = ts + dur;
        if (ts < r.start_min) r.start_min = ts, r.earliest = k;
        if (ts > r.start_max) r.start_max = ts, r.latest = k;
        r.end_min = end < r.end_min ? end : r.end_min;
        r.end_max = end > r.end_max ? end : r.end_max;
        r.latency = dur < r.latency ? dur : r.latency;
    }
    return r;
}
