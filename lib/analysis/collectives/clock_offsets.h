/*
 * clock_offsets.h — each rank's clock offset, estimated from collectives.
 *
 * Ranks on different hosts write timestamps from different clocks.  Every
 * rank leaves an implicit-sync collective (allreduce, allgather,
 * reducescatter, alltoall) at the same moment, up to the collective's own
 * latency, so the difference of two ranks' end times in such collectives
 * measures their clock offset.  The median over all shared collectives is
 * the estimate, its spread (max − min of the differences) the confidence.
 */
#ifndef KT_CLOCK_OFFSETS_H
#define KT_CLOCK_OFFSETS_H

#include "analysis/collectives/comm_match.h"

typedef struct kt_clock_offset {
    int64_t offset;      /* ns to subtract from the rank's times          */
    int64_t spread;      /* max − min of the differences used (ns)         */
    uint32_t used;       /* collectives the estimate rests on; 0 = none    */
    int32_t via;         /* rank the difference was taken against         */
} kt_clock_offset;

/* off[nranks] (match->ranks order): offsets relative to the first rank;
 * ranks with no shared implicit-sync collective get 0 and used = 0.      */
kt_status kt_clock_offsets(const kt_comm_match *m, kt_clock_offset *off);

#endif
