/*
 * sqlite_export.c — `kineta export --sqlite`: the trace and its most-asked
 * analyses as one SQLite file.
 *
 * Nsight users answer their own questions with SQL over `nsys export
 * --type sqlite`; this gives kineta's users the same: every event as a
 * typed row (names and categories through a strings table, so the file
 * stays small), the launch and flow links the model resolved, steps,
 * counter values, and the kernels/temporal/idle tables as the CLI prints
 * them.  The three large tables (events, launches, flows) and their
 * indexes are laid out page by page in key order (sqlite_btree.c: a
 * tenth of what SQLite's inserts cost); libsqlite3 then opens that file
 * and adds the small tables and the views in one transaction.  Both write
 * a new file beside the target, renamed over it once whole: a failed
 * export leaves the target as it was and nothing else (sqlite_target.h).
 * Schema and example queries: docs/sqlite.md.
 */
#include "model/index.h"
#include "model/radix.h"
#include "output/sqlite_export.h"
#include "output/sqlite_btree.h"
#include "output/sqlite_target.h"
#include "output/sqlite_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every event has one integer key, rank * 2^32 + its position in the file:
 * the table's rowid, so rows go in in key order and every link (launches,
 * flows, steps, counters) is a rowid lookup.                              */
#define EVENT_KEY(rank, id) ((int64_t)(rank) * ((int64_t)1 << 32) + (int64_t)(id))

/* The events table stores what cannot be computed: rank and id are the
 * key's two halves and kind is named from kind_code, all three VIRTUAL
 * generated columns (SQLite 3.31+), computed when read and not stored in
 * the rows — a sixth of the file and of its writing.  The CASE listing
 * the kinds is made from the model's names (events_sql).                 */
static const char *const events_sql_head =
    "CREATE TABLE events(key INTEGER PRIMARY KEY,"
    " rank INTEGER NOT NULL GENERATED ALWAYS AS (key >> 32) VIRTUAL,"
    " id INTEGER NOT NULL GENERATED ALWAYS AS (key & 4294967295) VIRTUAL, ts_ns INTEGER, dur_ns INTEGER, ph TEXT,"
    " kind TEXT GENERATED ALWAYS AS (CASE kind_code";
static const char *const events_sql_tail =
    " END) VIRTUAL, name_id INTEGER REFERENCES strings(id), cat_id INTEGER REFERENCES strings(id), pid INTEGER,"
    " tid INTEGER, stream INTEGER, correlation INTEGER, external_id INTEGER, kind_code INTEGER NOT NULL)";
static const char *const launches_sql =
    "CREATE TABLE launches(rank INTEGER NOT NULL, call_key INTEGER NOT NULL, gpu_key INTEGER NOT NULL)";
static const char *const flows_sql =
    "CREATE TABLE flows(rank INTEGER NOT NULL, start_key INTEGER NOT NULL, end_key INTEGER NOT NULL)";

