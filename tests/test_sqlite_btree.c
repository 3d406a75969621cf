/*
 * test_sqlite_btree.c — the page-by-page SQLite writer (output/sqlite_btree.c)
 * read back by libsqlite3: PRAGMA integrity_check on many tree shapes (one
 * leaf, two levels, three; index splits whose last page would be empty),
 * every value as written (serial types at each size boundary, negative
 * rowids, NULLs, texts), lookups through each index, the lock-byte page
 * left empty (moved into small files, and where SQLite has it, past
 * 1 GiB), and the misuse it refuses.
 */
#include "fixture.h"
#include "kineta.h"
#include "output/sqlite_btree.h"
#include "sqlite_check.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *db_path(void)
{
    static char path[64];
    return sqlt_db_path("btree", path, sizeof path);
}



/* Values at every serial type's edges. */
static const int64_t edge_values[] = { 0, 1, -1, 2, 127, 128, -128, -129, 32767, 32768, -32768, -32769,
                                       8388607, 8388608, -8388608, -8388609, 2147483647, 2147483648,
                                       -2147483648LL, -2147483649LL, 140737488355327LL, 140737488355328LL,
                                       -140737488355328LL, -140737488355329LL, INT64_MAX, INT64_MIN };
#define NEDGE (sizeof edge_values / sizeof edge_values[0])

static int64_t value_b(size_t i) { return edge_values[i % NEDGE]; }

/* Row i's text: length 0-300, its bytes from i, so texts sort unlike rowids. */
static size_t value_c(size_t i, char *buf)
{
    size_t len = (i * 37) % 301;
    for (size_t k = 0; k < len; k++) buf[k] = (char)('a' + (i * 7 + k * 3) % 26);
    return len;
}

static int64_t rowid_of(size_t i) { return (int64_t)i * 3 - 100000; }

typedef struct sort_item {
    int64_t b;
    int64_t rowid;
} sort_item;

static int by_b_then_rowid(const void *x, const void *y)
{
    const sort_item *a = x, *b = y;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return (a->rowid > b->rowid) - (a->rowid < b->rowid);
}

/* Where write_table puts SQLite's lock bytes (moved by a test). */
static uint32_t pending_byte = SQLB_PENDING_BYTE;

/* A table t(a INTEGER PRIMARY KEY, b, c, d) of n rows and an index on b. */
static void write_table(size_t n)
{
    char err[200] = "", text[400];
    sqlb *w;
    CHECK(sqlb_create(db_path(), err, sizeof err, &w) == KT_OK);
    sqlb_move_lock_page(w, pending_byte);
    CHECK(sqlb_table(w, "t", "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT, d INTEGER)"));
    sort_item *items = malloc((n ? n : 1) * sizeof *items);
    sqlb_rec rec;
    for (size_t i = 0; i < n; i++) {
        sqlb_pos p = sqlb_rec_null(&rec, sqlb_rec_begin(4));
        p = sqlb_rec_int(&rec, p, value_b(i));
        p = sqlb_rec_text(&rec, p, text, value_c(i, text));
        p = i % 7 == 0 ? sqlb_rec_null(&rec, p) : sqlb_rec_int(&rec, p, (int64_t)i);
        sqlb_rec_end(&rec, p);
        CHECK(sqlb_row(w, rowid_of(i), &rec));
        items[i] = (sort_item){ value_b(i), rowid_of(i) };
    }
    CHECK(sqlb_end(w));
    qsort(items, n, sizeof *items, by_b_then_rowid);
    CHECK(sqlb_index(w, "t_b", "t", "CREATE INDEX t_b ON t(b)"));
    for (size_t i = 0; i < n; i++) {
        sqlb_pos p = sqlb_rec_int(&rec, sqlb_rec_begin(2), items[i].b);
        sqlb_rec_end(&rec, sqlb_rec_int(&rec, p, items[i].rowid));
        CHECK(sqlb_entry(w, &rec));
    }
    CHECK(sqlb_end(w));
    CHECK_INT(sqlb_close(w, true), KT_OK);
    CHECK_STR(err, "");
    free(items);
}

static void check_table(size_t n)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(db_path(), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlt_check_integrity(db);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM t"), n);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM t WHERE d IS NULL"), (n + 6) / 7);
    /* a sample of rows, value by value */
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT b, c, d FROM t WHERE a = ?", -1, &st, NULL) == SQLITE_OK);
    char text[400];
    for (size_t i = 0; i < n; i += 1 + i / 3) {
        sqlite3_bind_int64(st, 1, rowid_of(i));
        CHECK(sqlite3_step(st) == SQLITE_ROW);
        CHECK_INT(sqlite3_column_int64(st, 0), value_b(i));
        size_t len = value_c(i, text);
        CHECK_INT(sqlite3_column_bytes(st, 1), len);
        const unsigned char *got = sqlite3_column_text(st, 1);
        CHECK(len == 0 || (got && !memcmp(got, text, len)));
        if (i % 7 == 0) CHECK(sqlite3_column_type(st, 2) == SQLITE_NULL);
        else CHECK_INT(sqlite3_column_int64(st, 2), i);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    /* through the index: each edge value as often as it was written */
    for (size_t k = 0; n && k < NEDGE; k++) {
        char sql[128];
        size_t expect = 0;
        for (size_t i = 0; i < n; i++) expect += value_b(i) == edge_values[k];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM t INDEXED BY t_b WHERE b = %lld", (long long)edge_values[k]);
        CHECK_INT(sqlt_query_int(db, sql), expect);
    }
    sqlite3_close(db);
}

