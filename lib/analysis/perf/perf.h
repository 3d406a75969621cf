/*
 * perf.h — kt_perf (kineta.h) without the tables of ops by shapes.
 */
#ifndef KT_PERF_H
#define KT_PERF_H

#include "kineta.h"

/* kt_perf's tables but ops_unique_args, unified_perf_summary,
 * short_kernels_summary and headroom, whose groups are then not made
 * either: the report draws the roofline sheets, perf_by_family and
 * ops_summary_by_category, and the groups by shapes were a third of its
 * perf analysis.  The tables it makes are kt_perf's, in kt_perf's order. */
kt_status kt_perf_overview(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out);

#endif
