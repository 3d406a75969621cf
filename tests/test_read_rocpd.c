/*
 * test_read_rocpd.c — rocpd databases into the model.  No public rocpd
 * file exists: databases are built here from ROCm's schema
 * (../shared/spec/rocpd) with known rows, once with the schema's views and
 * once with only its uuid-suffixed tables.
 */
#include "test.h"
#include "fixture.h"
#include "read_check.h"
#include "model/model_build.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* text with every {{uuid}} and {{guid}} replaced (caller frees) */
static char *instantiate(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(2 * n + 1), *o = out;
    for (const char *p = text; out && *p;) {
        if (!strncmp(p, "{{uuid}}", 8)) o += sprintf(o, "_0a1b2c"), p += 8;
        else if (!strncmp(p, "{{guid}}", 8)) o += sprintf(o, "g0"), p += 8;
        else *o++ = *p++;
    }
    if (out) *o = '\0';
    return out;
}

static void exec_file(sqlite3 *db, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", kt_test_shared_path(rel));
    char *text = fx_read_file(path, NULL), *sql = text ? instantiate(text) : NULL, *err = NULL;
    CHECK(sql != NULL);
    if (sql && sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) kt_test_fail(__FILE__, __LINE__, "%s: %s", rel, err);
    sqlite3_free(err);
    free(sql);
    free(text);
}

static const char ROWS[] =
    "INSERT INTO rocpd_string_0a1b2c(id, string) VALUES (1,'HIP_RUNTIME_API'),(2,'hipLaunchKernel'),(3,'KERNEL_DISPATCH'),"
    " (4,'MEMORY_COPY_HOST_TO_DEVICE'),(5,'MARKER_CORE_API'),(6,'step 1'),(7,'MEMORY_COPY');"
    "INSERT INTO rocpd_info_node_0a1b2c(id, hash, machine_id) VALUES (1, 1, 'm');"
    "INSERT INTO rocpd_info_process_0a1b2c(id, nid, pid) VALUES (1, 1, 4242);"
    "INSERT INTO rocpd_info_thread_0a1b2c(id, nid, pid, tid) VALUES (1, 1, 1, 4243);"
    "INSERT INTO rocpd_info_agent_0a1b2c(id, nid, pid, type, absolute_index, logical_index, type_index, name, product_name)"
    " VALUES (1,1,1,'CPU',0,0,0,'cpu',NULL),(2,1,1,'GPU',2,1,0,'gfx942','AMD Instinct MI300X'),"
    " (3,1,1,'GPU',3,2,1,'gfx942','AMD Instinct MI300X');"
    "INSERT INTO rocpd_info_queue_0a1b2c(id, nid, pid, name) VALUES (1,1,1,'q');"
    "INSERT INTO rocpd_info_stream_0a1b2c(id, nid, pid, name) VALUES (5,1,1,'stream 5');"
    "INSERT INTO rocpd_info_code_object_0a1b2c(id, nid, pid, agent_id) VALUES (1,1,1,3);"
    "INSERT INTO rocpd_info_kernel_symbol_0a1b2c(id, nid, pid, code_object_id, kernel_name, display_name)"
    " VALUES (1,1,1,1,'_Z4gemmv','gemm()');"
    "INSERT INTO rocpd_event_0a1b2c(id, category_id, correlation_id) VALUES (1,1,9),(2,3,9),(3,7,10),(4,5,11);"
    "INSERT INTO rocpd_region_0a1b2c(id, nid, pid, tid, start, end, name_id, event_id)"
    " VALUES (1,1,1,1,1000,1500,2,1),(2,1,1,1,900,5000,6,4);"
    "INSERT INTO rocpd_kernel_dispatch_0a1b2c(id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id,"
    " start, end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z,"
    " grid_size_x, grid_size_y, grid_size_z, event_id) VALUES (1,1,1,1,3,1,1,1,5,2000,2600,0,256,64,1,1,1024,1,1,2);"
    "INSERT INTO rocpd_memory_copy_0a1b2c(id, nid, pid, tid, start, end, name_id, dst_agent_id, src_agent_id, size,"
    " queue_id, stream_id, event_id) VALUES (1,1,1,1,3000,3400,4,2,1,8192,1,5,3);";

