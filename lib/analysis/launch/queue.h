/*
 * queue.h — kt_queue building only some of its tables: the report draws
 * the series and the weighted table, and the others (the summary's
 * statistics, the blocked time over every event of the rank) were a fifth
 * of the analysis.  The tables built are the ones kt_queue returns.
 */
#ifndef KT_QUEUE_H
#define KT_QUEUE_H

#include "analysis/common/step_series.h"
#include "kineta.h"

typedef enum kt_queue_table {
    KT_QUEUE_SERIES = 1 << 0,
    KT_QUEUE_SUMMARY = 1 << 1,
    KT_QUEUE_BLOCKED = 1 << 2,
    KT_QUEUE_WEIGHTED = 1 << 3,
    KT_QUEUE_DIAGNOSTICS = 1 << 4,
    KT_QUEUE_ALL = (1 << 5) - 1
} kt_queue_table;

/* kt_queue's tables in tables (kt_queue_table bits), in kt_queue's order. */
kt_status kt_queue_tables(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt, unsigned tables,
                          kt_tables **out);

/* Offered each rank's points (kt_queue_series' order: by queue, in time
 * order) once the tables have them: true when it keeps them (and frees
 * them later), false to let them be freed.                                */
typedef bool (*kt_queue_keep)(void *ctx, const kt_rank *r, kt_step_point *p, size_t n);

/* kt_queue_tables offering the points to keep(ctx, ...): the report draws
 * the queues from them, 24 bytes a point, where the series table takes 54
 * and reading it back 40 more.                                            */
kt_status kt_queue_tables_keep(const kt_trace *t, const kt_rank_sel *sel, const kt_queue_options *opt,
                               unsigned tables, kt_queue_keep keep, void *ctx, kt_tables **out);

#endif
