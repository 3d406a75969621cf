/*
 * rocpd.c — a rocpd SQLite database (`*_results.db`, ROCm 7's default
 * rocprofv3 output) into the model.
 *
 * The schema (ROCm's rocprofiler-sdk, rocpd_tables.sql) names every table
 * with a per-database uuid suffix and adds views without it; a reader takes
 * the view when there is one, else the suffixed table.  Kernel dispatches,
 * memory copies and regions (API calls and markers, by their event's
 * category) become the events the rocprofv3 JSON reader makes of the same
 * records (rocprof_common.h): the same run reads the same in either format.
 * rocpd_event (each record's correlation id and category) is read once
 * into a map by id, not joined to every record: the join's b-tree seek a
 * record was the reader's largest cost after SQLite's row stepping.
 */
#include "load/sql_lookup.h"
#include "load/sqlite_reader.h"
#include "load/rocprof/rocprof_common.h"
#include "model/i64map.h"

#include <stdio.h>
#include <stdlib.h>

/* The view `base`, else the first table named base<uuid>; "" if neither
 * (no base used here is the start of another table's name).           */
static void table_of(sqlite3 *db, const char *base, char *out, size_t cap)
{
    out[0] = '\0';
    if (kt_sql_has_table(db, base)) {
        snprintf(out, cap, "%s", base);
        return;
    }
    sqlite3_stmt *st = NULL;
    char like[96];
    snprintf(like, sizeof like, "%s%%", base);
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? ORDER BY name", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
}

bool kt_rocpd_recognise(sqlite3 *db)
{
    char t[128];
    table_of(db, "rocpd_kernel_dispatch", t, sizeof t);
    if (t[0]) return true;
    table_of(db, "rocpd_region", t, sizeof t);
    return t[0] != '\0';
}

typedef struct rocpd {
    kt_build *b;
    sqlite3 *db;
    const kt_reader_in *in;
    char kd[128], ks[128], agent[128], event[128], str[128], copy[128], region[128], proc[128], thread[128];
    uint64_t rows, dropped, uncategorised; /* regions of no known category */
    /* rocpd_event by id, read in one pass instead of a join per record:
     * its correlation id and its category's kind (KT_K_OTHER if none) */
    kt_i64map event_at;
    int64_t event_first;  /* while ids are first, first + 1, ... (rocpd's
                             autoincrement ids): row k is id first + k,
                             event_at unused; event_dense rows so far    */
    size_t event_dense, event_rows;
    bool dense;
    int64_t *event_corr;
    uint8_t *event_kind;
} rocpd;

/* The statement reading table's rows; NULL, said with SQLite's reason,
 * when the table lacks a column read (a schema this reader does not know):
 * its rows are not in the model, and the user is told so.              */
static sqlite3_stmt *prepare(rocpd *p, const char *sql, const char *table)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
        kt_diags_add(p->in->diags, KT_DIAG_WARNING, p->in->path, -1, "table %s not read: %s (%llu rows left out)", table,
                     sqlite3_errmsg(p->db), (unsigned long long)kt_sql_rows(p->db, table));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

/* A lookup into a small table; when the table is absent or lacks the
 * column, the rows that use it are still read, their values falling back
 * as for an id with no row (what falls back is said once).             */
static void open_lookup(rocpd *p, kt_sql_lookup *lk, const char *table, const char *base, const char *expr, bool names,
                        const char *fallback)
{
    if (kt_sql_lookup_open(lk, p->db, table, expr, p->b, names) || p->b->oom) return;
    kt_diags_add(p->in->diags, KT_DIAG_WARNING, p->in->path, -1, "%s %s: %s", table[0] ? "unreadable table" : "no table",
                 table[0] ? table : base, fallback);
}

/* The kind of category id (a rocpd_string): few distinct categories, so
 * the last few looked up are kept.                                    */
