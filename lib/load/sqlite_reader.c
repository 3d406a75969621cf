/*
 * sqlite_reader.c — SQLite inputs: open the database (the file itself, or
 * a copy in memory for buffers and gzip'd files), tell an Nsight Systems
 * export from a rocpd database by their tables, and the column helpers
 * both readers use (sqlite_reader.h).
 */
#include "sqlite_reader.h"

#include <stdio.h>
#include <stdlib.h>

bool kt_sql_has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

const char *kt_sql_col(sqlite3 *db, const char *table, const char *const *names)
{
    for (; *names; names++)
        if (sqlite3_table_column_metadata(db, NULL, table, *names, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK) return *names;
    return NULL;
}

size_t kt_sql_rows(sqlite3 *db, const char *table)
{
    char sql[256];
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", table);
    if (table[0] && strlen(table) < 200 && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n > 0 ? (size_t)n : 0;
}

/* The first alternative in alts ("a|b|c") that table has. */
static bool pick(sqlite3 *db, const char *table, const char *alts, char *out, size_t cap)
{
    while (*alts) {
        const char *bar = strchr(alts, '|');
        size_t n = bar ? (size_t)(bar - alts) : strlen(alts);
        snprintf(out, cap, "%.*s", (int)n, alts);
        if (sqlite3_table_column_metadata(db, NULL, table, out, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK) return true;
        alts += n + (bar != NULL);
    }
    return false;
}

sqlite3_stmt *kt_sql_select(sqlite3 *db, const char *table, const char *const *wanted, size_t n, const char *tail)
{
    if (!kt_sql_has_table(db, table)) return NULL;
    char sql[4096] = "SELECT ";
    size_t len = strlen(sql);
    for (size_t i = 0; i < n && len < sizeof sql - 256; i++) {
        char col[128];
        bool have = pick(db, table, wanted[i], col, sizeof col);
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s%s%s", i ? ", " : "", have ? "\"" : "",
                                have ? col : "NULL", have ? "\"" : "");
    }
    snprintf(sql + len, sizeof sql - len, " FROM \"%s\" %s", table, tail ? tail : "");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static bool is_nsys(sqlite3 *db)
{
    static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "TARGET_INFO_GPU",
                                          "NVTX_EVENTS" };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (kt_sql_has_table(db, tables[i])) return true;
    return false;
}

/* A file read through a mapping of its pages (no copy into SQLite's
 * page cache per page read) and a cache of 64 MiB for the joins' pages,
 * queries only.                                                         */
static void read_fast(sqlite3 *db)
{
    sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776; PRAGMA cache_size = -65536; PRAGMA query_only = 1", NULL, NULL, NULL);
}

/* The database: the file read-only, else the bytes deserialized; one
 * thread uses the connection, so without SQLite's mutex per call.     */
static sqlite3 *open_db(const kt_reader_in *in)
{
    sqlite3 *db = NULL;
    if (in->is_file) {
        if (sqlite3_open_v2(in->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK) {
            read_fast(db);
            return db;
        }
        sqlite3_close(db);
        return NULL;
    }
    unsigned char *copy = sqlite3_malloc64(in->len ? in->len : 1);
    if (!copy || sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_free(copy);
        sqlite3_close(db);
        return NULL;
    }
    memcpy(copy, in->data, in->len);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)in->len, (sqlite3_int64)in->len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

kt_status kt_read_sqlite(const kt_reader_in *in, kt_build *b)
{
    sqlite3 *db = open_db(in);
    kt_status st = KT_EINPUT;
    if (!db) kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1, "an SQLite database that cannot be opened");
    else if (is_nsys(db)) st = kt_read_nsys(db, in, b);
    else if (kt_rocpd_recognise(db)) st = kt_read_rocpd(db, in, b);
    else {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1,
                     "an SQLite database with neither Nsight Systems (CUPTI_ACTIVITY_KIND_*) nor rocpd tables");
        if (in->not_trace) *in->not_trace = true;
    }
    sqlite3_close(db);
    return st;
}