static const char *const schema_sql =
    "CREATE TABLE ranks(rank INTEGER PRIMARY KEY, file TEXT, world_size INTEGER, events INTEGER);"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE steps(rank INTEGER NOT NULL, side TEXT NOT NULL, step INTEGER, event_key INTEGER,"
    " ts_ns INTEGER, dur_ns INTEGER);"
    "CREATE TABLE counters(rank INTEGER NOT NULL, event_key INTEGER NOT NULL, ts_ns INTEGER,"
    " name TEXT, arg TEXT, value REAL);";

static const char *const views_sql =
    "CREATE VIEW gpu_events AS SELECT e.*, s.value AS name FROM events e JOIN strings s ON s.id = e.name_id"
    " WHERE e.kind IN ('kernel', 'memcpy', 'memset');"
    "CREATE VIEW kernels_with_launch AS SELECT k.rank, k.key AS kernel_key, kn.value AS kernel, k.ts_ns,"
    " k.dur_ns, k.stream, c.key AS call_key, cn.value AS launch_api, c.ts_ns AS call_ts_ns,"
    " k.ts_ns - (c.ts_ns + c.dur_ns) AS launch_delay_ns"
    " FROM launches l JOIN events k ON k.key = l.gpu_key JOIN events c ON c.key = l.call_key"
    " JOIN strings kn ON kn.id = k.name_id JOIN strings cn ON cn.id = c.name_id;"
    "CREATE VIEW kernel_time_by_name AS SELECT rank, name, COUNT(*) AS count, SUM(dur_ns) AS total_ns,"
    " AVG(dur_ns) AS avg_ns FROM gpu_events WHERE kind = 'kernel' GROUP BY rank, name;";

typedef struct export_run {
    const kt_trace *t;
    const kt_rank **ranks; /* the selected ranks, by rank number */
    size_t nranks;
    kt_table *summary;     /* "export": table, rows */
    uint32_t pending_byte; /* SQLite's lock bytes (sqlite_export.h)   */
    char err[512];         /* why the export failed (SQLite's message)  */
} export_run;

static void note_rows(export_run *x, const char *table, int64_t rows)
{
    kt_table_add_row(x->summary);
    kt_table_set_str(x->summary, 0, table);
    kt_table_set_int(x->summary, 1, rows);
}

/* ---- the large tables, page by page ---------------------------------- */

static inline sqlb_pos rec_id(sqlb_rec *rec, sqlb_pos p, int64_t v)
{
    return v == -1 ? sqlb_rec_null(rec, p) : sqlb_rec_int(rec, p, v);
}

static inline sqlb_pos rec_name(sqlb_rec *rec, sqlb_pos p, uint32_t id)
{
    return id == KT_NONE ? sqlb_rec_null(rec, p) : sqlb_rec_int(rec, p, id);
}

/* The events table's CREATE statement, its kind CASE naming every code
 * the model names (a name is an identifier: no quote to escape).         */
static bool events_sql(char *sql, size_t cap)
{
    size_t len = (size_t)snprintf(sql, cap, "%s", events_sql_head);
    for (unsigned code = 0; code < 256 && len < cap; code++) {
        const char *name = kt_event_kind_name(code);
        if (name) len += (size_t)snprintf(sql + len, cap - len, " WHEN %u THEN '%s'", code, name);
    }
    if (len < cap) len += (size_t)snprintf(sql + len, cap - len, "%s", events_sql_tail);
    return len < cap;
}

/* An event's stored columns (rank, id and kind are computed: events_sql). */
static void event_record(sqlb_rec *rec, const kt_rank *r, uint32_t i)
{
    const kt_events *e = &r->ev;
    char ph = (char)e->ph[i];
    sqlb_pos p = sqlb_rec_begin(12);
    p = sqlb_rec_null(rec, p); /* key: the rowid itself */
    p = sqlb_rec_int(rec, p, e->ts[i]);
    p = rec_id(rec, p, e->dur[i]);
    /* the file's ph is one byte: of a multi-byte character ("é"), or NUL
     * ("ph":""); a text column holds valid UTF-8 only                    */
    p = ph >= 0x20 && ph < 0x7f ? sqlb_rec_text(rec, p, &ph, 1) : sqlb_rec_null(rec, p);
    p = rec_name(rec, p, e->name[i]);
    p = rec_name(rec, p, e->cat[i]);
    p = sqlb_rec_int(rec, p, kt_event_pid(r, i));
    p = sqlb_rec_int(rec, p, kt_event_tid(r, i));
    p = rec_id(rec, p, kt_ev_stream(e, i));
    p = rec_id(rec, p, kt_event_corr(r, i));
    p = rec_id(rec, p, kt_event_ext_id(r, i));
    p = sqlb_rec_int(rec, p, e->kind[i]);
    sqlb_rec_end(rec, p);
}

static bool bulk_events(export_run *x, sqlb *w, bool no_events)
{
    sqlb_rec rec;
    char sql[2048];
    int64_t rows = 0;
    if (!events_sql(sql, sizeof sql)) return sqlb_fail(w, "the events table's schema is too long");
    if (!sqlb_table(w, "events", sql)) return false;
    for (size_t k = 0; !no_events && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        for (uint32_t i = 0; i < r->ev.n; i++) {
            event_record(&rec, r, i);
            if (!sqlb_row(w, EVENT_KEY(r->rank, i), &rec)) return false;
        }
        rows += (int64_t)r->ev.n;
    }
    note_rows(x, "events", rows);
    return sqlb_end(w);
}

/* events_correlation's entry of event ev: (rank, correlation, key). */
static inline bool correlation_entry(sqlb *w, sqlb_rec *rec, const kt_rank *r, uint32_t ev, int64_t corr)
{
    sqlb_pos p = sqlb_rec_int(rec, sqlb_rec_begin(3), r->rank);
    p = sqlb_rec_int(rec, p, corr);
    sqlb_rec_end(rec, sqlb_rec_int(rec, p, EVENT_KEY(r->rank, ev)));
    return sqlb_entry(w, rec);
}

/* events(rank, correlation) over the events that have one (a partial
 * index: most events have none, and lookups by correlation never want
 * them): per rank, by correlation, each in key order.  Sorted through
 * keys and ids in memory; correlated_runs' merge needs none.             */
static bool rank_correlation_sorted(sqlb *w, const kt_rank *r)
{
    /* room for every event: counting those with a correlation first
     * would read the column twice                                       */
    size_t n = r->ev.n, m = 0;
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    bool ok = keys && ids ? true : sqlb_fail(w, "out of memory");
    for (uint32_t i = 0; ok && i < n; i++)
        if (r->ev.corr[i] != -1) keys[m] = kt_radix_key_i64(kt_event_corr(r, i)), ids[m++] = i;
    if (ok && !kt_radix_sort(keys, ids, m)) ok = sqlb_fail(w, "out of memory");
    sqlb_rec rec;
    for (size_t j = 0; ok && j < m; j++) /* the key is the correlation, its sign bit flipped */
        ok = correlation_entry(w, &rec, r, ids[j], (int64_t)(keys[j] ^ ((uint64_t)1 << 63)));
    free(keys);
    free(ids);
    return ok;
}

/* Kineto writes the calls and then each stream's GPU events in
 * correlation order, and tools that merge or tile traces repeat that per
 * part: the correlated events form a few ascending runs of ids.  Up to
 * CORR_RUNS_MAX of them are merged straight from the column through a
 * small heap, with no keys or ids in memory (fresh pages cost as much as
 * the sort here).                                                         */
#define CORR_RUNS_MAX 256

typedef struct corr_run {
    uint32_t at, end; /* the next correlated event of the run, its end */
    int64_t corr;     /* at's correlation                              */
} corr_run;

/* Where each run of ascending correlations starts (starts[0] = 0); their
 * count, or 0 when more than CORR_RUNS_MAX.                             */
static size_t correlated_runs(const kt_rank *r, uint32_t *starts)
{
    size_t runs = 1;
    int64_t prev = INT64_MIN;
    starts[0] = 0;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        if (r->ev.corr[i] == -1) continue;
        int64_t c = kt_event_corr(r, i);
        if (c < prev) {
            if (runs == CORR_RUNS_MAX) return 0;
            starts[runs++] = i;
        }
        prev = c;
    }
    return runs;
}

