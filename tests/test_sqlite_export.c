/*
 * test_sqlite_export.c — `export --sqlite` read back through libsqlite3:
 * the file passes PRAGMA integrity_check, every event row equals the
 * model (aggregates of each column computed both ways), and the indexes
 * written page by page find what the model says: correlation lookups per
 * rank, launches by GPU event and by call, flows by their end.  On a
 * hand-built two-rank trace whose ranks are stored out of order, and on
 * shared traces when ../shared is present.  And what the file must never
 * be: laid over the lock-byte page, rolled back to a stale journal beside
 * it, half-written in place of the earlier file, or holding a ph that is
 * not UTF-8.
 */
#include "fixture.h"
#include "kineta.h"
#include "output/sqlite_btree.h"
#include "output/sqlite_export.h"
#include "sqlite_check.h"
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#define EVENT_KEY(rank, id) ((int64_t)(rank) * ((int64_t)1 << 32) + (int64_t)(id))

static const char *db_path(void)
{
    static char path[64];
    return sqlt_db_path("export", path, sizeof path);
}


/* Column sums the database and the model must agree on (wrapping sums of
 * each value mod a prime; -7 stands for NULL).                          */
typedef struct sums {
    int64_t n, ts, dur, corr, ext, stream, pid, name, kind_text, kind_code, rank_id;
} sums;

static int64_t fold(int64_t acc, int64_t v) { return (acc + ((v % 1000003) + 1000003) % 1000003) % 1000003; }

static sums model_sums(const kt_trace *t)
{
    sums s = { 0 };
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_rank *r = t->ranks[k];
        for (uint32_t i = 0; i < r->ev.n; i++) {
            s.n++;
            s.ts = fold(s.ts, r->ev.ts[i]);
            s.dur = fold(s.dur, r->ev.dur[i] == -1 ? -7 : r->ev.dur[i]);
            s.corr = fold(s.corr, kt_event_corr(r, i) == -1 ? -7 : kt_event_corr(r, i));
            s.ext = fold(s.ext, kt_event_ext_id(r, i) == -1 ? -7 : kt_event_ext_id(r, i));
            s.stream = fold(s.stream, kt_ev_stream(&r->ev, i) == -1 ? -7 : kt_ev_stream(&r->ev, i));
            s.pid = fold(s.pid, kt_event_pid(r, i));
            s.name = fold(s.name, r->ev.name[i] == KT_NONE ? -7 : (int64_t)r->ev.name[i]);
            const char *kind = kt_event_kind_name(r->ev.kind[i]);
            s.kind_text = fold(s.kind_text, (int64_t)strlen(kind) * 1000 + (unsigned char)kind[0]);
            s.kind_code = fold(s.kind_code, r->ev.kind[i]);
            s.rank_id = fold(s.rank_id, (int64_t)r->rank * 7919 + i);
        }
    }
    return s;
}

