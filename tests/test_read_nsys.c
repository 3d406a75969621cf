/*
 * test_read_nsys.c — Nsight Systems SQLite exports into the model: the
 * shared CloverLeaf export against its own CSV listing (Python's count),
 * and databases built here with known rows: another version's column
 * names, missing tables, wrong types.
 */
#include "test.h"
#include "read_check.h"
#include "fixture.h"
#include "model/index.h"
#include "model/model_build.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* kernels, their summed ns, copies: from pipit's CSV of the same profile */
static bool python_counts(const char *csv, long long v[3])
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import csv,sys\n"
             "k=n=c=0\n"
             "for r in csv.DictReader(open(sys.argv[1])):\n"
             " if r['Event Type']!='Enter': continue\n"
             " if r['type']=='kernel': k+=1; n+=int(r['_matching_timestamp'])-int(r['Timestamp (ns)'])\n"
             " else: c+=1\n"
             "print(k,n,c)\" '%s'",
             csv);
    return rd_command_ints(cmd, v, 3);
}

/* The shared CloverLeaf export's directory and database (false: absent,
 * the test skipped). */
static const char *sample(char *db, size_t cap)
{
    const char *dir = kt_test_shared_path("traces/other/nsys/cloverleaf");
    if (!dir) kt_test_skip("../shared/traces/other/nsys absent");
    else snprintf(db, cap, "%s/perlmutter-cloverleaf-cuda.sqlite", dir);
    return dir;
}

/* path loaded, with no failure (NULL: the test failed). */
static kt_trace *load_ok(const char *path)
{
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = rd_load_path(path, &st, &fail);
    CHECK_INT(st, KT_OK);
    kt_diags_free(fail);
    return t;
}

/* The sample loaded once its independent counts came, rows[0] its 1312
 * kernels or as many syncs (NULL: skipped, why, or failed). */
static kt_trace *load_counted(const char *db, bool counted, const long long *rows, const char *why)
{
    if (!counted) {
        kt_test_skip(why);
        return NULL;
    }
    CHECK_INT(rows[0], 1312);
    return load_ok(db);
}

TEST(nsys_sample_matches_its_csv)
{
    char db[1024], csv[1024];
    const char *dir = sample(db, sizeof db);
    if (!dir) return;
    snprintf(csv, sizeof csv, "%s/cloverleaf_gpu_trace.csv", dir);
    long long v[3] = { 0 };
    kt_trace *t = load_counted(db, python_counts(csv, v), v, "python3 could not read the CSV");
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int64_t total;
    CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), v[0]);
    CHECK_INT(total, v[1]);
    CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &total), v[2]);
    CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 3048); /* rows of the API CSV's Enter events */
    CHECK_INT(r->device_type, KT_DEV_CUDA);
    CHECK_INT(r->ndevices, 4);
    char buf[64];
    CHECK_STR(kt_rank_source(r, "kineta_profiler", buf, sizeof buf), "Nsight Systems 2024.5.1.113");
    /* every kernel was launched by a runtime call of the export */
    kt_tables *ts = NULL;
    kt_launch_options o = { .size = sizeof o, .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    CHECK_INT(kt_launch(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = ts ? kt_tables_get(ts, 0) : NULL;
    CHECK(tb && kt_table_nrows(tb) >= (size_t)v[0]);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The export's CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows (all Event Sync,
 * device-wide, each from a cudaDeviceSynchronize) as Kineto's cuda_sync
 * events: counted by the sqlite3 program, linked to their calls. */
TEST(nsys_sample_syncs_as_cuda_sync)
{
    char db[1024], cmd[2048];
    if (!sample(db, sizeof db)) return;
    snprintf(cmd, sizeof cmd,
             "sqlite3 -separator ' ' '%s' 'SELECT count(*), sum(syncType = 1), sum(\"end\" - start) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'",
             db);
    long long v[3] = { 0 };
    kt_trace *t = load_counted(db, rd_command_ints(cmd, v, 3), v,
                               "the sqlite3 program (Debian package sqlite3) could not count the rows");
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int64_t total;
    CHECK_INT(rd_count_kind(r, KT_K_CUDA_SYNC, &total), v[0]);
    CHECK_INT(total, v[2]);
    size_t event_sync = 0, linked = 0;
    for (uint32_t i = 0; r->idx && i < r->ev.n; i++) {
        if (r->ev.kind[i] != KT_K_CUDA_SYNC) continue;
        event_sync += !strcmp(kt_strtab_get(t->strs, r->ev.name[i]), "Event Sync") && kt_ev_stream(&r->ev, i) == -1;
        uint32_t c = kt_gpu_launcher(r, i);
        linked += c != KT_NONE && !strcmp(kt_strtab_get(t->strs, r->ev.name[c]), "cudaDeviceSynchronize");
    }
    CHECK_INT(event_sync, v[1]);
    CHECK_INT(linked, v[0]);
    kt_trace_free(t);
}

static void exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) kt_test_fail(__FILE__, __LINE__, "%s: %s", sql, err);
    sqlite3_free(err);
}

static void make_db(const char *path, const char *sql)
{
    unlink(path);
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    exec(db, sql);
    sqlite3_close(db);
}

/* An older export: kernel names in "name" (a string id), no grid columns,
 * no MEMCPY table, NVTX with inline text; one call launches one kernel. */