/* Move the run to its next correlated event; false at its end. */
static bool run_next(const kt_rank *r, corr_run *run)
{
    while (run->at < run->end && r->ev.corr[run->at] == -1) run->at++;
    if (run->at == run->end) return false;
    run->corr = kt_event_corr(r, run->at);
    return true;
}

static bool run_before(const corr_run *a, const corr_run *b)
{
    return a->corr < b->corr || (a->corr == b->corr && a->at < b->at);
}

/* Restore the min-heap order of heap[0..n) below slot i. */
static void sift_down(corr_run *heap, size_t n, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, rt = l + 1;
        if (l < n && run_before(&heap[l], &heap[least])) least = l;
        if (rt < n && run_before(&heap[rt], &heap[least])) least = rt;
        if (least == i) return;
        corr_run t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

static bool rank_correlation_merged(sqlb *w, const kt_rank *r, const uint32_t *starts, size_t runs)
{
    corr_run heap[CORR_RUNS_MAX];
    size_t n = 0;
    for (size_t k = 0; k < runs; k++) {
        heap[n] = (corr_run){ .at = starts[k], .end = k + 1 < runs ? starts[k + 1] : r->ev.n };
        n += run_next(r, &heap[n]);
    }
    for (size_t i = n / 2; i-- > 0;) sift_down(heap, n, i);
    sqlb_rec rec;
    bool ok = true;
    while (ok && n) {
        ok = correlation_entry(w, &rec, r, heap[0].at, heap[0].corr);
        heap[0].at++;
        if (!run_next(r, &heap[0])) heap[0] = heap[--n];
        sift_down(heap, n, 0);
    }
    return ok;
}

static bool rank_correlation_entries(sqlb *w, const kt_rank *r)
{
    uint32_t starts[CORR_RUNS_MAX];
    size_t runs = correlated_runs(r, starts);
    return runs ? rank_correlation_merged(w, r, starts, runs) : rank_correlation_sorted(w, r);
}

static bool bulk_events_index(export_run *x, sqlb *w, bool no_events)
{
    if (!sqlb_index(w, "events_correlation", "events",
                    "CREATE INDEX events_correlation ON events(rank, correlation) WHERE correlation IS NOT NULL"))
        return false;
    for (size_t k = 0; !no_events && k < x->nranks; k++)
        if (!rank_correlation_entries(w, x->ranks[k])) return false;
    return sqlb_end(w);
}

/* A link table's rows (rowids 1..n) and its two key columns, kept for the
 * indexes over them.                                                      */
typedef struct links {
    int64_t *a, *b;
    size_t n, cap;
} links;

static bool links_add(links *l, int64_t a, int64_t b)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4096;
        int64_t *na = realloc(l->a, cap * sizeof *na);
        if (na) l->a = na;
        int64_t *nb = na ? realloc(l->b, cap * sizeof *nb) : NULL;
        if (!nb) return false;
        l->b = nb;
        l->cap = cap;
    }
    l->a[l->n] = a;
    l->b[l->n++] = b;
    return true;
}

