/*
 * table.h — building result tables (internal side of kt_table).
 *
 * Analyses fill rows with kt_table_add_row + kt_table_set_*; allocation
 * failures are remembered in the table (kt_table_failed) so analysis code
 * can stay linear and check once before returning.
 */
#ifndef KT_TABLE_H
#define KT_TABLE_H

#include "../kineta.h"
#include <stdbool.h>

kt_table *kt_table_new(const char *name);
void kt_table_free(kt_table *t);
/* Add a column (before any row). precision: digits for KT_COL_FLOAT, -1 =
 * shortest round-trip.  Returns the column index.                          */
size_t kt_table_add_col(kt_table *t, const char *name, kt_col_type type, int precision);
/* The unit of a column whose name does not say it (HTA's "sum", "mean",
 * ...): "us", "ms", "ns", "GB/s", "%".  unit must outlive the table (a
 * string literal).                                                         */
void kt_table_set_unit(kt_table *t, size_t col, const char *unit);
/* Room for nrows rows in all (after the columns): spares the regrowth of
 * large tables whose size is known.  Failure is remembered as above.      */
void kt_table_reserve(kt_table *t, size_t nrows);
/* Append a row whose cells are all null; set them with the setters below. */
void kt_table_add_row(kt_table *t);
void kt_table_set_int(kt_table *t, size_t col, int64_t v);   /* last row */
void kt_table_set_float(kt_table *t, size_t col, double v);  /* NaN → null */
void kt_table_set_str(kt_table *t, size_t col, const char *s); /* copied */
bool kt_table_failed(const kt_table *t);
/* Overwrite one float cell of an existing row (lib/scale re-expresses
 * merged times); v must not be NaN.                                     */
void kt_table_put_float(kt_table *t, size_t row, size_t col, double v);

kt_tables *kt_tables_new(void);
/* Takes ownership of t (frees it on failure). */
bool kt_tables_add(kt_tables *ts, kt_table *t);
/* Appends every row of src to dst (scale/table_concat.c); KT_EANALYSIS when
 * their columns differ (names, types, precision).                        */
kt_status kt_table_append_rows(kt_table *dst, const kt_table *src);
/* The usual end of an analysis: *out = a new list of tb[0..n), taking
 * ownership of them all; KT_ENOMEM (all freed) if any failed or is NULL.   */
kt_status kt_tables_from(kt_table **tb, size_t n, kt_tables **out);

#endif
