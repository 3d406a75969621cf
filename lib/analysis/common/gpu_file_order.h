/*
 * gpu_file_order.h — a rank's GPU work events in file order, without a
 * scan of every event.
 *
 * Analyses that keep first-seen order (a group's first event decides its
 * label, groups go out in order of first sight) walk events in file order;
 * scanning the whole event table for the few GPU events costs more than
 * the rest of such an analysis.  Every kernel, memcpy and memset is on one
 * of the index's streams: the ones taken are marked in a bitmap of the
 * rank's events and read back in id order (a sort of the ids cost ten
 * times as much).
 */
#ifndef KT_GPU_FILE_ORDER_H
#define KT_GPU_FILE_ORDER_H

#include "model/model.h"

/* Which GPU work events an analysis takes (ctx: the analysis's). */
typedef bool (*kt_gpu_keep_fn)(void *ctx, const kt_rank *r, uint32_t ev);

/* The rank's kernels, memcpys and memsets that keep takes (all of them
 * for a NULL keep), in file order, malloc'd (*n of them); NULL without
 * memory.  Needs r->idx.                                                  */
uint64_t *kt_gpu_events_file_order(const kt_rank *r, kt_gpu_keep_fn keep, void *ctx, size_t *n);

#endif
