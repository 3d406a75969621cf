/*
 * memory.h — kt_memory handing each rank's [memory] events over once its
 * tables have them: the report draws device memory over time from them
 * (48 bytes an event, already made) rather than from the series table
 * (45 bytes a row more, and 24 more to read it back).
 */
#ifndef KT_MEMORY_H
#define KT_MEMORY_H

#include "analysis/memory/memory_events.h"
#include "table/overlay.h"

/* Offered a rank's events (by device, in time order): true when it keeps
 * them (and calls kt_mem_rank_free later), false to let them be freed. */
typedef bool (*kt_memory_keep)(void *ctx, const kt_rank *r, kt_mem_rank *m);

/* kt_memory offering each selected rank's events to keep(ctx, ...), the
 * copies of out_dir written by write (NULL: none may be asked for; the
 * analysis lies below output/, so kt_memory, defined above both, hands
 * output's writer in).                                                   */
kt_status kt_memory_keeping(const kt_trace *t, const kt_rank_sel *sel, const kt_memory_options *opt,
                            kt_overlay_write_fn write, kt_memory_keep keep, void *ctx, kt_tables **out,
                            kt_diags **diags);

#endif