static int64_t sql_fold(sqlite3 *db, const char *expr)
{
    char sql[256];
    int64_t acc = 0;
    snprintf(sql, sizeof sql, "SELECT %s FROM events ORDER BY key", expr);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return INT64_MIN;
    while (sqlite3_step(st) == SQLITE_ROW) acc = fold(acc, sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    return acc;
}

static void check_events(sqlite3 *db, const kt_trace *t)
{
    sums m = model_sums(t);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM events"), m.n);
    CHECK_INT(sql_fold(db, "ts_ns"), m.ts);
    CHECK_INT(sql_fold(db, "COALESCE(dur_ns, -7)"), m.dur);
    CHECK_INT(sql_fold(db, "COALESCE(correlation, -7)"), m.corr);
    CHECK_INT(sql_fold(db, "COALESCE(external_id, -7)"), m.ext);
    CHECK_INT(sql_fold(db, "COALESCE(stream, -7)"), m.stream);
    CHECK_INT(sql_fold(db, "pid"), m.pid);
    CHECK_INT(sql_fold(db, "COALESCE(name_id, -7)"), m.name);
    CHECK_INT(sql_fold(db, "LENGTH(kind) * 1000 + UNICODE(kind)"), m.kind_text); /* named from kind_code */
    CHECK_INT(sql_fold(db, "kind_code"), m.kind_code);
    CHECK_INT(sql_fold(db, "rank * 7919 + id"), m.rank_id); /* computed from the key */
}

/* Each event's correlation found back through events_correlation: the
 * rows with that (rank, correlation) are the model's, in key order.      */
static void check_correlation_index(sqlite3 *db, const kt_trace *t, uint32_t step)
{
    int64_t correlated = 0; /* the partial index holds exactly these */
    for (size_t k = 0; k < t->nranks; k++)
        for (uint32_t i = 0; i < t->ranks[k]->ev.n; i++) correlated += t->ranks[k]->ev.corr[i] != -1;
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM events INDEXED BY events_correlation WHERE correlation IS NOT NULL"),
              correlated);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT key FROM events INDEXED BY events_correlation WHERE rank = ? AND "
                             "correlation = ? ORDER BY key LIMIT 1",
                             -1, &st, NULL) == SQLITE_OK);
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_rank *r = t->ranks[k];
        for (uint32_t i = 0; i < r->ev.n; i += step) {
            int64_t c = kt_event_corr(r, i);
            if (c == -1) continue;
            uint32_t first = 0;
            while (kt_event_corr(r, first) != c) first++;
            sqlite3_bind_int(st, 1, r->rank);
            sqlite3_bind_int64(st, 2, c);
            CHECK(sqlite3_step(st) == SQLITE_ROW);
            CHECK_INT(sqlite3_column_int64(st, 0), EVENT_KEY(r->rank, first));
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
}

static void check_links(sqlite3 *db, const kt_trace *t)
{
    int64_t launches = 0;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_rank *r = t->ranks[k];
        for (uint32_t ev = 0; ev < r->ev.n; ev++) launches += kt_kind_is_gpu(r->ev.kind[ev]) && kt_gpu_launcher(r, ev) != KT_NONE;
    }
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM launches"), launches);
    /* every launch found from both ends through the two indexes */
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM launches l WHERE l.rowid = (SELECT rowid FROM launches "
                            "INDEXED BY launches_gpu WHERE gpu_key = l.gpu_key)"),
              launches);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM launches l WHERE EXISTS (SELECT 1 FROM launches "
                            "INDEXED BY launches_call WHERE call_key = l.call_key AND rowid = l.rowid)"),
              launches);
    CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM flows f WHERE EXISTS (SELECT 1 FROM flows "
                            "INDEXED BY flows_end WHERE end_key = f.end_key AND rowid = f.rowid)"),
              sqlt_query_int(db, "SELECT COUNT(*) FROM flows"));
}

