/*
 * sqlite_reader.h — what the SQLite-based readers (Nsight Systems export,
 * rocpd) share: tables and columns that may or may not be there.
 *
 * Both formats change between versions (tables absent when empty in newer
 * nsys, present and empty in older; columns renamed or added), so readers
 * ask for columns by a list of names and get NULL for those the database
 * lacks, instead of failing the query.
 */
#ifndef KT_SQLITE_READER_H
#define KT_SQLITE_READER_H

#include "readers.h"

#include <sqlite3.h>

bool kt_sql_has_table(sqlite3 *db, const char *table);
/* The first of names (NULL-terminated) that is a column of table, or NULL. */
const char *kt_sql_col(sqlite3 *db, const char *table, const char *const *names);
/* "SELECT c1, c2, ... FROM table": each wanted column is the first of its
 * alternatives the table has, or NULL.  wanted[i] lists the alternatives
 * of column i ('|'-separated).  NULL when the table is absent or the
 * statement cannot be prepared.                                          */
sqlite3_stmt *kt_sql_select(sqlite3 *db, const char *table, const char *const *wanted, size_t n, const char *tail);
/* Rows of table (or view), 0 when it is absent or cannot be counted. */
size_t kt_sql_rows(sqlite3 *db, const char *table);
/* Column i of the row: one call into SQLite per column (each sqlite3_column_*
 * call pays the statement's bounds check and error bookkeeping; the value's
 * type and contents are then read without it).  The value is SQLite's own
 * "unprotected" one, safe here: a connection is used by one thread only.  */
static inline sqlite3_value *kt_sql_val(sqlite3_stmt *st, int i) { return sqlite3_column_value(st, i); }

/* A value as an integer, dflt when NULL. */
static inline int64_t kt_sql_vint(sqlite3_value *v, int64_t dflt)
{
    return sqlite3_value_type(v) == SQLITE_NULL ? dflt : sqlite3_value_int64(v);
}

/* Column i as an integer, dflt when NULL. */
static inline int64_t kt_sql_int(sqlite3_stmt *st, int i, int64_t dflt) { return kt_sql_vint(kt_sql_val(st, i), dflt); }

/* Column i as a time (ns): -1 unless an integer (text, blobs, reals and
 * NULLs are not times).                                                 */
static inline int64_t kt_sql_time(sqlite3_stmt *st, int i)
{
    sqlite3_value *v = kt_sql_val(st, i);
    return sqlite3_value_type(v) == SQLITE_INTEGER ? sqlite3_value_int64(v) : -1;
}

/* The two formats' readers on an open database. */
kt_status kt_read_nsys(sqlite3 *db, const kt_reader_in *in, kt_build *b);
kt_status kt_read_rocpd(sqlite3 *db, const kt_reader_in *in, kt_build *b);
bool kt_rocpd_recognise(sqlite3 *db);

#endif