static uint8_t category_kind(sqlite3_stmt *str, int64_t id, int64_t memo[8][2])
{
    for (int k = 0; k < 8; k++)
        if (memo[k][0] == id) return (uint8_t)memo[k][1];
    uint8_t kind = KT_K_OTHER;
    sqlite3_reset(str);
    sqlite3_bind_int64(str, 1, id);
    if (sqlite3_step(str) == SQLITE_ROW && sqlite3_column_text(str, 0))
        kind = (uint8_t)kt_rocprof_domain_kind((const char *)sqlite3_column_text(str, 0), (size_t)sqlite3_column_bytes(str, 0));
    memmove(memo[1], memo[0], 7 * sizeof memo[0]);
    memo[0][0] = id, memo[0][1] = kind;
    return kind;
}

/* Row k of rocpd_event has id (valid: an integer id): false when it
 * cannot be found by id.  Consecutive ids from the first row's need no
 * map; at the first other id, the rows so far go into the map.       */
static bool index_event(rocpd *p, bool valid, int64_t id, uint32_t k)
{
    if (k == 0) p->event_first = id, p->dense = valid && id != INT64_MIN;
    if (p->dense && valid && (uint64_t)id - (uint64_t)p->event_first == k) {
        p->event_dense = (size_t)k + 1;
        return true;
    }
    if (!p->event_at.key) { /* the map, made at the first other id */
        p->dense = false;
        if (!kt_i64map_init(&p->event_at, p->event_rows)) {
            p->b->oom = true;
            return false;
        }
        for (uint32_t j = 0; j < p->event_dense; j++) *kt_i64map_slot(&p->event_at, p->event_first + j, j) = j;
    }
    if (valid) *kt_i64map_slot(&p->event_at, id, k) = k;
    return valid;
}

/* rocpd_event's rows by id (false on OOM). */
static bool read_events(rocpd *p)
{
    size_t n = p->event[0] ? kt_sql_rows(p->db, p->event) : 0;
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT id, correlation_id, category_id FROM \"%s\"", p->event);
    sqlite3_stmt *st = n ? prepare(p, sql, p->event) : NULL;
    snprintf(sql, sizeof sql, "SELECT string FROM \"%s\" WHERE id = ?", p->str);
    sqlite3_stmt *str = st && p->str[0] ? prepare(p, sql, p->str) : NULL;
    int64_t memo[8][2];
    for (int k = 0; k < 8; k++) memo[k][0] = INT64_MIN;
    p->event_rows = n;
    bool ok = (p->event_corr = malloc((n ? n : 1) * sizeof *p->event_corr)) && (p->event_kind = malloc(n ? n : 1));
    for (uint32_t k = 0; ok && !p->b->oom && st && k < n && sqlite3_step(st) == SQLITE_ROW; k++) {
        sqlite3_value *id = kt_sql_val(st, 0), *category = kt_sql_val(st, 2);
        if (!index_event(p, sqlite3_value_type(id) == SQLITE_INTEGER, sqlite3_value_int64(id), k)) continue;
        p->event_corr[k] = kt_sql_int(st, 1, -1);
        p->event_kind[k] = str && sqlite3_value_type(category) != SQLITE_NULL
                               ? category_kind(str, sqlite3_value_int64(category), memo)
                               : KT_K_OTHER;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(str);
    return ok;
}

/* The event of column col: its row, or KT_NONE. */
static uint32_t event_of(const rocpd *p, sqlite3_stmt *st, int col)
{
    sqlite3_value *v = kt_sql_val(st, col);
    if (sqlite3_value_type(v) != SQLITE_INTEGER) return KT_NONE;
    int64_t id = sqlite3_value_int64(v);
    if (p->event_at.key) return kt_i64map_get(&p->event_at, id, KT_NONE);
    return p->dense && (uint64_t)id - (uint64_t)p->event_first < p->event_dense ? (uint32_t)(id - p->event_first) : KT_NONE;
}

static int64_t event_corr(const rocpd *p, sqlite3_stmt *st, int col)
{
    uint32_t e = event_of(p, st, col);
    return e == KT_NONE ? -1 : p->event_corr[e];
}

static bool times(rocpd *p, sqlite3_stmt *st, int64_t *ts, int64_t *dur)
{
    int64_t s = kt_sql_time(st, 0), e = kt_sql_time(st, 1);
    p->rows++;
    if (s < 0 || e < s) {
        p->dropped++;
        return false;
    }
    *ts = s;
    *dur = e - s;
    return true;
}

