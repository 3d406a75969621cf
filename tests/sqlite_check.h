/*
 * sqlite_check.h — reading back databases the tests wrote: a scratch
 * path, one number from a query, SQLite's own integrity check.
 */
#ifndef KT_TEST_SQLITE_CHECK_H
#define KT_TEST_SQLITE_CHECK_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* /tmp/kineta-<tag>-<pid>.db, written into buf. */
const char *sqlt_db_path(const char *tag, char *buf, size_t cap);
/* The first column of the first row; INT64_MIN on no row or an error. */
int64_t sqlt_query_int(sqlite3 *db, const char *sql);
/* A failed CHECK unless PRAGMA integrity_check answers "ok". */
void sqlt_check_integrity(sqlite3 *db);
/* libsqlite3's lock bytes (PENDING_BYTE) moved to offset, so that a small
 * file has a lock-byte page (the writer's moved alike: sqlb_move_lock_page,
 * sqlite_export); SQLB_PENDING_BYTE puts them back.  No database may be
 * open.                                                                   */
void sqlt_pending_byte(uint32_t offset);

#endif