/* Exported with SQLite's lock bytes at pending_byte, read back. */
static void export_at_and_check(const kt_trace *t, uint32_t step, uint32_t pending_byte)
{
    kt_sqlite_options o = { .size = sizeof o, .path = db_path() };
    kt_tables *out = NULL;
    kt_diags *why;
    CHECK_INT(sqlite_export(t, NULL, &o, pending_byte, &out, &why), KT_OK);
    CHECK_STR(fx_why(why), "");
    kt_tables_free(out);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(db_path(), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlt_check_integrity(db);
    check_events(db, t);
    check_correlation_index(db, t, step);
    check_links(db, t);
    sqlite3_close(db);
    unlink(db_path());
}

static void export_and_check(const kt_trace *t, uint32_t step) { export_at_and_check(t, step, SQLB_PENDING_BYTE); }

TEST(export_sqlite_two_ranks_stored_out_of_order)
{
    kt_trace *t = fx_trace();
    int order[2] = { 3, 1 };
    for (int k = 0; k < 2; k++) {
        kt_rank *r = fx_rank(t, order[k]);
        for (int i = 0; i < 300; i++) {
            int64_t ts = 1000 * i, corr = 10 + (i * 7) % 50; /* correlations repeat, out of order */
            fx_event(t, r, 'X', "cpu_op", "aten::mm", ts, 400, 1, 1, -1, -1);
            fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", ts + 10, 20, 1, 1, -1, corr);
            fx_event(t, r, 'X', "kernel", i % 3 ? "gemm" : "elementwise", ts + 500, 300 + i, 0, 7, 7, corr);
        }
        fx_event(t, r, 'i', "instant", "mark", 5, -1, 1, 1, -1, -1);
    }
    fx_finish(t);
    export_and_check(t, 1);
    kt_trace_free(t);
}

/* events_correlation's entries are merged from the column when the
 * correlations form a few ascending runs (rank 0: three, as calls then
 * two streams), sorted when they form too many (rank 1: descending);
 * integrity_check verifies the index's order and entries either way.     */
TEST(export_sqlite_correlation_index_from_runs_or_sorted)
{
    kt_trace *t = fx_trace();
    kt_rank *r0 = fx_rank(t, 0), *r1 = fx_rank(t, 1);
    for (int i = 0; i < 200; i++)
        fx_event(t, r0, 'X', "cuda_runtime", "cudaLaunchKernel", 1000 * i, 20, 1, 1, -1, 100 + i);
    for (int s = 0; s < 2; s++)
        for (int i = s; i < 200; i += 2)
            fx_event(t, r0, 'X', "kernel", "gemm", 1000 * i + 500, 300, 0, 7 + s, 7 + s, 100 + i);
    for (int i = 0; i < 200; i++) {
        fx_event(t, r1, 'X', "cuda_runtime", "cudaLaunchKernel", 1000 * i, 20, 1, 1, -1, 5000 - i);
        fx_event(t, r1, 'X', "kernel", "gemm", 1000 * i + 500, 300, 0, 7, 7, 5000 - i);
    }
    fx_finish(t);
    export_and_check(t, 1);
    kt_trace_free(t);
}

TEST(export_sqlite_shared_traces_read_back)
{
    NEED_SHARED();
    /* µs integer times; ROCm; two ranks with NCCL and flows */
    static const char *const traces[] = { "traces/hta/df_index_resolver", "traces/hta/amd_trace",
                                          "traces/hta/trace_filter" };
    for (size_t k = 0; k < sizeof traces / sizeof traces[0]; k++) {
        const char *path = kt_test_shared_path(traces[k]);
        if (!path) continue;
        kt_trace *t = NULL;
        CHECK_INT(kt_load(&path, 1, NULL, &t, NULL), KT_OK);
        if (!t) continue;
        export_and_check(t, 97);
        kt_trace_free(t);
    }
}

/* A path that names a device or a directory is refused, and left as it was. */
TEST(export_sqlite_refuses_paths_that_are_not_files)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "k", 100, 50, 0, 7, 7, 3);
    fx_finish(t);
    static const char *const paths[] = { "/dev/null", "/tmp" };
    for (size_t i = 0; i < 2; i++) {
        kt_sqlite_options o = { .size = sizeof o, .path = paths[i] };
        kt_tables *out = NULL;
        kt_diags *why;
        CHECK_INT(kt_export_sqlite(t, NULL, &o, &out, &why), KT_EINPUT);
        CHECK(out == NULL);
        CHECK_STR(fx_why(why), "not a regular file");
        CHECK(access(paths[i], F_OK) == 0);
    }
    kt_trace_free(t);
}

