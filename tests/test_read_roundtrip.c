/*
 * test_read_roundtrip.c — the same run in two formats gives the same
 * answers: a Kineto trace is written out as rocprofv3 JSON and as an
 * Nsight Systems SQLite export (by writers of this test's own, from the
 * loaded model) and each is analysed beside it; kernels, temporal, idle
 * and launch tables must be equal cell for cell.
 */
#include "test.h"
#include "fixture.h"
#include "read_check.h"
#include "model/model_build.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Two GPUs, two streams, launches on one thread, a copy and an NCCL
 * kernel, times to the ns.                                            */
static const char KINETO[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":50,\"tid\":51,\"ts\":100.000,\"dur\":5.5,"
    "\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":3,\"ts\":110.250,\"dur\":40,"
    "\"args\":{\"device\":0,\"stream\":3,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":50,\"tid\":51,\"ts\":106.000,\"dur\":3,"
    "\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":3,\"ts\":155.001,\"dur\":20.5,"
    "\"args\":{\"device\":0,\"stream\":3,\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":50,\"tid\":51,\"ts\":120.000,\"dur\":2,"
    "\"args\":{\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Generic_1\",\"pid\":1,\"tid\":7,\"ts\":125.000,\"dur\":90,"
    "\"args\":{\"device\":1,\"stream\":7,\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":50,\"tid\":51,\"ts\":130.000,\"dur\":2,"
    "\"args\":{\"correlation\":4}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"elementwise\",\"pid\":1,\"tid\":8,\"ts\":140.000,\"dur\":30.125,"
    "\"args\":{\"device\":1,\"stream\":8,\"correlation\":4}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":50,\"tid\":51,\"ts\":300.000,\"dur\":2,"
    "\"args\":{\"correlation\":5}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"elementwise\",\"pid\":1,\"tid\":8,\"ts\":400.000,\"dur\":10,"
    "\"args\":{\"device\":1,\"stream\":8,\"correlation\":5}},"
    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":50,\"tid\":51,\"ts\":100.000},"
    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":3,\"ts\":110.250,\"bp\":\"e\"}"
    "]}";

static void __attribute__((format(printf, 4, 5))) out(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (*len + (size_t)n + 1 > *cap) {
        *cap = (*len + (size_t)n + 1) * 2;
        *buf = realloc(*buf, *cap);
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

/* The rank's kernels and runtime calls as rocprofv3 JSON: kind 1 is
 * HIP_RUNTIME_API (operation = the call's name id), kernel ids are name
 * ids, agent handle 1000 + device.                                    */
static char *as_rocprof(const kt_trace *t, size_t *len)
{
    const kt_rank *r = t->ranks[0];
    char *b = NULL;
    size_t cap = 0;
    *len = 0;
    out(&b, len, &cap, "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":50},\"agents\":[");
    for (int d = 0; d < 2; d++) out(&b, len, &cap, "%s{\"id\":{\"handle\":%d},\"type\":2,\"gpu_index\":%d}", d ? "," : "", 1000 + d, d);
    out(&b, len, &cap, "],\"strings\":{\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},"
                       "{\"kind\":\"HIP_RUNTIME_API\",\"operations\":[");
    size_t nstr = kt_strtab_count(t->strs);
    for (size_t s = 0; s < nstr; s++) out(&b, len, &cap, "%s\"%s\"", s ? "," : "", kt_strtab_get(t->strs, (uint32_t)s));
    out(&b, len, &cap, "]}]},\"kernel_symbols\":[");
    for (size_t s = 0; s < nstr; s++)
        out(&b, len, &cap, "%s{\"kernel_id\":%zu,\"formatted_kernel_name\":\"%s\"}", s ? "," : "", s, kt_strtab_get(t->strs, (uint32_t)s));
    out(&b, len, &cap, "],\"buffer_records\":{\"kernel_dispatch\":[");
    bool first = true;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        if (r->ev.kind[i] != KT_K_KERNEL) continue;
        out(&b, len, &cap,
            "%s{\"correlation_id\":{\"internal\":%lld},\"start_timestamp\":%lld,\"end_timestamp\":%lld,"
            "\"dispatch_info\":{\"agent_id\":{\"handle\":%lld},\"kernel_id\":%u},\"stream_id\":{\"handle\":%d}}",
            first ? "" : ",", (long long)kt_event_corr(r, i), (long long)r->ev.ts[i], (long long)(r->ev.ts[i] + r->ev.dur[i]),
            (long long)(1000 + kt_event_pid(r, i)), r->ev.name[i], kt_ev_stream(&r->ev, i));
        first = false;
    }
    out(&b, len, &cap, "],\"hip_api\":[");
    first = true;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        if (r->ev.kind[i] != KT_K_RUNTIME) continue;
        out(&b, len, &cap,
            "%s{\"kind\":1,\"operation\":%u,\"thread_id\":%lld,\"correlation_id\":{\"internal\":%lld},"
            "\"start_timestamp\":%lld,\"end_timestamp\":%lld}",
            first ? "" : ",", r->ev.name[i], (long long)kt_event_tid(r, i), (long long)kt_event_corr(r, i),
            (long long)r->ev.ts[i], (long long)(r->ev.ts[i] + r->ev.dur[i]));
        first = false;
    }
    out(&b, len, &cap, "]}}]}");
    return b;
}