TEST(nsys_other_version_columns)
{
    char path[] = "/tmp/kt_nsys_XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    if (fd >= 0) close(fd);
    make_db(path, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                  "INSERT INTO StringIds VALUES (1,'gemm'),(2,'cudaLaunchKernel_v7000');"
                  "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT,"
                  " correlationId INT, name INT);"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (5000, 7500, 2, 13, 40, 1);"
                  "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT);"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (4000, 4100, 1234*16777216 + 55, 40, 2);"
                  "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT);"
                  "INSERT INTO NVTX_EVENTS VALUES (3000, 9000, 59, 'step', 1234*16777216 + 55),"
                  " (3500, NULL, 34, 'mark', 1234*16777216 + 55);");
    kt_trace *t = load_ok(path);
    if (t) {
        const kt_rank *r = t->ranks[0];
        int64_t total;
        CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 1);
        CHECK_INT(total, 2500);
        for (uint32_t i = 0; i < r->ev.n; i++) {
            const char *name = r->ev.name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, r->ev.name[i]);
            if (r->ev.kind[i] == KT_K_KERNEL) {
                CHECK_STR(name, "gemm");
                CHECK_INT(kt_event_pid(r, i), 2);
                CHECK_INT(kt_ev_stream(&r->ev, i), 13);
            }
            if (r->ev.kind[i] == KT_K_RUNTIME) {
                CHECK_STR(name, "cudaLaunchKernel");
                CHECK_INT(kt_event_pid(r, i), 1234);
                CHECK_INT(kt_event_tid(r, i), 55);
            }
            if (r->ev.kind[i] == KT_K_USER_ANNOTATION) CHECK_STR(name, "step");
        }
        CHECK_INT(rd_count_kind(r, KT_K_USER_ANNOTATION, &total), 1); /* the mark has no range */
        CHECK_INT(r->by_ph['s'], 1);
        kt_trace_free(t);
    }
    unlink(path);
}

/* Hostile databases: no profile tables, wrong types, absurd values. */
TEST(nsys_hostile_databases)
{
    static const char *const sql[] = {
        "CREATE TABLE t(x);",                                              /* not a profile */
        "CREATE TABLE StringIds(id, value); CREATE TABLE TARGET_INFO_GPU(id, name);", /* nsys, no rows */
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, streamId, correlationId, demangledName);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('a', x'00', 1e300, -5, 'c', 99999999999),"
        " (10, 5, NULL, NULL, NULL, NULL), (1, 9223372036854775807, 9223372036854775807, 1, 1, -1);"
        "CREATE TABLE StringIds(id, value); INSERT INTO StringIds VALUES (-3, 'neg'), (9000000000, 'big'), (1, NULL);",
    };
    static const kt_status want[] = { KT_EINPUT, KT_EINPUT, KT_OK };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        char path[] = "/tmp/kt_nsys_bad_XXXXXX.sqlite";
        int fd = mkstemps(path, 7);
        if (fd >= 0) close(fd);
        make_db(path, sql[i]);
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = rd_load_path(path, &st, &fail);
        CHECK_INT(st, want[i]);
        if (st != KT_OK) CHECK(fail && kt_diags_count(fail) > 0 && strstr(kt_diags_get(fail, 0)->file, "kt_nsys_bad"));
        kt_diags_free(fail);
        kt_trace_free(t);
        unlink(path);
    }
}

/* The export's bytes cut short, loaded from memory: errors, no crash. */
TEST(nsys_truncated_database)
{
    const char *dir = kt_test_shared_path("traces/other/nsys/cloverleaf");
    if (!dir) {
        kt_test_skip("../shared/traces/other/nsys absent");
        return;
    }
    char db[1024];
    snprintf(db, sizeof db, "%s/perlmutter-cloverleaf-cuda.sqlite", dir);
    size_t len = 0;
    char *bytes = fx_read_file(db, &len);
    CHECK(bytes != NULL);
    for (size_t cut = 100; bytes && cut < len; cut += len / 7) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        kt_status st = kt_load_buffer("cut.sqlite", bytes, cut, NULL, &t, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    free(bytes);
}

/* The cache keeps a reader's model like a Kineto file's: the second load
 * maps it, with the same tables and the same source format.          */
TEST(nsys_cached_model_equals_parsed)
{
    const char *dir = kt_test_shared_path("traces/other/nsys/cloverleaf");
    if (!dir) {
        kt_test_skip("../shared/traces/other/nsys absent");
        return;
    }
    char db[1024], cache[] = "/tmp/kt_nsys_cache_XXXXXX";
    snprintf(db, sizeof db, "%s/perlmutter-cloverleaf-cuda.sqlite", dir);
    CHECK(mkdtemp(cache) != NULL);
    kt_load_options o = { .size = sizeof o, .cache_dir = cache };
    const char *paths[] = { db };
    kt_tables *info[2] = { NULL, NULL }, *kern[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        CHECK_INT(kt_load(paths, 1, &o, &t, &fail), KT_OK);
        kt_diags_free(fail);
        if (!t) continue;
        CHECK_INT(t->ranks[0]->cache_map != NULL, i == 1); /* parsed, then mapped */
        kt_kernels_options ko = kt_kernels_defaults();
        ko.top = 0;
        CHECK_INT(kt_info(t, NULL, &info[i]), KT_OK);
        CHECK_INT(kt_kernels(t, NULL, &ko, &kern[i]), KT_OK);
        kt_trace_free(t);
    }
    for (size_t k = 0; info[0] && info[1] && k < 2; k++) {
        const kt_tables *const *pair = k ? (const kt_tables *const[]){ kern[0], kern[1] } : (const kt_tables *const[]){ info[0], info[1] };
        fx_check_same_table(kt_tables_get(pair[0], 0), kt_tables_get(pair[1], 0));
    }
    for (int i = 0; i < 2; i++) kt_tables_free(info[i]), kt_tables_free(kern[i]);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
    CHECK_INT(system(cmd), 0);
}