static bool ascending(const int64_t *key, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (key[i] < key[i - 1]) return false;
    return true;
}

/* An index over one key column of a link table: entries (key, rowid) by
 * key, rowid second (the radix sort is stable; keys already in order, as
 * launches' GPU events are, are taken as they are).                      */
static bool link_index(sqlb *w, const char *name, const char *table, const char *sql, const int64_t *key,
                       size_t n)
{
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    bool ok = keys && ids && n < UINT32_MAX, sorted = ascending(key, n);
    for (size_t i = 0; ok && i < n; i++) keys[i] = kt_radix_key_i64(key[i]), ids[i] = (uint32_t)i;
    if (!ok || (!sorted && !kt_radix_sort(keys, ids, n))) ok = sqlb_fail(w, "out of memory");
    sqlb_rec rec;
    ok = ok && sqlb_index(w, name, table, sql);
    for (size_t i = 0; ok && i < n; i++) {
        sqlb_pos p = sqlb_rec_int(&rec, sqlb_rec_begin(2), key[ids[i]]);
        sqlb_rec_end(&rec, sqlb_rec_int(&rec, p, (int64_t)ids[i] + 1));
        ok = sqlb_entry(w, &rec);
    }
    free(keys);
    free(ids);
    return ok && sqlb_end(w);
}

/* A link table's next row (rowid: its position, from 1); its keys kept
 * for the indexes.                                                       */
static bool link_row(sqlb *w, links *l, int rank, int64_t a, int64_t b)
{
    if (!links_add(l, a, b)) return sqlb_fail(w, "out of memory");
    sqlb_rec rec;
    sqlb_pos p = sqlb_rec_int(&rec, sqlb_rec_begin(3), rank);
    p = sqlb_rec_int(&rec, p, a);
    sqlb_rec_end(&rec, sqlb_rec_int(&rec, p, b));
    return sqlb_row(w, (int64_t)l->n, &rec);
}

