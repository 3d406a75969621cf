/*
 * sheet_diff.h — two runs' report sheets (tables of the same names and
 * kinds of rows) matched row by row on each sheet's keys, with both
 * values, the difference and the ratio of every number: TraceLens's
 * compare_perf_reports_pytorch over kineta's perf sheets.  The sheets
 * come in as tables, so the matching knows nothing of how they were made.
 */
#ifndef KT_SHEET_DIFF_H
#define KT_SHEET_DIFF_H

#include "kineta.h"

/* For every sheet of base (then those only test has) but "notes": the
 * table kt_perf_compare describes (kineta.h), the columns named after
 * a_name and b_name.                                                      */
kt_status kt_sheets_diff(const kt_tables *base, const kt_tables *test, const char *a_name, const char *b_name,
                         kt_tables **out);

#endif