static void read_kernels(rocpd *p)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT start, end, agent_id, stream_id, queue_id, event_id, kernel_id, grid_size_x, grid_size_y, grid_size_z,"
             " workgroup_size_x, workgroup_size_y, workgroup_size_z, group_segment_size FROM \"%s\"",
             p->kd);
    sqlite3_stmt *st = p->kd[0] ? prepare(p, sql, p->kd) : NULL;
    kt_sql_lookup agent = { 0 }, symbol = { 0 };
    if (st) {
        open_lookup(p, &agent, p->agent, "rocpd_info_agent", "coalesce(type_index, logical_index, absolute_index)", false,
                    "kernels' devices are their agent ids");
        open_lookup(p, &symbol, p->ks, "rocpd_info_kernel_symbol", "coalesce(display_name, kernel_name)", true,
                    "kernels have no names");
    }
    while (st && sqlite3_step(st) == SQLITE_ROW && !p->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_KERNEL);
        if (!times(p, st, &op.ts, &op.dur)) continue;
        sqlite3_value *agent_id = kt_sql_val(st, 2);
        if (!kt_sql_lookup_int(&agent, agent_id, &op.device)) op.device = kt_sql_vint(agent_id, 0);
        sqlite3_value *stream = kt_sql_val(st, 3);
        op.stream = sqlite3_value_type(stream) != SQLITE_NULL ? sqlite3_value_int64(stream) : kt_sql_int(st, 4, 0);
        op.corr = event_corr(p, st, 5);
        op.name = kt_sql_lookup_name(&symbol, kt_sql_val(st, 6));
        for (int k = 0; k < 3; k++) op.grid[k] = kt_sql_int(st, 7 + k, 0), op.block[k] = kt_sql_int(st, 10 + k, 0);
        op.shared_mem = kt_sql_int(st, 13, -1);
        kt_build_gpu(p->b, &op);
    }
    sqlite3_finalize(st);
    kt_sql_lookup_close(&agent);
    kt_sql_lookup_close(&symbol);
}

static void read_copies(rocpd *p)
{
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT M.start, M.end, N.string, D.type, coalesce(D.type_index, D.logical_index, D.absolute_index),"
             " coalesce(S.type_index, S.logical_index, S.absolute_index), M.size, M.stream_id, M.event_id"
             " FROM \"%s\" M LEFT JOIN \"%s\" N ON N.id = M.name_id LEFT JOIN \"%s\" D ON D.id = M.dst_agent_id"
             " LEFT JOIN \"%s\" S ON S.id = M.src_agent_id",
             p->copy, p->str, p->agent, p->agent);
    sqlite3_stmt *st = p->copy[0] ? prepare(p, sql, p->copy) : NULL;
    while (st && sqlite3_step(st) == SQLITE_ROW && !p->b->oom) {
        kt_gpu_op op = kt_gpu_op_blank(KT_K_MEMCPY);
        if (!times(p, st, &op.ts, &op.dur)) continue;
        const char *dir = (const char *)sqlite3_column_text(st, 2);
        const char *name = kt_rocprof_copy_name(dir ? dir : "", dir ? (size_t)sqlite3_column_bytes(st, 2) : 0);
        op.name = kt_build_str(p->b, name, strlen(name));
        const char *dst_type = (const char *)sqlite3_column_text(st, 3);
        op.device = dst_type && !strcmp(dst_type, "GPU") ? kt_sql_int(st, 4, 0) : kt_sql_int(st, 5, 0);
        op.bytes = kt_sql_int(st, 6, -1);
        op.stream = kt_sql_int(st, 7, 0);
        op.corr = event_corr(p, st, 8);
        kt_build_gpu(p->b, &op);
    }
    sqlite3_finalize(st);
}

