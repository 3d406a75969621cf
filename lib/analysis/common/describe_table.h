/*
 * describe_table.h — describe() statistics as table columns.
 *
 * HTA flattens pandas describe() into columns named <value>_count,
 * <value>_mean, ... <value>_max (e.g. queue_length_mean, memory_bw_gbps_50%);
 * our summary tables use the same names.
 */
#ifndef KT_DESCRIBE_TABLE_H
#define KT_DESCRIBE_TABLE_H

#include "analysis/common/stats.h"
#include "table/table.h"

/* Adds the 8 columns; returns the index of the first (<prefix>_count). */
size_t kt_describe_add_cols(kt_table *t, const char *prefix);
/* Sets the unit of the 7 value columns (all but <prefix>_count). */
void kt_describe_set_unit(kt_table *t, size_t first_col, const char *unit);
/* Fills them in the last row. */
void kt_describe_set(kt_table *t, size_t first_col, const kt_describe *d);

#endif
