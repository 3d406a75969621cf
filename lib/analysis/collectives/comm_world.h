/*
 * comm_world.h — what both cross-rank commands (collectives, stragglers)
 * start from: the map run on every selected rank, the reduce that matches
 * the records, the estimated clock offsets, and per-instance timings on the
 * aligned clock.
 */
#ifndef KT_COMM_WORLD_H
#define KT_COMM_WORLD_H

#include "analysis/collectives/clock_offsets.h"

typedef struct kt_comm_world {
    kt_comm_recs *ranks;     /* selected ranks with their records, rank order */
    size_t nranks;
    kt_comm_match match;
    kt_clock_offset *off;    /* estimated, per ranks[] entry                 */
    bool aligned;            /* offsets subtracted from every time below     */
    int64_t origin;          /* ns subtracted for µs output (t->min_ts)     */
} kt_comm_world;

/* position_only: match as TraceLens does (never by Seq). */
kt_status kt_comm_world_build(const kt_trace *t, const kt_rank_sel *sel, kt_align_mode align, bool position_only,
                              kt_comm_world *w);
void kt_comm_world_free(kt_comm_world *w);

/* A member's start on the (aligned) common clock, ns. */
static inline int64_t kt_world_ts(const kt_comm_world *w, const kt_coll_member *x)
{
    return kt_member_rec(&w->match, x)->ts - (w->aligned ? w->off[x->rank_i].offset : 0);
}

/* Timings of one instance on the common clock (ns). */
typedef struct kt_inst_times {
    int64_t start_min, start_max, end_min, end_max, latency; /* latency = min dur */
    uint32_t earliest, latest;  /* member index (first on ties) of min / max start */
} kt_inst_times;
kt_inst_times kt_instance_times(const kt_comm_world *w, const kt_coll_inst *in);

#endif