static void check_rows(const char *path)
{
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = rd_load_path(path, &st, &fail);
    CHECK_INT(st, KT_OK);
    if (st != KT_OK && fail && kt_diags_count(fail)) fprintf(stderr, "    %s\n", kt_diags_get(fail, 0)->message);
    kt_diags_free(fail);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int64_t total;
    CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 1);
    CHECK_INT(total, 600);
    CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &total), 1);
    CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 1);
    CHECK_INT(rd_count_kind(r, KT_K_USER_ANNOTATION, &total), 1);
    CHECK_INT(r->by_ph['s'], 1); /* the call reaches its kernel */
    CHECK_INT(r->device_type, KT_DEV_ROCM);
    for (uint32_t i = 0; i < r->ev.n; i++) {
        const char *name = r->ev.name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, r->ev.name[i]);
        if (r->ev.kind[i] == KT_K_KERNEL) {
            CHECK_STR(name, "gemm()");
            CHECK_INT(kt_event_pid(r, i), 1); /* agent 3 is GPU 1 */
            CHECK_INT(kt_ev_stream(&r->ev, i), 5);
            CHECK_INT(kt_event_corr(r, i), 9);
            CHECK_INT(kt_event_arg_int(r, i, KT_ARG_GRID_X, -1), 1024);
        } else if (r->ev.kind[i] == KT_K_MEMCPY) {
            CHECK_STR(name, "Memcpy HtoD (Host -> Device)");
            CHECK_INT(kt_event_pid(r, i), 0);
            CHECK_INT(kt_event_arg_int(r, i, KT_ARG_BYTES, -1), 8192);
        } else if (r->ev.kind[i] == KT_K_RUNTIME) {
            CHECK_STR(name, "hipLaunchKernel");
            CHECK_INT(kt_event_pid(r, i), 4242);
            CHECK_INT(kt_event_tid(r, i), 4243);
        } else if (r->ev.kind[i] == KT_K_USER_ANNOTATION) {
            CHECK_STR(name, "step 1");
        }
    }
    char buf[32];
    CHECK_STR(kt_rank_source(r, "kineta_format", buf, sizeof buf), "rocpd SQLite");
    kt_trace_free(t);
}

/* The schema's tables filled with rows (NULL: ROWS); the database's path. */
static bool build(char *path, bool views, const char *rows)
{
    if (!kt_test_shared_path("spec/rocpd/rocpd_tables.sql")) {
        kt_test_skip("../shared/spec/rocpd absent");
        return false;
    }
    int fd = mkstemps(path, 3);
    if (fd >= 0) close(fd);
    unlink(path);
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    exec_file(db, "spec/rocpd/rocpd_tables.sql");
    if (views) {
        exec_file(db, "spec/rocpd/rocpd_views.sql");
        exec_file(db, "spec/rocpd/data_views.sql");
    }
    char *err = NULL;
    if (sqlite3_exec(db, rows ? rows : ROWS, NULL, NULL, &err) != SQLITE_OK) kt_test_fail(__FILE__, __LINE__, "rows: %s", err);
    sqlite3_free(err);
    sqlite3_close(db);
    return true;
}

static void build_and_check(bool views)
{
    char path[] = "/tmp/kt_rocpd_XXXXXX.db";
    if (!build(path, views, NULL)) return;
    check_rows(path);
    unlink(path);
}

TEST(rocpd_schema_with_views) { build_and_check(true); }
TEST(rocpd_schema_tables_only) { build_and_check(false); }

/* Rows of the wrong types and an empty database of the schema: a clear
 * error or the good rows, never a crash.                              */
TEST(rocpd_hostile_rows)
{
    char path[] = "/tmp/kt_rocpd_XXXXXX.db";
    if (!build(path, true, "SELECT 1;")) return;
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = rd_load_path(path, &st, &fail);
    CHECK_INT(st, KT_EINPUT); /* the schema without rows: nothing to analyse */
    CHECK(fail && kt_diags_count(fail) && strstr(kt_diags_get(fail, 0)->message, "rocpd database with no"));
    kt_diags_free(fail);
    kt_trace_free(t);
    unlink(path);
    char bad[sizeof ROWS + 512];
    snprintf(bad, sizeof bad, "%s%s", ROWS,
             "PRAGMA foreign_keys = OFF;"
             "INSERT INTO rocpd_kernel_dispatch_0a1b2c(id, nid, pid, agent_id, kernel_id, dispatch_id, queue_id, stream_id,"
             " start, end, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z)"
             " VALUES (2,1,1,99,99,2,1,5,'x',x'00',1,1,1,1,1,1),(3,1,1,3,1,3,1,5,900,100,1,1,1,1,1,1);");
    char path2[] = "/tmp/kt_rocpd_XXXXXX.db";
    if (!build(path2, true, bad)) return;
    fail = NULL;
    t = rd_load_path(path2, &st, &fail);
    CHECK_INT(st, KT_OK);
    kt_diags_free(fail);
    if (t) {
        int64_t total;
        CHECK_INT(rd_count_kind(t->ranks[0], KT_K_KERNEL, &total), 1); /* the two bad rows skipped */
        kt_trace_free(t);
    }
    unlink(path2);
}

/* Records whose ids name no row of the small tables, or a row whose value
 * is NULL, read as the join reads them: an agent without a row or without
 * indexes is its own id as the device, a kernel symbol or string without
 * a row leaves the name empty, a process or thread without a row is its
 * own id.  An id stored as text matches as SQL compares it.            */