/* launches(rank, call_key, gpu_key): every GPU event with its launching
 * call, in key order, so the gpu_key index is already sorted.            */
static bool bulk_launches(export_run *x, sqlb *w)
{
    links l = { 0 };
    bool ok = sqlb_table(w, "launches", launches_sql);
    for (size_t k = 0; ok && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        for (uint32_t ev = 0; ok && ev < r->ev.n; ev++) {
            uint32_t call = kt_kind_is_gpu(r->ev.kind[ev]) ? kt_gpu_launcher(r, ev) : KT_NONE;
            if (call != KT_NONE) ok = link_row(w, &l, r->rank, EVENT_KEY(r->rank, call), EVENT_KEY(r->rank, ev));
        }
    }
    note_rows(x, "launches", (int64_t)l.n);
    ok = ok && sqlb_end(w) &&
         link_index(w, "launches_gpu", "launches", "CREATE INDEX launches_gpu ON launches(gpu_key)", l.b, l.n) &&
         link_index(w, "launches_call", "launches", "CREATE INDEX launches_call ON launches(call_key)", l.a, l.n);
    free(l.a);
    free(l.b);
    return ok;
}

/* flows(rank, start_key, end_key): the matched flows, rank by rank. */
static bool bulk_flows(export_run *x, sqlb *w)
{
    links l = { 0 };
    bool ok = sqlb_table(w, "flows", flows_sql);
    for (size_t k = 0; ok && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        if (kt_index_flows(r) != KT_OK) ok = sqlb_fail(w, "flows could not be matched");
        const kt_flow *f = ok ? r->idx->flows : NULL;
        for (size_t i = 0; ok && i < r->idx->nflows; i++)
            ok = link_row(w, &l, r->rank, EVENT_KEY(r->rank, f[i].start), EVENT_KEY(r->rank, f[i].end));
    }
    note_rows(x, "flows", (int64_t)l.n);
    ok = ok && sqlb_end(w) && link_index(w, "flows_end", "flows", "CREATE INDEX flows_end ON flows(end_key)", l.b, l.n);
    free(l.a);
    free(l.b);
    return ok;
}

static kt_status write_bulk(export_run *x, const kt_sqlite_options *o, const char *path)
{
    sqlb *w;
    kt_status s = sqlb_create(path, x->err, sizeof x->err, &w);
    if (s != KT_OK) return s;
    sqlb_move_lock_page(w, x->pending_byte);
    bool ok = bulk_events(x, w, o->no_events) && bulk_events_index(x, w, o->no_events) &&
              bulk_launches(x, w) && bulk_flows(x, w);
    return sqlb_close(w, ok);
}

/* ---- the small tables, through SQLite ------------------------------- */

static bool write_strings(export_run *x, sqlw *w)
{
    sqlite3_stmt *st = sqlw_prepare(w, "INSERT INTO strings VALUES(?,?)");
    size_t n = kt_trace_nstrings(x->t);
    for (size_t i = 0; st && i < n; i++) {
        sqlite3_bind_int64(st, 1, (int64_t)i);
        sqlite3_bind_text(st, 2, kt_trace_string(x->t, (uint32_t)i), -1, SQLITE_STATIC);
        if (!sqlw_step(w, st)) break;
    }
    note_rows(x, "strings", (int64_t)n);
    return sqlw_finish(w, st);
}

static bool write_step_side(sqlw *w, sqlite3_stmt *st, const kt_rank *r, const char *side, const kt_step *s,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_text(st, 2, side, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, s[i].num);
        sqlite3_bind_int64(st, 4, EVENT_KEY(r->rank, s[i].ev));
        sqlite3_bind_int64(st, 5, s[i].ts);
        sqlite3_bind_int64(st, 6, s[i].dur);
        if (!sqlw_step(w, st)) return false;
    }
    return true;
}

