/*
 * nsys.c — an Nsight Systems SQLite export (`nsys export --type sqlite`)
 * into the model.
 *
 * CUPTI's activity tables become what Kineto (itself a CUPTI client) writes
 * for the same records: kernels, copies and sets on pid = device, tid =
 * stream; runtime calls on their thread with the correlation id that links
 * them to their GPU work (names without nsys's "_v7000" suffix, as Kineto
 * writes them); synchronizations as cuda_sync waits; NVTX push/pop and
 * start/end ranges as user annotations.
 * Names are ids into StringIds.  Tables and columns may be missing in
 * other versions: what is absent is skipped, never an error.  Times are ns
 * from the start of the capture already.
 */
#include "load/sqlite_reader.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct nsys {
    kt_build *b;
    sqlite3 *db;
    uint32_t *str;   /* StringIds.id -> strtab id (dense: ids are small) */
    uint32_t *call;  /* StringIds.id -> its call name (call_name), once  */
    size_t nstr;
    uint64_t rows, dropped; /* rows read; rows without valid start/end */
} nsys;

#define WANT(...) ((const char *const[]){ __VA_ARGS__ })
#define NWANT(...) (sizeof WANT(__VA_ARGS__) / sizeof(const char *))

static bool read_strings(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "StringIds", WANT("id", "value"), 2, "ORDER BY id");
    int64_t max = -1;
    if (st) {
        sqlite3_stmt *m = NULL;
        if (sqlite3_prepare_v2(n->db, "SELECT max(id) FROM StringIds", -1, &m, NULL) == SQLITE_OK && sqlite3_step(m) == SQLITE_ROW)
            max = kt_sql_int(m, 0, -1);
        sqlite3_finalize(m);
    }
    if (max >= (1 << 26)) max = (1 << 26) - 1; /* ids beyond: names unknown */
    n->nstr = (size_t)(max + 1);
    n->str = malloc((n->nstr ? n->nstr : 1) * sizeof *n->str);
    n->call = malloc((n->nstr ? n->nstr : 1) * sizeof *n->call);
    if (!n->str || !n->call) {
        sqlite3_finalize(st);
        return false;
    }
    for (size_t i = 0; i < n->nstr; i++) n->str[i] = n->call[i] = KT_NONE;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = kt_sql_int(st, 0, -1);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if (id >= 0 && (size_t)id < n->nstr && v) n->str[id] = kt_build_str(n->b, v, (size_t)sqlite3_column_bytes(st, 1));
    }
    sqlite3_finalize(st);
    return !n->b->oom;
}

static uint32_t string_id(const nsys *n, sqlite3_value *v)
{
    int64_t id = kt_sql_vint(v, -1);
    return id >= 0 && (size_t)id < n->nstr ? n->str[id] : KT_NONE;
}

static uint32_t string_of(const nsys *n, sqlite3_stmt *st, int col) { return string_id(n, kt_sql_val(st, col)); }

/* Text of a TEXT column, or the StringIds entry of an integer one. */
static uint32_t text_or_id(nsys *n, sqlite3_stmt *st, int col)
{
    sqlite3_value *v = kt_sql_val(st, col);
    if (sqlite3_value_type(v) == SQLITE_TEXT)
        return kt_build_str(n->b, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v));
    return string_id(n, v);
}

/* globalTid / globalPid: pid in bits 24..47, tid in bits 0..23. */
static int64_t pid_of(int64_t g) { return (g >> 24) & 0xFFFFFF; }
static int64_t tid_of(int64_t g) { return g & 0xFFFFFF; }

static bool gpu_times(nsys *n, sqlite3_stmt *st, kt_gpu_op *op)
{
    int64_t s = kt_sql_time(st, 0), e = kt_sql_time(st, 1);
    n->rows++;
    if (s < 0 || e < s) {
        n->dropped++;
        return false;
    }
    op->ts = s;
    op->dur = e - s;
    op->device = kt_sql_int(st, 2, 0);
    op->stream = kt_sql_int(st, 3, 0);
    op->corr = kt_sql_int(st, 4, -1);
    return true;
}

static void read_kernels(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(
        n->db, "CUPTI_ACTIVITY_KIND_KERNEL",
        WANT("start", "end", "deviceId", "streamId", "correlationId", "demangledName|name", "shortName",
             "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
             "dynamicSharedMemory"),
        16, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_KERNEL);
        if (!gpu_times(n, st, &op)) continue;
        op.name = text_or_id(n, st, 5);
        if (op.name == KT_NONE) op.name = text_or_id(n, st, 6);
        for (int k = 0; k < 3; k++) op.grid[k] = kt_sql_int(st, 7 + k, 0), op.block[k] = kt_sql_int(st, 10 + k, 0);
        op.regs = kt_sql_int(st, 13, -1);
        sqlite3_value *shared = kt_sql_val(st, 14);
        if (sqlite3_value_type(shared) != SQLITE_NULL) op.shared_mem = sqlite3_value_int64(shared) + kt_sql_int(st, 15, 0);
        kt_build_gpu(n->b, &op);
    }
    sqlite3_finalize(st);
}

