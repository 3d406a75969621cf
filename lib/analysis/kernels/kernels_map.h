/*
 * kernels_map.h — the map of `kernels` (kernels_map.c): a trace's selected
 * ranks, one after the other, into a partial that kernels.c turns into the
 * kernels and summary tables.
 */
#ifndef KT_KERNELS_MAP_H
#define KT_KERNELS_MAP_H

#include "analysis/kernels/kernel_partial.h"

/* Adds every selected rank of t, in t's rank order, to acc. */
kt_status kt_kernels_map_into(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *o,
                              kt_kpartial *acc);

#endif