/* Regions: API calls and markers, their kind by their event's category. */
static void read_regions(rocpd *p)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT start, end, event_id, name_id, pid, tid FROM \"%s\"", p->region);
    sqlite3_stmt *st = p->region[0] ? prepare(p, sql, p->region) : NULL;
    kt_sql_lookup name = { 0 }, proc = { 0 }, thread = { 0 };
    if (st) {
        open_lookup(p, &name, p->str, "rocpd_string", "string", true, "API calls and markers have no names");
        open_lookup(p, &proc, p->proc, "rocpd_info_process", "pid", false, "regions' processes are their ids");
        open_lookup(p, &thread, p->thread, "rocpd_info_thread", "tid", false, "regions' threads are their ids");
    }
    while (st && sqlite3_step(st) == SQLITE_ROW && !p->b->oom) {
        uint32_t e = event_of(p, st, 2);
        kt_host_op op = { .kind = e == KT_NONE ? KT_K_OTHER : (kt_kind)p->event_kind[e] };
        if (!times(p, st, &op.ts, &op.dur)) continue;
        if (op.kind == KT_K_OTHER) {
            p->uncategorised++;
            continue;
        }
        op.name = kt_sql_lookup_name(&name, kt_sql_val(st, 3));
        sqlite3_value *pid = kt_sql_val(st, 4), *tid = kt_sql_val(st, 5);
        if (!kt_sql_lookup_int(&proc, pid, &op.pid)) op.pid = kt_sql_vint(pid, 0);
        if (!kt_sql_lookup_int(&thread, tid, &op.tid)) op.tid = kt_sql_vint(tid, 0);
        op.corr = op.kind == KT_K_USER_ANNOTATION ? -1 : p->event_corr[e];
        kt_build_host(p->b, &op);
    }
    sqlite3_finalize(st);
    kt_sql_lookup_close(&name);
    kt_sql_lookup_close(&proc);
    kt_sql_lookup_close(&thread);
}

static void read_agents(rocpd *p)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT coalesce(type_index, logical_index, absolute_index), coalesce(product_name, name) FROM \"%s\""
             " WHERE type = 'GPU'",
             p->agent);
    sqlite3_stmt *st = p->agent[0] ? prepare(p, sql, p->agent) : NULL;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (name) kt_build_device(p->b, kt_sql_int(st, 0, -1), name, (size_t)sqlite3_column_bytes(st, 1));
    }
    sqlite3_finalize(st);
}

kt_status kt_read_rocpd(sqlite3 *db, const kt_reader_in *in, kt_build *b)
{
    rocpd p = { .b = b, .db = db, .in = in };
    struct { char *out; const char *base; } t[] = {
        { p.kd, "rocpd_kernel_dispatch" }, { p.ks, "rocpd_info_kernel_symbol" }, { p.agent, "rocpd_info_agent" },
        { p.event, "rocpd_event" }, { p.str, "rocpd_string" }, { p.copy, "rocpd_memory_copy" },
        { p.region, "rocpd_region" }, { p.proc, "rocpd_info_process" }, { p.thread, "rocpd_info_thread" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) table_of(db, t[i].base, t[i].out, 128);
    kt_build_source(b, "rocpd SQLite", "rocprofv3", "ROCm");
    size_t kernels = kt_sql_rows(db, p.kd), copies = kt_sql_rows(db, p.copy);
    kt_build_expect(b, 3 * (kernels + copies) + kt_sql_rows(db, p.region), 8 * kernels + 2 * copies);
    read_agents(&p);
    if (!read_events(&p)) b->oom = true;
    read_kernels(&p);
    read_copies(&p);
    read_regions(&p);
    kt_i64map_free(&p.event_at);
    free(p.event_corr);
    free(p.event_kind);
    if (b->oom) return KT_ENOMEM;
    if (p.dropped)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1, "%llu rows with invalid start/end (skipped)",
                     (unsigned long long)p.dropped);
    if (p.uncategorised)
        kt_diags_add(in->diags, KT_DIAG_WARNING, in->path, -1,
                     "%llu regions left out: their event has no category this reader models (HIP, HSA, marker, RCCL)%s",
                     (unsigned long long)p.uncategorised, p.event[0] && p.str[0] ? "" : " (no rocpd_event or rocpd_string table)");
    if (b->r->ev.n == 0) {
        kt_diags_add(in->diags, KT_DIAG_ERROR, in->path, -1,
                     "a rocpd database with no kernel dispatch, memory copy or region rows (%llu rows read)",
                     (unsigned long long)p.rows);
        return KT_EINPUT;
    }
    return KT_OK;
}
