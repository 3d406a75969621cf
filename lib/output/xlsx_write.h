/*
 * xlsx_write.h — result tables as an Excel workbook (libxlsxwriter), one
 * sheet per table: TraceLens's users pass its perf report around as a
 * workbook, and `kineta perf --xlsx` writes the same sheets.
 */
#ifndef KT_XLSX_WRITE_H
#define KT_XLSX_WRITE_H

#include "kineta.h"

#include <stddef.h>

/* Write ts to path as one workbook, a sheet per table (its name, its
 * order).  Numbers are number cells, nulls empty cells; the header row is
 * frozen and filtered, columns as wide as their widest text (up to 80).
 * The file is written beside path and renamed over it once whole.
 * KT_EINPUT (err) when it cannot be written or a table does not fit a
 * sheet, KT_ENOMEM.                                                      */
kt_status kt_xlsx_write(const char *path, const kt_tables *ts, char *err, size_t errlen);

#endif