static bool write_steps(export_run *x, sqlw *w)
{
    sqlite3_stmt *st = sqlw_prepare(w, "INSERT INTO steps VALUES(?,?,?,?,?,?)");
    int64_t rows = 0;
    for (size_t k = 0; st && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        const kt_index *idx = r->idx;
        if (!write_step_side(w, st, r, "cpu", idx->cpu_steps, idx->ncpu_steps) ||
            !write_step_side(w, st, r, "gpu", idx->gpu_steps, idx->ngpu_steps))
            break;
        rows += (int64_t)(idx->ncpu_steps + idx->ngpu_steps);
    }
    note_rows(x, "steps", rows);
    return sqlw_finish(w, st);
}

static bool write_counter_args(export_run *x, sqlw *w, sqlite3_stmt *st, const kt_rank *r, uint32_t ev,
                               int64_t *rows)
{
    const kt_strtab *strs = x->t->strs;
    for (uint32_t a = 0; a < r->ev.nargs[ev]; a++) {
        const kt_arg *g = &r->args[r->ev.argi[ev] + a];
        if (g->key < KT_ARG_DYNAMIC || g->type == KT_ARGT_STR) continue;
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_int64(st, 2, EVENT_KEY(r->rank, ev));
        sqlite3_bind_int64(st, 3, r->ev.ts[ev]);
        uint32_t name = r->ev.name[ev];
        sqlite3_bind_text(st, 4, name == KT_NONE ? "" : kt_strtab_get(strs, name), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, kt_strtab_get(strs, g->key - KT_ARG_DYNAMIC), -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 6, g->type == KT_ARGT_FLOAT ? g->v.f : (double)g->v.i);
        if (!sqlw_step(w, st)) return false;
        (*rows)++;
    }
    return true;
}

static bool write_counters(export_run *x, sqlw *w)
{
    sqlite3_stmt *st = sqlw_prepare(w, "INSERT INTO counters VALUES(?,?,?,?,?,?)");
    int64_t rows = 0;
    bool ok = st != NULL;
    for (size_t k = 0; ok && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        for (uint32_t ev = 0; ok && ev < r->ev.n; ev++)
            if (r->ev.kind[ev] == KT_K_COUNTER && r->ev.argi[ev] != KT_NONE)
                ok = write_counter_args(x, w, st, r, ev, &rows);
    }
    note_rows(x, "counters", rows);
    return sqlw_finish(w, st);
}

static bool write_ranks(export_run *x, sqlw *w)
{
    sqlite3_stmt *st = sqlw_prepare(w, "INSERT INTO ranks VALUES(?,?,?,?)");
    for (size_t k = 0; st && k < x->nranks; k++) {
        const kt_rank *r = x->ranks[k];
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_text(st, 2, r->file, -1, SQLITE_STATIC);
        if (r->world_size < 0) sqlite3_bind_null(st, 3);
        else sqlite3_bind_int(st, 3, r->world_size);
        sqlite3_bind_int64(st, 4, (int64_t)r->ev.n);
        if (!sqlw_step(w, st)) break;
    }
    return sqlw_finish(w, st);
}

/* The analysis tables users ask for most, as the CLI computes them. */
static bool write_analyses(export_run *x, sqlw *w, const kt_rank_sel *sel)
{
    kt_kernels_options ko = kt_kernels_defaults();
    ko.top = 0;
    ko.full_names = 1;
    kt_tables *k = NULL, *tp = NULL, *id = NULL;
    bool ok = kt_kernels(x->t, sel, &ko, &k) == KT_OK && kt_temporal(x->t, sel, NULL, &tp) == KT_OK &&
              kt_idle(x->t, sel, NULL, &id) == KT_OK;
    if (!ok) sqlw_fail(w, "an analysis failed");
    const kt_tables *sets[] = { k, tp, id };
    const char *prefixes[] = { "kernels_", "temporal_", "idle_" };
    for (size_t s = 0; ok && s < 3; s++)
        for (size_t i = 0; ok && i < kt_tables_count(sets[s]); i++) {
            const kt_table *tb = kt_tables_get(sets[s], i);
            char name[128];
            snprintf(name, sizeof name, "%s%s", prefixes[s], kt_table_name(tb));
            ok = sqlw_table(w, name, tb);
            note_rows(x, name, (int64_t)kt_table_nrows(tb));
        }
    kt_tables_free(k);
    kt_tables_free(tp);
    kt_tables_free(id);
    return ok;
}

