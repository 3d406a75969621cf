/*
 * comm_match.h — the *reduce* of the cross-rank analyses: records of every
 * rank (comm_record.h) matched into collective instances.
 *
 * The key is (process group, NCCL sequence number) where every record of the
 * group has a "Seq"; else (process group, position within the group on each
 * rank) — TraceLens's rule; records without a process group are matched by
 * position on their stream (single-PG traces without metadata).  Instances
 * that miss a rank, hold a rank twice or whose ranks disagree on the
 * metadata are kept with a status, never dropped.
 */
#ifndef KT_COMM_MATCH_H
#define KT_COMM_MATCH_H

#include "analysis/collectives/comm_record.h"

typedef enum { KT_MATCH_SEQ = 0, KT_MATCH_POSITION, KT_MATCH_STREAM } kt_match_mode;
typedef enum {
    KT_INST_COMPLETE = 0, /* every expected rank once, same metadata          */
    KT_INST_MISSING,      /* some expected rank has no record (trace starts or
                             ends mid-collective, or a rank diverged)         */
    KT_INST_DUPLICATE,    /* a rank has two records with the same key          */
    KT_INST_MISMATCH      /* ranks disagree on kind, sizes or dtype            */
} kt_inst_status;

typedef struct kt_coll_member {
    uint32_t rank_i; /* index into the match's ranks[]                     */
    uint32_t rec;    /* index into ranks[rank_i].r                         */
} kt_coll_member;

typedef struct kt_coll_inst {
    uint32_t first, n;  /* members[first .. first+n), by rank index      */
    uint32_t pg;        /* KT_NONE: matched by stream                     */
    int32_t stream;     /* the stream for KT_MATCH_STREAM, else 0         */
    int64_t key;        /* seq or position                                */
    uint32_t expected;  /* loaded ranks that should take part              */
    uint8_t mode, status;
} kt_coll_inst;

typedef struct kt_comm_match {
    const kt_comm_recs *ranks; /* borrowed, by rank order                  */
    size_t nranks;
    kt_coll_member *members;
    size_t nmembers;
    kt_coll_inst *inst;        /* ordered by the earliest member start     */
    size_t ninst;
} kt_comm_match;

/* position_only: ignore Seq (TraceLens's matching). */
kt_status kt_comm_match_build(const kt_trace *t, const kt_comm_recs *ranks, size_t nranks, bool position_only,
                              kt_comm_match *out);
void kt_comm_match_free(kt_comm_match *m);

static inline const kt_comm_rec *kt_member_rec(const kt_comm_match *m, const kt_coll_member *x)
{
    return &m->ranks[x->rank_i].r[x->rec];
}

const char *kt_match_mode_name(kt_match_mode m);
const char *kt_inst_status_name(kt_inst_status s);

#endif
