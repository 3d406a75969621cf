/*
 * column_labels.h — what a result column is called and how its numbers are
 * shown, derived from the column's name (and its kt_table_col_unit), so
 * every command's tables get units, JSON keys and precision without code
 * of their own.
 */
#ifndef KT_COLUMN_LABELS_H
#define KT_COLUMN_LABELS_H

#include "kineta.h"
#include <stdbool.h>
#include <stddef.h>

/* The column's unit: kt_table_col_unit, else the one its name says
 * ("total (us)", "gap_max_us", "time ms", "memory_bw_gbps", "% launches"):
 * "us", "ms", "ns", "GB/s", "%"; NULL when neither says one.             */
const char *column_unit(const kt_table *t, size_t col);

/* Decimals a person needs for a unit (us: 3, i.e. ns; ms: 3; ns: 0;
 * GB/s: 3; %: 2), or -1 when the unit is unknown.                          */
int unit_decimals(const char *unit);

/* Header of a text table: the name, plus " (us)" when the unit is only in
 * kt_table_col_unit ("sum" -> "sum (us)").                                 */
void column_header(const kt_table *t, size_t col, char *buf, size_t n);

/* JSON key: snake_case of the header ("total (us)" -> "total_us",
 * "% launches" -> "pct_launches", "cpu_duration_25%" -> "cpu_duration_p25",
 * "sum" in us -> "sum_us"); hta_names: the column's name as it is.         */
void column_json_key(const kt_table *t, size_t col, bool hta_names, char *buf, size_t n);

#endif
