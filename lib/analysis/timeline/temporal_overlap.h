/*
 * temporal_overlap.h — HTA's temporal breakdown and its communication /
 * computation overlap from one build of the GPU busy unions.
 *
 * Both are lengths of the same per-kernel-type unions (gpu_busy.h): the
 * report shows the two side by side, and building the unions once instead
 * of twice spares a pass over every GPU event per table.
 */
#ifndef KT_TEMPORAL_OVERLAP_H
#define KT_TEMPORAL_OVERLAP_H

#include "analysis/common/gpu_busy.h"

/* kt_temporal's and kt_overlap's tables (default options, by_step as
 * given), each as the two functions return it.                          */
kt_status kt_temporal_overlap(const kt_trace *t, const kt_rank_sel *sel, bool by_step, kt_tables **temporal,
                              kt_tables **overlap);

/* The halves each analysis file lends the pair: a new empty table, and
 * the rows of one rank's busy unions.                                     */
kt_table *kt_temporal_table_new(const kt_temporal_options *o);
void kt_temporal_add_rows(kt_table *tb, const kt_temporal_options *o, bool compat, int rank, const kt_busy *b);
kt_table *kt_overlap_table_new(bool by_step);
void kt_overlap_add_rows(kt_table *tb, bool by_step, bool compat, int rank, const kt_busy *b);

#endif