/* Two ranks of 3000 events, with launches and correlations. */
static kt_trace *busy_trace(void)
{
    kt_trace *t = fx_trace();
    for (int k = 0; k < 2; k++) {
        kt_rank *r = fx_rank(t, k);
        for (int i = 0; i < 1000; i++) {
            int64_t ts = 1000 * i, corr = 10 + i;
            fx_event(t, r, 'X', "cpu_op", "aten::mm", ts, 400, 1, 1, -1, -1);
            fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", ts + 10, 20, 1, 1, -1, corr);
            fx_event(t, r, 'X', "kernel", i % 3 ? "gemm" : "elementwise", ts + 500, 300 + i, 0, 7, 7, corr);
        }
    }
    fx_finish(t);
    return t;
}

/* The export's pages go around the lock-byte page, moved into its first
 * pages (SQLite's own is 1 GiB in: test_sqlite_btree.c and
 * docs/sqlite.md for a real export past it).                             */
TEST(export_sqlite_skips_the_lock_byte_page)
{
    kt_trace *t = busy_trace();
    static const uint32_t lock_pages[] = { 2, 17, 40 };
    for (size_t k = 0; k < sizeof lock_pages / sizeof lock_pages[0]; k++) {
        sqlt_pending_byte((lock_pages[k] - 1) * 4096u);
        export_at_and_check(t, 1, (lock_pages[k] - 1) * 4096u);
    }
    sqlt_pending_byte(SQLB_PENDING_BYTE);
    kt_trace_free(t);
}

/* A fresh directory for one test's files (its name in dir). */
static void scratch_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/kineta-export-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

/* The entries of dir other than . and .. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(bytes, 1, len, f) == len);
    if (f) fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    size_t len = 0;
    char *bytes = fx_read_file(from, &len);
    CHECK(bytes && len > 0);
    if (bytes) write_bytes(to, bytes, len);
    free(bytes);
}

static void exec_ok(sqlite3 *db, const char *sql) { CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK); }

/* old.db, a database of its own (table old_rows), as a connection in the
 * middle of a transaction leaves it: its "-journal" hot (pages spilled
 * to the file, the journal synced) or, in WAL mode, its rows only in the
 * "-wal".  Its companion is copied to target's before the connection ends
 * (a crash would have left it there).                                    */
static void plant_companion(const char *dir, const char *target, bool wal)
{
    char old[128], from[160], to[160];
    snprintf(old, sizeof old, "%s/old.db", dir);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(old, &db) == SQLITE_OK);
    exec_ok(db, wal ? "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;" : "PRAGMA cache_size=2;");
    exec_ok(db, "CREATE TABLE old_rows(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)"
                " INSERT INTO old_rows SELECT randomblob(200) FROM n;");
    if (!wal) exec_ok(db, "BEGIN; UPDATE old_rows SET x = randomblob(300);");
    snprintf(from, sizeof from, "%s%s", old, wal ? "-wal" : "-journal");
    snprintf(to, sizeof to, "%s%s", target, wal ? "-wal" : "-journal");
    copy_file(from, to);
    if (!wal) copy_file(old, target); /* the journal's own database, half-updated */
    sqlite3_close(db);
    unlink(old);
}

/* A stale hot journal or WAL beside the target is not applied to the
 * export: the file holds the export's tables, not the old database's.   */
