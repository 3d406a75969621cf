/*
 * attrib_oracle.h — comparing a result table with an HTA oracle CSV row by
 * row, for the attribution tests (annotations, ops, cupti).
 *
 * Their CSVs carry columns we cannot or do not reproduce (pandas' index,
 * HTA's symbol ids, every raw trace column); callers name the columns to
 * compare.
 */
#ifndef KT_ATTRIB_ORACLE_H
#define KT_ATTRIB_ORACLE_H

#include "kineta.h"
#include "oracle.h"

#include <stdbool.h>

/* Compare columns cols[0..ncols) of table `name` in ts with the CSV
 * oracle/hta/<dir>/<file> (a missing CSV means no rows): same row count,
 * strings equal, numbers equal within rel_tol relative (0 = exact).
 * ours[i], when not NULL, is our column name for cols[i].                 */
void ao_compare(const char *dir, const char *file, const kt_tables *ts, const char *name,
                const char *const *cols, const char *const *ours, size_t ncols, double rel_tol);

#endif