TEST(roundtrip_kineto_as_rocprof_json_same_answers)
{
    kt_trace *k = NULL, *rp = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("rank-0.json", KINETO, sizeof KINETO - 1, NULL, &k, &fail), KT_OK);
    kt_diags_free(fail);
    if (!k) return;
    kt_tables *ts = NULL;
    kt_launch_options lo = kt_launch_defaults();
    CHECK_INT(kt_launch(k, NULL, &lo, &ts), KT_OK);
    CHECK(ts && kt_table_nrows(kt_tables_get(ts, 0)) == 5);
    kt_tables_free(ts);
    size_t len;
    char *json = as_rocprof(k, &len);
    fail = NULL;
    CHECK_INT(kt_load_buffer("rank-0_results.json", json, len, NULL, &rp, &fail), KT_OK);
    kt_diags_free(fail);
    if (rp) rd_same_answers(k, rp);
    free(json);
    kt_trace_free(k);
    kt_trace_free(rp);
}

static void sql(sqlite3 *db, const char *text)
{
    char *err = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &err) != SQLITE_OK) kt_test_fail(__FILE__, __LINE__, "%s: %s", text, err);
    sqlite3_free(err);
}

/* The rank's kernels and runtime calls as nsys exports them: names are
 * StringIds rows (id = the name's strtab id), deviceId = the kernel's pid,
 * globalTid = pid << 24 | tid, times in ns.                             */
static bool as_nsys(const kt_trace *t, const char *path)
{
    const kt_rank *r = t->ranks[0];
    sqlite3 *db = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    sql(db, "BEGIN; CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT, streamId INT,"
            " correlationId INT, globalPid INT, demangledName INT, shortName INT, mangledName INT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT,"
            " correlationId INT, nameId INT, returnValue INT);");
    char row[512];
    for (size_t s = 0; s < kt_strtab_count(t->strs); s++) {
        char *q = sqlite3_mprintf("INSERT INTO StringIds VALUES (%lld, %Q);", (long long)s, kt_strtab_get(t->strs, (uint32_t)s));
        sql(db, q);
        sqlite3_free(q);
    }
    for (uint32_t i = 0; i < r->ev.n; i++) {
        long long ts = (long long)r->ev.ts[i], end = ts + (long long)r->ev.dur[i], corr = (long long)kt_event_corr(r, i);
        if (r->ev.kind[i] == KT_K_KERNEL)
            snprintf(row, sizeof row, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%lld, %lld, %lld, 1, %d, %lld, 0, %u, %u, %u);",
                     ts, end, (long long)kt_event_pid(r, i), kt_ev_stream(&r->ev, i), corr, r->ev.name[i], r->ev.name[i],
                     r->ev.name[i]);
        else if (r->ev.kind[i] == KT_K_RUNTIME)
            snprintf(row, sizeof row, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%lld, %lld, 1, %lld, %lld, %u, 0);", ts,
                     end, (long long)(kt_event_pid(r, i) << 24 | kt_event_tid(r, i)), corr, r->ev.name[i]);
        else continue;
        sql(db, row);
    }
    sql(db, "COMMIT;");
    return sqlite3_close(db) == SQLITE_OK;
}

TEST(roundtrip_kineto_as_nsys_sqlite_same_answers)
{
    kt_trace *k = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("rank-0.json", KINETO, sizeof KINETO - 1, NULL, &k, &fail), KT_OK);
    kt_diags_free(fail);
    if (!k) return;
    char path[] = "/tmp/kt_roundtrip_XXXXXX.sqlite";
    int fd = mkstemps(path, 7);
    if (fd >= 0) close(fd);
    CHECK(fd >= 0 && as_nsys(k, path));
    kt_status st;
    kt_trace *ns = rd_load_path(path, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (ns) {
        char buf[64];
        CHECK_STR(kt_rank_source(ns->ranks[0], "kineta_format", buf, sizeof buf), "Nsight Systems SQLite");
        rd_same_answers(k, ns);
    }
    kt_trace_free(ns);
    kt_trace_free(k);
    unlink(path);
}