/* CUPTI's memory kinds and copy kinds, as Kineto names copies. */
static const char *mem_kind(int64_t k)
{
    static const char *const kinds[] = { "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
                                         "Managed Static" };
    return k >= 0 && k < 8 ? kinds[k] : "Unknown";
}

static const char *copy_kind(int64_t k)
{
    static const char *const kinds[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP" };
    return k >= 0 && k < 11 ? kinds[k] : "Unknown";
}

static void read_copies(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "CUPTI_ACTIVITY_KIND_MEMCPY",
                                     WANT("start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind",
                                          "srcKind", "dstKind"),
                                     9, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_MEMCPY);
        if (!gpu_times(n, st, &op)) continue;
        op.bytes = kt_sql_int(st, 5, -1);
        char name[96];
        int len = snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", copy_kind(kt_sql_int(st, 6, 0)),
                           mem_kind(kt_sql_int(st, 7, 0)), mem_kind(kt_sql_int(st, 8, 0)));
        op.name = kt_build_str(n->b, name, (size_t)len);
        kt_build_gpu(n->b, &op);
    }
    sqlite3_finalize(st);
}

static void read_sets(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "CUPTI_ACTIVITY_KIND_MEMSET",
                                     WANT("start", "end", "deviceId", "streamId", "correlationId", "bytes", "memKind"), 7,
                                     NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_MEMSET);
        if (!gpu_times(n, st, &op)) continue;
        op.bytes = kt_sql_int(st, 5, -1);
        char name[64];
        int len = snprintf(name, sizeof name, "Memset (%s)", mem_kind(kt_sql_int(st, 6, 3)));
        op.name = kt_build_str(n->b, name, (size_t)len);
        kt_build_gpu(n->b, &op);
    }
    sqlite3_finalize(st);
}

/* CUPTI's synchronization records, named and laid out as Kineto writes
 * them (cuda_sync on pid = device, tid = stream, -1 for the device-wide
 * Event Sync and Context Sync): the waits critical path and the queue
 * analyses read.                                                      */
static void read_syncs(nsys *n)
{
    static const char *const names[] = { "Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync" };
    uint32_t id[5];
    for (size_t k = 0; k < 5; k++) id[k] = kt_build_str(n->b, names[k], strlen(names[k]));
    sqlite3_stmt *st = kt_sql_select(n->db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                     WANT("start", "end", "deviceId", "streamId", "correlationId", "syncType"), 6, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_CUDA_SYNC);
        if (!gpu_times(n, st, &op)) continue;
        if (op.stream < 0 || op.stream >= UINT32_MAX) op.stream = -1; /* CUPTI's invalid value, 2^32 - 1 */
        int64_t type = kt_sql_int(st, 5, 0);
        op.name = id[type > 0 && type < 5 ? type : 0];
        kt_build_gpu(n->b, &op);
    }
    sqlite3_finalize(st);
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (Kineto's name) for
 * the StringIds entry of column col, made at its first use.           */
static uint32_t call_name(nsys *n, sqlite3_stmt *st, int col)
{
    int64_t sid = kt_sql_int(st, col, -1);
    if (sid < 0 || (size_t)sid >= n->nstr || n->str[sid] == KT_NONE) return KT_NONE;
    if (n->call[sid] != KT_NONE) return n->call[sid];
    uint32_t id = n->str[sid];
    const char *s = kt_strtab_get(n->b->strs, id);
    size_t len = kt_strtab_len(n->b->strs, id), k = len;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
    n->call[sid] = k < len && k >= 2 && s[k - 1] == 'v' && s[k - 2] == '_' ? kt_build_str(n->b, s, k - 2) : id;
    return n->call[sid];
}

static void read_calls(nsys *n, const char *table, kt_kind kind)
{
    sqlite3_stmt *st = kt_sql_select(n->db, table, WANT("start", "end", "globalTid", "correlationId", "nameId"), 5, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        int64_t s = kt_sql_time(st, 0), e = kt_sql_time(st, 1), g = kt_sql_int(st, 2, 0);
        n->rows++;
        if (s < 0 || e < s) {
            n->dropped++;
            continue;
        }
        kt_host_op op = { .kind = kind, .pid = pid_of(g), .tid = tid_of(g), .ts = s, .dur = e - s,
                          .corr = kt_sql_int(st, 3, -1) };
        op.name = call_name(n, st, 4);
        kt_build_host(n->b, &op);
    }
    sqlite3_finalize(st);
}

/* NVTX push/pop (59) and start/end (60) ranges; marks have no end. */
static void read_nvtx(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "NVTX_EVENTS", WANT("start", "end", "globalTid", "text", "textId", "eventType"), 6,
                                     "WHERE \"end\" IS NOT NULL");
    while (st && sqlite3_step(st) == SQLITE_ROW && !n->b->oom) {
        int64_t s = kt_sql_time(st, 0), e = kt_sql_time(st, 1), g = kt_sql_int(st, 2, 0), type = kt_sql_int(st, 5, 59);
        n->rows++;
        n->dropped += s < 0 || e < s;
        if (s < 0 || e < s || (type != 59 && type != 60)) continue;
        kt_host_op op = { .kind = KT_K_USER_ANNOTATION, .pid = pid_of(g), .tid = tid_of(g), .ts = s, .dur = e - s, .corr = -1 };
        op.name = sqlite3_column_type(st, 3) == SQLITE_TEXT ? text_or_id(n, st, 3) : string_of(n, st, 4);
        kt_build_host(n->b, &op);
    }
    sqlite3_finalize(st);
}