static kt_status write_small(export_run *x, const kt_rank_sel *sel, const char *path)
{
    sqlw *w;
    kt_status s = sqlw_open(path, x->err, sizeof x->err, &w);
    if (s != KT_OK) return s;
    bool ok = sqlw_exec(w, schema_sql) && write_ranks(x, w) && write_strings(x, w) && write_steps(x, w) &&
              write_counters(x, w) && write_analyses(x, w, sel) && sqlw_exec(w, views_sql);
    return sqlw_close(w, ok);
}

/* ---- the export --------------------------------------------------------- */

static bool selected(const kt_rank_sel *sel, int rank)
{
    if (!sel || !sel->nranks) return true;
    for (size_t i = 0; i < sel->nranks; i++)
        if (sel->ranks[i] == rank) return true;
    return false;
}

static int by_rank(const void *a, const void *b)
{
    int ra = (*(const kt_rank *const *)a)->rank, rb = (*(const kt_rank *const *)b)->rank;
    return (ra > rb) - (ra < rb);
}

/* The selected ranks by rank number: the order of their event keys. */
static bool select_ranks(export_run *x, const kt_rank_sel *sel)
{
    x->ranks = malloc((x->t->nranks ? x->t->nranks : 1) * sizeof *x->ranks);
    if (!x->ranks) return false;
    for (size_t i = 0; i < x->t->nranks; i++)
        if (selected(sel, x->t->ranks[i]->rank)) x->ranks[x->nranks++] = x->t->ranks[i];
    qsort(x->ranks, x->nranks, sizeof *x->ranks, by_rank);
    return true;
}

/* The database is a file of its own: a path naming something else (a
 * device, a directory) is refused, not truncated, nor removed when the
 * export fails.                                                          */
static bool regular_or_missing(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

void kt_sqlite_options_init(kt_sqlite_options *o, size_t size)
{
    const kt_sqlite_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status sqlite_export(const kt_trace *t, const kt_rank_sel *sel, const kt_sqlite_options *opt,
                        uint32_t pending_byte, kt_tables **out, kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_sqlite_options o = kt_sqlite_defaults();
    if (!t || !kt_options_take(&o, sizeof o, opt) || !o.path) return KT_EUSAGE;
    if (!regular_or_missing(o.path)) {
        kt_diags_fail(diags, o.path, "not a regular file");
        return KT_EINPUT;
    }
    export_run x = { .t = t, .summary = kt_table_new("export"), .pending_byte = pending_byte };
    if (!x.summary || !select_ranks(&x, sel)) {
        kt_table_free(x.summary);
        return KT_ENOMEM;
    }
    kt_table_add_col(x.summary, "table", KT_COL_STR, 0);
    kt_table_add_col(x.summary, "rows", KT_COL_INT, 0);
    char *tmp = NULL;
    kt_status s = sqlite_target_begin(o.path, &tmp, x.err, sizeof x.err);
    if (s == KT_OK) {
        s = write_bulk(&x, &o, tmp);
        if (s == KT_OK) s = write_small(&x, sel, tmp);
        s = sqlite_target_end(tmp, o.path, s == KT_OK, x.err, sizeof x.err) == KT_OK ? s : KT_EINPUT;
    }
    free(x.ranks);
    if (s != KT_OK) {
        kt_diags_fail(diags, o.path, "%s", x.err);
        kt_table_free(x.summary);
        return s;
    }
    return kt_tables_from(&x.summary, 1, out);
}

kt_status kt_export_sqlite(const kt_trace *t, const kt_rank_sel *sel, const kt_sqlite_options *opt,
                           kt_tables **out, kt_diags **diags)
{
    return sqlite_export(t, sel, opt, SQLB_PENDING_BYTE, out, diags);
}