TEST(export_sqlite_ignores_a_stale_journal_or_wal_beside_the_target)
{
    kt_trace *t = busy_trace();
    for (int wal = 0; wal < 2; wal++) {
        char dir[64], target[96], companion[112];
        scratch_dir(dir, sizeof dir);
        snprintf(target, sizeof target, "%s/trace.db", dir);
        plant_companion(dir, target, wal);
        snprintf(companion, sizeof companion, "%s%s", target, wal ? "-wal" : "-journal");
        CHECK(access(companion, F_OK) == 0);
        kt_sqlite_options o = { .size = sizeof o, .path = target };
        kt_tables *out = NULL;
        CHECK_INT(kt_export_sqlite(t, NULL, &o, &out, NULL), KT_OK);
        kt_tables_free(out);
        CHECK(access(companion, F_OK) != 0);
        sqlite3 *db = NULL;
        CHECK(sqlite3_open_v2(target, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
        sqlt_check_integrity(db);
        CHECK_INT(sqlt_query_int(db, "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'old_rows'"), 0);
        check_events(db, t);
        check_links(db, t);
        sqlite3_close(db);
        CHECK_INT(dir_entries(dir), 1); /* trace.db alone */
        unlink(target);
        rmdir(dir);
    }
    kt_trace_free(t);
}

/* A failed export (two ranks numbered alike: their rows would share keys)
 * returns an error and leaves the earlier file as it was, and nothing
 * else, in the directory.                                                */
TEST(export_sqlite_failure_keeps_the_earlier_file)
{
    char dir[64], target[96];
    scratch_dir(dir, sizeof dir);
    snprintf(target, sizeof target, "%s/trace.db", dir);
    write_bytes(target, "an earlier file", 15);
    kt_trace *t = fx_trace();
    for (int k = 0; k < 2; k++) fx_event(t, fx_rank(t, 5), 'X', "kernel", "k", 100, 50, 0, 7, 7, 3);
    fx_finish(t);
    kt_sqlite_options o = { .size = sizeof o, .path = target };
    kt_tables *out = NULL;
    kt_diags *why;
    CHECK_INT(kt_export_sqlite(t, NULL, &o, &out, &why), KT_EINPUT);
    CHECK(out == NULL);
    CHECK(strstr(fx_why(why), "same key") != NULL);
    size_t len = 0;
    char *kept = fx_read_file(target, &len);
    CHECK(kept && len == 15 && !memcmp(kept, "an earlier file", 15));
    free(kept);
    CHECK_INT(dir_entries(dir), 1);
    unlink(target);
    rmdir(dir);
    kt_trace_free(t);
}

/* events.ph holds text only when the file's ph is one printable ASCII
 * character: the byte kept of "é", or of "" (NUL), is NULL, not a text
 * that is not UTF-8 (Python's sqlite3 fails on the column otherwise).    */
TEST(export_sqlite_ph_is_printable_ascii_or_null)
{
    char dir[64], trace[96], target[96];
    scratch_dir(dir, sizeof dir);
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    snprintf(target, sizeof target, "%s/t.db", dir);
    static const char json[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2},"
        "{\"ph\": \"\xc3\xa9\", \"cat\": \"cpu_op\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 2},"
        "{\"ph\": \"\", \"cat\": \"cpu_op\", \"name\": \"c\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 2},"
        "{\"ph\": \"i\", \"cat\": \"cpu_op\", \"name\": \"d\", \"pid\": 1, \"tid\": 1, \"ts\": 7, \"s\": \"t\"}]}";
    write_bytes(trace, json, sizeof json - 1);
    kt_trace *t = NULL;
    const char *path = trace;
    CHECK_INT(kt_load(&path, 1, NULL, &t, NULL), KT_OK);
    kt_sqlite_options o = { .size = sizeof o, .path = target };
    kt_tables *out = NULL;
    CHECK_INT(t ? kt_export_sqlite(t, NULL, &o, &out, NULL) : KT_EINPUT, KT_OK);
    kt_tables_free(out);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2(target, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT s.value, e.ph FROM events e JOIN strings s ON s.id = e.name_id ORDER BY e.key",
                             -1, &st, NULL) == SQLITE_OK);
    static const char *const expect[][2] = { { "a", "X" }, { "b", NULL }, { "c", NULL }, { "d", "i" } };
    size_t rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW && rows < 4) {
        CHECK_STR((const char *)sqlite3_column_text(st, 0), expect[rows][0]);
        if (expect[rows][1]) CHECK_STR((const char *)sqlite3_column_text(st, 1), expect[rows][1]);
        else CHECK_INT(sqlite3_column_type(st, 1), SQLITE_NULL);
        rows++;
    }
    CHECK_INT(rows, 4);
    sqlite3_finalize(st);
    sqlite3_close(db);
    kt_trace_free(t);
    unlink(trace);
    unlink(target);
    rmdir(dir);
}
