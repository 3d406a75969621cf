/*
 * test_sqlite_export.c — `export --sqlite` read back through libsqlite3:
 * the file passes PRAGMA integrity_check, every event row equals the
 * model (aggregates of each column computed both ways), and the indexes
 * written page by page find what the model says: correlation lookups per
 * rank, launches by GPU event and by call, flows by their end.  On a
 * hand-built two-rank trace whose ranks are stored out of order, and on
 * shared traces when ../shared is present.
 */
#include "fixture.h"
#include "kineta.h"
#include "sqlite_check.h"
#include "test.h"

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

static void export_and_check(const kt_trace *t, uint32_t step)
{
    kt_sqlite_options o = { .size = sizeof o, .path = db_path() };
    kt_tables *out = NULL;
    kt_diags *why;
    CHECK_INT(kt_export_sqlite(t, NULL, &o, &out, &why), KT_OK);
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
