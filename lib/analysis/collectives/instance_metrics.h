/*
 * instance_metrics.h — the numbers TraceLens reports per collective
 * instance (sizes, latency, skews, bandwidths), computed once so that the
 * per-instance rows and the summary agree.
 */
#ifndef KT_INSTANCE_METRICS_H
#define KT_INSTANCE_METRICS_H

#include "analysis/collectives/comm_world.h"

typedef struct kt_inst_metrics {
    kt_inst_times tm;
    double msg_mb;       /* Full msg size (MB); NaN when size or dtype unknown */
    double latency_us, skew_start_us, skew_end_us, avg_wait_us;
    double algo_bw, bus_bw; /* GB/s; NaN when unknown                       */
    int group;           /* ranks in the collective: Group size, else members */
} kt_inst_metrics;

kt_inst_metrics kt_instance_metrics(const kt_trace *t, const kt_comm_world *w, const kt_coll_inst *in);
/* nccl-tests' bus bandwidth factor for n ranks. */
double kt_busbw_factor(kt_coll_kind k, int n);

#endif