TEST(rocpd_ids_without_rows)
{
    char rows[sizeof ROWS + 1024];
    snprintf(rows, sizeof rows, "%s%s", ROWS,
             "PRAGMA foreign_keys = OFF;"
             "INSERT INTO rocpd_info_agent_0a1b2c(id, nid, pid, type, absolute_index, logical_index, type_index, name)"
             " VALUES (7,1,1,'GPU',NULL,NULL,NULL,'gfx90a');"
             "INSERT INTO rocpd_info_kernel_symbol_0a1b2c(id, nid, pid, code_object_id, kernel_name, display_name)"
             " VALUES (2,1,1,1,'_Z3foov',NULL);"
             "INSERT INTO rocpd_kernel_dispatch_0a1b2c(id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id,"
             " start, end, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z)"
             " VALUES (4,1,1,1,7,2,4,1,5,2700,2800,1,1,1,1,1,1),(5,1,1,1,42,77,5,1,5,2900,2950,1,1,1,1,1,1),"
             " (6,1,1,1,'3',1,6,1,5,3100,3150,1,1,1,1,1,1);"
             "INSERT INTO rocpd_event_0a1b2c(id, category_id, correlation_id) VALUES (5,1,12);"
             "INSERT INTO rocpd_region_0a1b2c(id, nid, pid, tid, start, end, name_id, event_id)"
             " VALUES (3,1,5,9,2660,2670,55,5);");
    char path[] = "/tmp/kt_rocpd_XXXXXX.db";
    if (!build(path, true, rows)) return;
    kt_status st;
    kt_trace *t = rd_load_path(path, &st, NULL);
    CHECK_INT(st, KT_OK);
    unlink(path);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int seen = 0;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        const char *name = r->ev.name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, r->ev.name[i]);
        int64_t ts = r->ev.ts[i];
        if (ts == 2700 && r->ev.kind[i] == KT_K_KERNEL) { /* agent 7: no index */
            CHECK_INT(kt_event_pid(r, i), 7);
            CHECK_STR(name, "_Z3foov");
            seen++;
        } else if (ts == 2900 && r->ev.kind[i] == KT_K_KERNEL) { /* agent 42, symbol 77: no rows */
            CHECK_INT(kt_event_pid(r, i), 42);
            CHECK_STR(name, "");
            seen++;
        } else if (ts == 3100 && r->ev.kind[i] == KT_K_KERNEL) { /* agent '3': GPU 1 */
            CHECK_INT(kt_event_pid(r, i), 1);
            CHECK_STR(name, "gemm()");
            seen++;
        } else if (ts == 2660 && r->ev.kind[i] == KT_K_RUNTIME) { /* process 5, thread 9, string 55: no rows */
            CHECK_INT(kt_event_pid(r, i), 5);
            CHECK_INT(kt_event_tid(r, i), 9);
            CHECK_STR(name, "");
            seen++;
        }
    }
    CHECK_INT(seen, 4);
    kt_trace_free(t);
}

/* A database without its agent, kernel symbol or thread tables (a partial
 * export, a schema of another version): its kernels and calls are still
 * read, their devices, names and threads falling back to the ids, and a
 * warning names each missing table; regions whose event has no category
 * the reader models are counted in a warning, not dropped unsaid.      */
TEST(rocpd_missing_small_tables_keep_their_rows)
{
    char rows[sizeof ROWS + 512];
    snprintf(rows, sizeof rows, "%s%s", ROWS,
             "PRAGMA foreign_keys = OFF;"
             "INSERT INTO rocpd_event_0a1b2c(id, category_id, correlation_id) VALUES (6,3,13);"
             "INSERT INTO rocpd_region_0a1b2c(id, nid, pid, tid, start, end, name_id, event_id)"
             " VALUES (3,1,1,1,2660,2670,2,6);"
             "DROP TABLE rocpd_info_agent_0a1b2c; DROP TABLE rocpd_info_kernel_symbol_0a1b2c;"
             "DROP TABLE rocpd_info_thread_0a1b2c;");
    char path[] = "/tmp/kt_rocpd_XXXXXX.db";
    if (!build(path, false, rows)) return;
    kt_status st;
    kt_trace *t = rd_load_path(path, &st, NULL);
    unlink(path);
    CHECK_INT(st, KT_OK);
    if (!t) return;
    const char *want[] = { "no table rocpd_info_agent: kernels' devices are their agent ids",
                           "no table rocpd_info_kernel_symbol: kernels have no names",
                           "no table rocpd_info_thread: regions' threads are their ids",
                           "1 regions left out: their event has no category this reader models" };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (size_t i = 0; i < kt_diags_count(&t->diags); i++) found |= strstr(kt_diags_get(&t->diags, i)->message, want[w]) != NULL;
        if (!found) kt_test_fail(__FILE__, __LINE__, "no warning \"%s\"", want[w]);
    }
    const kt_rank *r = t->ranks[0];
    int64_t total;
    CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 1);
    CHECK_INT(total, 600);
    CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 1);
    for (uint32_t i = 0; i < r->ev.n; i++) {
        if (r->ev.kind[i] == KT_K_KERNEL) {
            CHECK_INT(kt_event_pid(r, i), 3); /* agent 3, no agent table: its id */
            CHECK_INT(r->ev.name[i], KT_NONE);
        } else if (r->ev.kind[i] == KT_K_RUNTIME) {
            CHECK_INT(kt_event_pid(r, i), 4242);
            CHECK_INT(kt_event_tid(r, i), 1); /* thread row 1, no thread table */
        }
    }
    kt_trace_free(t);
}
