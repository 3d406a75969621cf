/*
 * collectives_tables.h — the table builders of `kineta collectives`, one
 * file each: the instance tables (collectives.c), the summary
 * (collectives_summary.c), the per-rank tables (collectives_ranks.c), the
 * all-to-all-v send matrix (collectives_heatmap.c) and summary
 * (collectives_a2a_summary.c), every kernel (collectives_kernels.c).
 */
#ifndef KT_COLLECTIVES_TABLES_H
#define KT_COLLECTIVES_TABLES_H

#include "analysis/collectives/instance_metrics.h"
#include "table/table.h"

/* "collective_id": "<PG>_<seq or position>", "stream<S>_<position>". */
void kt_collective_id(const kt_trace *t, const kt_coll_inst *in, char *buf, size_t n);

kt_table *kt_coll_summary_table(const kt_trace *t, const kt_comm_world *w);
kt_table *kt_coll_heatmap_table(const kt_trace *t, const kt_comm_world *w);
kt_table *kt_coll_kernels_table(const kt_trace *t, const kt_comm_world *w);
/* From the finished "all2allv" table. */
kt_table *kt_coll_a2a_summary_table(const kt_table *a2a);
kt_table *kt_coll_stragglers_table(const kt_comm_world *w, int gpus_per_node);
kt_table *kt_coll_offsets_table(const kt_comm_world *w);
kt_table *kt_coll_ranks_table(const kt_comm_world *w);

/* Per rank over complete implicit-sync instances: what the straggler
 * tables of both commands report.                                          */
typedef struct kt_rank_arrivals {
    int rank;
    double total_wait_us, nccl_us;
    uint32_t last, first, collectives;
} kt_rank_arrivals;
kt_rank_arrivals *kt_rank_arrivals_of(const kt_comm_world *w);

#endif
