/*
 * instance_metrics.c — TraceLens's per-collective formulas (spec §1.7):
 * message MB = nelems · dtype bytes / 2^20 (out size for allgather),
 * latency = min duration over ranks, skews, algo bw = MB/1024 / latency s,
 * bus bw = algo bw · nccl-tests factor.
 */
#include "analysis/common/dtypes.h"
#include "analysis/collectives/instance_metrics.h"

#include <math.h>

double kt_busbw_factor(kt_coll_kind k, int n)
{
    if (n <= 0) return NAN;
    switch (k) {
    case KT_COLL_ALLREDUCE: return 2.0 * (n - 1) / n;
    case KT_COLL_ALLGATHER:
    case KT_COLL_REDUCESCATTER:
    case KT_COLL_ALLTOALL:
    case KT_COLL_ALLTOALLV: return (double)(n - 1) / n;
    default: return 1.0; /* broadcast, reduce, send/recv: bus bw = algo bw */
    }
}

static double message_mb(const kt_trace *t, const kt_comm_rec *c)
{
    int64_t nelems = c->kind == KT_COLL_ALLGATHER ? c->out_nelems : c->in_nelems;
    int b = c->dtype == KT_NONE ? 0 : kt_scalar_type_bytes(kt_strtab_get(t->strs, c->dtype));
    if (nelems < 0 || b == 0) return NAN;
    return (double)nelems * b / 1048576.0;
}

kt_inst_metrics kt_instance_metrics(const kt_trace *t, const kt_comm_world *w, const kt_coll_inst *in)
{
    kt_inst_metrics m = { .tm = kt_instance_times(w, in) };
    const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
    m.msg_mb = message_mb(t, c0);
    m.latency_us = m.tm.latency / 1e3;
    m.skew_start_us = (m.tm.start_max - m.tm.start_min) / 1e3;
    m.skew_end_us = (m.tm.end_max - m.tm.end_min) / 1e3;
    double wait = 0;
    for (uint32_t k = 0; k < in->n; k++) wait += (double)(m.tm.start_max - kt_world_ts(w, &w->match.members[in->first + k]));
    m.avg_wait_us = wait / in->n / 1e3;
    m.group = c0->group_size > 0 ? c0->group_size : (int)in->n;
    m.algo_bw = m.latency_us > 0 ? m.msg_mb / 1024.0 / (m.latency_us / 1e6) : NAN;
    m.bus_bw = m.algo_bw * kt_busbw_factor((kt_coll_kind)c0->kind, m.group);
    return m;
}