static void read_gpus(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "TARGET_INFO_GPU", WANT("id", "name"), 2, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (name) kt_build_device(n->b, kt_sql_int(st, 0, -1), name, (size_t)sqlite3_column_bytes(st, 1));
    }
    sqlite3_finalize(st);
}

static void read_processes(nsys *n)
{
    sqlite3_stmt *st = kt_sql_select(n->db, "PROCESSES", WANT("pid", "name"), 2, NULL);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (name) kt_build_name_thread(n->b, kt_sql_int(st, 0, 0), -1, name, (size_t)sqlite3_column_bytes(st, 1));
    }
    sqlite3_finalize(st);
}

/* "Nsight Systems 2024.5.1.113" from META_DATA_EXPORT. */
static void source(nsys *n)
{
    char prof[128] = "Nsight Systems";
    sqlite3_stmt *st = kt_sql_select(n->db, "META_DATA_EXPORT", WANT("value"), 1, "WHERE name = 'EXPORT_PRODUCT_VERSION'");
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(prof, sizeof prof, "Nsight Systems %s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    kt_build_source(n->b, "Nsight Systems SQLite", prof, "CUDA");
    st = kt_sql_select(n->db, "TARGET_INFO_SESSION_START_TIME", WANT("utcEpochNs"), 1, NULL);
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        kt_build_meta_str(n->b, "capture_start_utc_ns", (const char *)sqlite3_column_text(st, 0),
                          (size_t)sqlite3_column_bytes(st, 0));
    sqlite3_finalize(st);
}

/* The model's room for the tables' rows, taken at once. */
static void expect_rows(nsys *n)
{
    size_t k = kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_KERNEL"), c = kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_MEMCPY"),
           s = kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_MEMSET") + kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    size_t calls = kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_RUNTIME") + kt_sql_rows(n->db, "CUPTI_ACTIVITY_KIND_DRIVER") +
                   kt_sql_rows(n->db, "NVTX_EVENTS");
    kt_build_expect(n->b, 3 * (k + c + s) + calls, 9 * k + 2 * (c + s));
}

kt_status kt_read_nsys(sqlite3 *db, const kt_reader_in *in, kt_build *b)
{
    nsys n = { .b = b, .db = db };
    source(&n);
    if (!read_strings(&n)) {
        free(n.str);
        free(n.call);
        return KT_ENOMEM;
    }
    read_gpus(&n);
    read_processes(&n);
    expect_rows(&n);
    read_kernels(&n);
    read_copies(&n);
    read_sets(&n);
    read_syncs(&n);
    read_calls(&n, "CUPTI_ACTIVITY_KIND_RUNTIME", KT_K_RUNTIME);
    read_calls(&n, "CUPTI_ACTIVITY_KIND_DRIVER", KT_K_DRIVER);
    read_nvtx(&n);
    free(n.str);
    free(n.call);
    if (b->oom) return KT_ENOMEM;
    if (n.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu rows without valid start/end (skipped)",
                     (unsigned long long)n.dropped);
    if (b->r->ev.n == 0 || n.rows == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1,
                     "an Nsight Systems export with no CUDA kernel, copy, set, API or NVTX rows");
        return KT_EINPUT;
    }
    return KT_OK;
}
