/*
 * counters.h — `kineta counters` with the writer of its trace copies
 * handed in: the analysis lies below output/, so kt_counters (kineta.h),
 * defined above both, joins the two.
 */
#ifndef KT_COUNTERS_H
#define KT_COUNTERS_H

#include "table/overlay.h"

/* kt_counters, each rank's copy written by write. */
kt_status kt_counters_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt,
                              kt_overlay_write_fn write, kt_tables **out, kt_diags **diags);

#endif
