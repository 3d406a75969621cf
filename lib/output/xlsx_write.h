/*
 * xlsx_write.h — result tables as an Excel workbook (libxlsxwriter), one
 * sheet per table: TraceLens's users pass its perf report around as a
 * workbook, and `kineta perf --xlsx` writes the same sheets.
 */
#ifndef KT_XLSX_WRITE_H
#define KT_XLSX_WRITE_H

#include "kineta.h"

#include <stddef.h>

/* Write sets[0..n) to path as one workbook, a sheet per table of sets[0]
 * (its name, its order); each sheet holds the rows of that table in every
 * set, in set order.  n > 1: a leading "rank" column holds ranks[i] on the
 * rows of sets[i] (every set must have sets[0]'s tables and columns).
 * Numbers are number cells, nulls empty cells; the header row is frozen
 * and filtered, columns as wide as their widest text (up to 80).  The file
 * is written beside path and renamed over it once whole.  KT_EINPUT (err)
 * when it cannot be written or a table does not fit a sheet, KT_EUSAGE
 * (err) when the sets' tables differ, KT_ENOMEM.                          */
kt_status kt_xlsx_write(const char *path, const kt_tables *const *sets, const int *ranks, size_t n, char *err,
                        size_t errlen);

#endif