TEST(sqlite_btree_tables_read_back_at_every_depth)
{
    /* 0 rows (an empty root), one leaf, two levels, three (~10 rows a leaf) */
    static const size_t sizes[] = { 0, 1, 2, 9, 10, 11, 500, 4000, 40000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        write_table(sizes[s]);
        check_table(sizes[s]);
    }
    unlink(db_path());
}

/* Index entries of ~900 bytes (four a page, leaf or interior): every n up
 * to 200 gives another tree shape, including splits where the last page
 * of a level would get no entry.                                         */
TEST(sqlite_btree_index_shapes_with_large_entries)
{
    char big[1000];
    for (size_t n = 0; n <= 200; n++) {
        char err[200] = "";
        sqlb *w;
        CHECK(sqlb_create(db_path(), err, sizeof err, &w) == KT_OK);
        CHECK(sqlb_table(w, "u", "CREATE TABLE u(k INTEGER PRIMARY KEY, s TEXT)"));
        sqlb_rec rec;
        for (size_t i = 0; i < n; i++) {
            int len = snprintf(big, sizeof big, "%06zu", i);
            memset(big + len, 'x', 900 - (size_t)len);
            sqlb_rec_end(&rec, sqlb_rec_text(&rec, sqlb_rec_null(&rec, sqlb_rec_begin(2)), big, 900));
            CHECK(sqlb_row(w, (int64_t)i + 1, &rec));
        }
        CHECK(sqlb_end(w));
        CHECK(sqlb_index(w, "u_s", "u", "CREATE INDEX u_s ON u(s)"));
        for (size_t i = 0; i < n; i++) { /* texts in rowid order sort alike */
            int len = snprintf(big, sizeof big, "%06zu", i);
            memset(big + len, 'x', 900 - (size_t)len);
            sqlb_pos p = sqlb_rec_text(&rec, sqlb_rec_begin(2), big, 900);
            sqlb_rec_end(&rec, sqlb_rec_int(&rec, p, (int64_t)i + 1));
            CHECK(sqlb_entry(w, &rec));
        }
        CHECK(sqlb_end(w));
        CHECK_INT(sqlb_close(w, true), KT_OK);
        sqlite3 *db = NULL;
        CHECK(sqlite3_open_v2(db_path(), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
        sqlt_check_integrity(db);
        CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM u INDEXED BY u_s WHERE s >= ''"), n);
        if (n > 3) CHECK_INT(sqlt_query_int(db, "SELECT k FROM u INDEXED BY u_s WHERE s > '000002y' LIMIT 1"), 4);
        sqlite3_close(db);
    }
    unlink(db_path());
}

/* The file opens for writing too: libsqlite3 adds a table and rows to it. */
TEST(sqlite_btree_file_takes_more_tables_through_sqlite)
{
    write_table(3000);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(db_path(), &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE TABLE extra(x); INSERT INTO extra SELECT b FROM t; CREATE VIEW v AS SELECT * FROM t;",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlt_check_integrity(db);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM extra"), 3000);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM v"), 3000);
    sqlite3_close(db);
    unlink(db_path());
}

TEST(sqlite_btree_refuses_rows_out_of_order_and_too_large)
{
    char err[200] = "";
    sqlb *w;
    sqlb_rec rec;
    CHECK(sqlb_create(db_path(), err, sizeof err, &w) == KT_OK);
    CHECK(sqlb_table(w, "t", "CREATE TABLE t(a INTEGER PRIMARY KEY, b)"));
    sqlb_rec_end(&rec, sqlb_rec_int(&rec, sqlb_rec_null(&rec, sqlb_rec_begin(2)), 5));
    CHECK(sqlb_row(w, 10, &rec));
    CHECK(!sqlb_row(w, 10, &rec)); /* the same key again */
    CHECK(strstr(err, "same key") != NULL);
    CHECK_INT(sqlb_close(w, true), KT_EINPUT);

    char text[SQLB_TEXT_ROOM + 1];
    memset(text, 'y', sizeof text);
    CHECK(sqlb_create(db_path(), err, sizeof err, &w) == KT_OK);
    CHECK(sqlb_table(w, "t", "CREATE TABLE t(a INTEGER PRIMARY KEY, b)"));
    sqlb_rec_end(&rec, sqlb_rec_text(&rec, sqlb_rec_null(&rec, sqlb_rec_begin(2)), text, sizeof text));
    CHECK(rec.too_big);
    CHECK(!sqlb_row(w, 1, &rec));
    CHECK_INT(sqlb_close(w, true), KT_EINPUT);
    sqlb_pos p = sqlb_rec_begin(SQLB_MAX_COLS);
    for (int c = 0; c < SQLB_MAX_COLS; c++) p = sqlb_rec_int(&rec, p, c);
    sqlb_rec_end(&rec, p);
    CHECK(!rec.too_big);
    sqlb_rec_end(&rec, sqlb_rec_null(&rec, p)); /* one column more than declared */
    CHECK(rec.too_big);
    sqlb_rec_end(&rec, sqlb_rec_int(&rec, sqlb_rec_begin(2), 1)); /* one less */
    CHECK(rec.too_big);
    sqlb_rec_end(&rec, sqlb_rec_begin(SQLB_MAX_COLS + 1));
    CHECK(rec.too_big);
    unlink(db_path());
    CHECK(sqlb_create("/nonexistent-dir/x.db", err, sizeof err, &w) == KT_EINPUT);
    CHECK(strlen(err) > 0);
}

/* The file's size in pages. */
static size_t db_pages(void)
{
    struct stat st;
    return stat(db_path(), &st) == 0 ? (size_t)st.st_size / 4096 : 0;
}

/* The page holding SQLite's lock bytes stays empty (zeros, in no b-tree,
 * counted in the header): moved to pages a 4000-row table and its index
 * cross (the first page after page 1, a leaf, one amid the index, the
 * last two, where the interior levels go), the file reads back whole.   */
TEST(sqlite_btree_leaves_the_lock_byte_page_empty)
{
    write_table(4000);
    size_t n = db_pages();
    CHECK(n > 40);
    const size_t lock_pages[] = { 2, 17, n / 2, n - 1, n };
    for (size_t k = 0; k < sizeof lock_pages / sizeof lock_pages[0]; k++) {
        size_t lock = lock_pages[k];
        pending_byte = (uint32_t)(lock - 1) * 4096u;
        sqlt_pending_byte(pending_byte);
        write_table(4000);
        size_t len = 0;
        uint8_t *file = (uint8_t *)fx_read_file(db_path(), &len);
        CHECK_INT(len, (n + 1) * 4096); /* one page more */
        if (file && len >= lock * 4096) {
            uint32_t npages = (uint32_t)file[28] << 24 | (uint32_t)file[29] << 16 | (uint32_t)file[30] << 8 | file[31];
            CHECK_INT(npages, n + 1);
            size_t nonzero = 0;
            for (size_t i = 0; i < 4096; i++) nonzero += file[(lock - 1) * 4096 + i] != 0;
            CHECK_INT(nonzero, 0);
        }
        free(file);
        check_table(4000);
    }
    pending_byte = SQLB_PENDING_BYTE;
    sqlt_pending_byte(pending_byte);
    unlink(db_path());
}

/* A file past 1 GiB, where SQLite's real lock-byte page is (page 262145):
 * rows of 1000 bytes, four a page, read back through libsqlite3.          */
TEST(sqlite_btree_file_past_one_gib)
{
    enum { ROWS = 1060000, TEXT = 1000 };
    struct statvfs fs;
    if (statvfs("/tmp", &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize < (uint64_t)3 << 30) {
        kt_test_skip("less than 3 GiB free in /tmp for a 1.1 GB database");
        return;
    }
    char err[200] = "", text[TEXT];
    sqlb *w;
    CHECK(sqlb_create(db_path(), err, sizeof err, &w) == KT_OK);
    CHECK(sqlb_table(w, "big", "CREATE TABLE big(k INTEGER PRIMARY KEY, s TEXT)"));
    sqlb_rec rec;
    bool ok = true;
    for (int64_t i = 1; ok && i <= ROWS; i++) {
        memset(text, 'a' + (int)(i % 26), TEXT);
        sqlb_rec_end(&rec, sqlb_rec_text(&rec, sqlb_rec_null(&rec, sqlb_rec_begin(2)), text, TEXT));
        ok = sqlb_row(w, i, &rec);
    }
    CHECK(ok && sqlb_end(w));
    CHECK_INT(sqlb_close(w, true), KT_OK);
    CHECK_STR(err, "");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(db_path(), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sqlt_query_int(db, "PRAGMA page_count") > 262145);
    sqlt_check_integrity(db);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM big"), ROWS);
    /* the rows on the pages around the lock-byte page, value by value */
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM big WHERE k BETWEEN 1048000 AND 1049999 AND "
                                 "s = printf('%.1000c', char(97 + k % 26))"),
              2000);
    sqlite3_close(db);
    unlink(db_path());
}
