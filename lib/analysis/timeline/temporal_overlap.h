/*
 * temporal_overlap.h — HTA's temporal breakdown and its communication /
 * computation overlap, whole and by step, from one build of the GPU busy
 * unions.
 *
 * All four are lengths of the same per-kernel-type unions (gpu_busy.h):
 * the report shows them side by side, and building the unions once by
 * step, then folding the steps together, spares three passes over every
 * GPU event.
 */
#ifndef KT_TEMPORAL_OVERLAP_H
#define KT_TEMPORAL_OVERLAP_H

#include "analysis/common/gpu_busy.h"

enum { KT_PAIR_TEMPORAL, KT_PAIR_OVERLAP, KT_PAIR_TEMPORAL_BY_STEP, KT_PAIR_OVERLAP_BY_STEP, KT_PAIR_TABLES };

/* out[KT_PAIR_*]: what kt_temporal and kt_overlap return with default
 * options and with by_step set; all NULL on failure.                      */
kt_status kt_temporal_overlap(const kt_trace *t, const kt_rank_sel *sel, kt_tables *out[KT_PAIR_TABLES]);

/* The halves each analysis file lends the pair: a new empty table, and
 * the rows of one rank's busy unions.                                     */
kt_table *kt_temporal_table_new(const kt_temporal_options *o);
void kt_temporal_add_rows(kt_table *tb, const kt_temporal_options *o, bool compat, int rank, const kt_busy *b);
kt_table *kt_overlap_table_new(bool by_step);
void kt_overlap_add_rows(kt_table *tb, bool by_step, bool compat, int rank, const kt_busy *b);

#endif
