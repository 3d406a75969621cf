/*
 * comm_record.h — the per-rank *map* of the cross-rank analyses: every
 * communication kernel of one rank as a small fixed-size record.
 *
 * Why records: matching collectives across ranks needs only a few fields per
 * kernel (times, stream, process group, sequence number, sizes, dtype), so a
 * rank's model is reduced to 88 bytes per collective before the reduce step
 * (comm_match.h) looks at several ranks at once.  Strings are ids in the
 * trace's shared string table.
 */
#ifndef KT_COMM_RECORD_H
#define KT_COMM_RECORD_H

#include "model/model.h"

/* Collective kinds after normalizing PyTorch's names ("_allgather_base",
 * "all_gather_into_tensor_coalesced", "reduce_scatter", ...).            */
typedef enum {
    KT_COLL_UNKNOWN = 0,
    KT_COLL_ALLREDUCE, KT_COLL_ALLGATHER, KT_COLL_REDUCESCATTER, KT_COLL_ALLTOALL,
    KT_COLL_ALLTOALLV, KT_COLL_BROADCAST, KT_COLL_REDUCE, KT_COLL_SEND, KT_COLL_RECV,
    KT_COLL_SENDRECV, KT_COLL_BARRIER, KT_COLL_GATHER, KT_COLL_SCATTER,
    KT_COLL__COUNT
} kt_coll_kind;

/* Where a record's metadata came from. */
typedef enum { KT_META_KERNEL = 0, KT_META_CPU_OP, KT_META_NAME_ONLY } kt_meta_source;

typedef struct kt_comm_rec {
    int64_t ts, dur;           /* ns, the rank's own clock                  */
    int64_t seq;               /* NCCL/c10d sequence number ("Seq"), -1     */
    int64_t in_nelems, out_nelems; /* -1 when unknown                       */
    uint32_t ev;               /* the kernel event                          */
    uint32_t pg;               /* "Process Group Name" strid, KT_NONE       */
    uint32_t pg_desc;          /* "Process Group Description", KT_NONE     */
    uint32_t pg_ranks;         /* raw "[0, 1, ...]" strid, KT_NONE          */
    uint32_t dtype;            /* strid, KT_NONE                            */
    uint32_t coll_name;        /* "Collective name" as written, KT_NONE     */
    uint32_t in_split;         /* raw "In split size" strid, KT_NONE        */
    int32_t stream;
    int32_t group_size;        /* -1 unknown                                */
    uint32_t pos;              /* index among this rank's records of the
                                  same process group (ts order)            */
    uint8_t kind;              /* kt_coll_kind                              */
    uint8_t meta;              /* kt_meta_source                            */
} kt_comm_rec;

typedef struct kt_comm_recs {
    int rank;
    const kt_rank *src;        /* the rank the records came from            */
    kt_comm_rec *r;            /* sorted by ts (ties: event order)          */
    size_t n;
    size_t from_cpu_op, name_only; /* how many took metadata from where     */
} kt_comm_recs;

/* The map: every communication kernel of r (NCCL/RCCL names, old and new).
 * Metadata from the kernel's args, else from the launching
 * record_param_comms / nccl:* CPU op, else only the kind from the name.   */
kt_status kt_comm_map(const kt_trace *t, const kt_rank *r, kt_comm_recs *out);
void kt_comm_recs_free(kt_comm_recs *c);

/* Kind from a "Collective name" or from a kernel name (ncclKernel_AllReduce_
 * ..., ncclDevKernel_SendRecv...); KT_COLL_UNKNOWN when neither tells.    */
kt_coll_kind kt_coll_kind_from_arg(const char *name);
kt_coll_kind kt_coll_kind_from_kernel(const char *name);
const char *kt_coll_kind_name(kt_coll_kind k);
/* All ranks leave together (allreduce, allgather, reducescatter, alltoall). */
bool kt_coll_implicit_sync(kt_coll_kind k);

#endif
