/*
 * sqlite_check.c — see sqlite_check.h.
 */
#include "sqlite_check.h"
#include "test.h"

#include <stdio.h>
#include <unistd.h>

const char *sqlt_db_path(const char *tag, char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/kineta-%s-%d.db", tag, (int)getpid());
    return buf;
}

int64_t sqlt_query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = INT64_MIN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

void sqlt_check_integrity(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
}

void sqlt_pending_byte(uint32_t offset)
{
    sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, (unsigned)offset);
}
