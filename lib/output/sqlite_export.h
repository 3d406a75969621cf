/*
 * sqlite_export.h — kt_export_sqlite with SQLite's lock bytes placed by
 * the caller: tests move them into a small file's first pages (with
 * libsqlite3's own, sqlite3_test_control) to cross the page they hold.
 */
#ifndef KT_SQLITE_EXPORT_H
#define KT_SQLITE_EXPORT_H

#include "kineta.h"

#include <stdint.h>

/* kt_export_sqlite is sqlite_export(..., SQLB_PENDING_BYTE, out, diags). */
kt_status sqlite_export(const kt_trace *t, const kt_rank_sel *sel, const kt_sqlite_options *opt,
                        uint32_t pending_byte, kt_tables **out, kt_diags **diags);

#endif
