/*
 * sqlite_write.c — bulk writing into a fresh SQLite file.
 *
 * An export writes millions of rows once and is then only read, so the
 * file is opened without a journal and with syncs off, everything goes in
 * one transaction, and each insert is a prepared statement bound and reset
 * per row: about a microsecond a row instead of a parse per row.
 */
#include "output/sqlite_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sqlw {
    sqlite3 *db;
    bool failed;
    char *err;
    size_t errlen;
};

static bool remember(sqlw *w, const char *why)
{
    if (!w->failed && w->err && w->errlen)
        snprintf(w->err, w->errlen, "%s", why ? why : sqlite3_errmsg(w->db));
    w->failed = true;
    return false;
}

bool sqlw_fail(sqlw *w, const char *why) { return remember(w, why); }

bool sqlw_exec(sqlw *w, const char *sql)
{
    if (w->failed) return false;
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) == SQLITE_OK) return true;
    remember(w, msg);
    sqlite3_free(msg);
    return false;
}

kt_status sqlw_open(const char *path, char *err, size_t errlen, sqlw **out)
{
    sqlw *w = calloc(1, sizeof *w);
    if (!w) return KT_ENOMEM;
    w->err = err;
    w->errlen = errlen;
    /* One connection used by one thread: no per-call mutex (a sixth of the
     * time of a bulk insert goes to locking it otherwise).                 */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &w->db, flags, NULL) != SQLITE_OK) {
        remember(w, NULL);
        sqlite3_close(w->db);
        free(w);
        return KT_EINPUT;
    }
    if (!sqlw_exec(w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
                      "PRAGMA cache_size=-65536; BEGIN;")) {
        sqlw_close(w, false);
        return KT_EINPUT;
    }
    *out = w;
    return KT_OK;
}

kt_status sqlw_close(sqlw *w, bool ok)
{
    ok = ok && !w->failed && sqlw_exec(w, "COMMIT;");
    if (!ok) sqlite3_exec(w->db, "ROLLBACK;", NULL, NULL, NULL);
    if (sqlite3_close(w->db) != SQLITE_OK) ok = remember(w, NULL);
    free(w);
    return ok ? KT_OK : KT_EINPUT;
}

sqlite3_stmt *sqlw_prepare(sqlw *w, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (w->failed) return NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) remember(w, NULL);
    return st;
}

bool sqlw_step(sqlw *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || remember(w, NULL);
}

bool sqlw_finish(sqlw *w, sqlite3_stmt *st)
{
    sqlite3_finalize(st);
    return !w->failed;
}

/* "a b/c" → "a_b_c": SQL identifiers that need no quoting in queries. */
static void sql_name(const char *s, char *dst, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (word) dst[n++] = (char)c;
        else if (n && dst[n - 1] != '_') dst[n++] = '_';
    }
    while (n && dst[n - 1] == '_') n--;
    dst[n] = 0;
}

static bool create_table(sqlw *w, const char *name, const kt_table *t)
{
    static const char *const types[] = { [KT_COL_INT] = "INTEGER", [KT_COL_FLOAT] = "REAL",
                                         [KT_COL_STR] = "TEXT" };
    size_t nc = kt_table_ncols(t), cap = 64 + nc * 96;
    char *sql = malloc(cap), col[80];
    if (!sql) return remember(w, "out of memory");
    size_t len = (size_t)snprintf(sql, cap, "CREATE TABLE %s(", name);
    for (size_t c = 0; c < nc; c++) {
        sql_name(kt_table_col_name(t, c), col, sizeof col);
        len += (size_t)snprintf(sql + len, cap - len, "%s\"%s\" %s", c ? "," : "", col,
                                types[kt_table_col_type(t, c)]);
    }
    snprintf(sql + len, cap - len, ")");
    bool ok = sqlw_exec(w, sql);
    free(sql);
    return ok;
}

static void bind_cell(sqlite3_stmt *st, const kt_table *t, size_t r, size_t c)
{
    int col = (int)c + 1;
    if (kt_table_is_null(t, r, c)) sqlite3_bind_null(st, col);
    else if (kt_table_col_type(t, c) == KT_COL_INT) sqlite3_bind_int64(st, col, kt_table_int(t, r, c));
    else if (kt_table_col_type(t, c) == KT_COL_FLOAT) sqlite3_bind_double(st, col, kt_table_float(t, r, c));
    else sqlite3_bind_text(st, col, kt_table_str(t, r, c), -1, SQLITE_STATIC);
}

bool sqlw_table(sqlw *w, const char *name, const kt_table *t)
{
    char id[128];
    sql_name(name, id, sizeof id);
    if (!create_table(w, id, t)) return false;
    size_t nc = kt_table_ncols(t), cap = 64 + 2 * nc;
    char *sql = malloc(cap);
    if (!sql) return remember(w, "out of memory");
    size_t len = (size_t)snprintf(sql, cap, "INSERT INTO %s VALUES(", id);
    for (size_t c = 0; c < nc; c++) len += (size_t)snprintf(sql + len, cap - len, c ? ",?" : "?");
    snprintf(sql + len, cap - len, ")");
    sqlite3_stmt *st = sqlw_prepare(w, sql);
    free(sql);
    for (size_t r = 0; st && r < kt_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) bind_cell(st, t, r, c);
        if (!sqlw_step(w, st)) break;
    }
    return sqlw_finish(w, st);
}
