/*
 * sqlite_write.h — the few SQLite operations an export needs, with the
 * first error remembered so export code stays linear (like kt_table).
 */
#ifndef KT_SQLITE_WRITE_H
#define KT_SQLITE_WRITE_H

#include "kineta.h"
#include "table/table.h"

#include <sqlite3.h>
#include <stdbool.h>

typedef struct sqlw sqlw;

/* Open the database at path (created if missing; the export's bulk
 * writer has made it) for a one-shot bulk write: one transaction, no
 * journal, no syncs until the end.                                        */
kt_status sqlw_open(const char *path, char *err, size_t errlen, sqlw **out);
/* Commit when ok (and no step failed), else roll back; closes and frees.  */
kt_status sqlw_close(sqlw *w, bool ok);
bool sqlw_exec(sqlw *w, const char *sql);
/* NULL after an earlier failure or when SQLite rejects the statement. */
sqlite3_stmt *sqlw_prepare(sqlw *w, const char *sql);
/* Run a bound insert and reset it for the next row. */
bool sqlw_step(sqlw *w, sqlite3_stmt *st);
/* Finalize; false if this or any earlier operation failed. */
bool sqlw_finish(sqlw *w, sqlite3_stmt *st);
/* Remember a failure of the caller's own (returns false). */
bool sqlw_fail(sqlw *w, const char *why);
/* A result table as an SQL table of the same columns and types. */
bool sqlw_table(sqlw *w, const char *name, const kt_table *t);

#endif
