/*
 * sqlite_export.c — `kineta export --sqlite`: the trace and its most-asked
 * analyses as one SQLite file.
 *
 * Nsight users answer their own questions with SQL over `nsys export
 * --type sqlite`; this gives kineta's users the same: every event as a
 * typed row (names and categories through a strings table, so the file
 * stays small), the launch and flow links the model resolved, steps,
 * counter values, and the kernels/temporal/idle tables as the CLI prints
 * them.  One transaction, prepared statements, no journal: the file is
 * written once, and a failed export leaves no half-valid database behind
 * (it is removed).  Schema and example queries: docs/sqlite.md.
 */
#include "model/index.h"
#include "output/sqlite_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every event has one integer key, rank * 2^32 + its position in the file:
 * the table's rowid, so rows go in as appends in key order and every link
 * (launches, flows, steps, counters) is a rowid lookup — no index over
 * millions of (rank, id) pairs to build.                                  */
#define EVENT_KEY(rank, id) ((int64_t)(rank) * ((int64_t)1 << 32) + (int64_t)(id))

static const char *const schema_sql =
    "CREATE TABLE ranks(rank INTEGER PRIMARY KEY, file TEXT, world_size INTEGER, events INTEGER);"
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE events(key INTEGER PRIMARY KEY, rank INTEGER NOT NULL, id INTEGER NOT NULL, ts_ns INTEGER,"
    " dur_ns INTEGER, ph TEXT, kind TEXT, name_id INTEGER REFERENCES strings(id),"
    " cat_id INTEGER REFERENCES strings(id), pid INTEGER, tid INTEGER, stream INTEGER, correlation INTEGER,"
    " external_id INTEGER);"
    "CREATE TABLE launches(rank INTEGER NOT NULL, call_key INTEGER NOT NULL, gpu_key INTEGER NOT NULL);"
    "CREATE TABLE flows(rank INTEGER NOT NULL, start_key INTEGER NOT NULL, end_key INTEGER NOT NULL);"
    "CREATE TABLE steps(rank INTEGER NOT NULL, side TEXT NOT NULL, step INTEGER, event_key INTEGER,"
    " ts_ns INTEGER, dur_ns INTEGER);"
    "CREATE TABLE counters(rank INTEGER NOT NULL, event_key INTEGER NOT NULL, ts_ns INTEGER,"
    " name TEXT, arg TEXT, value REAL);";

/* Created after the rows are in: building an index once is far cheaper than
 * keeping it up to date row by row.                                        */
static const char *const index_sql =
    "CREATE INDEX events_correlation ON events(rank, correlation);"
    "CREATE INDEX launches_gpu ON launches(gpu_key);"
    "CREATE INDEX launches_call ON launches(call_key);"
    "CREATE INDEX flows_end ON flows(end_key);"
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
    sqlw *w;
    const kt_trace *t;
    kt_table *summary; /* "export": table, rows */
} export_run;

static void note_rows(export_run *x, const char *table, int64_t rows)
{
    kt_table_add_row(x->summary);
    kt_table_set_str(x->summary, 0, table);
    kt_table_set_int(x->summary, 1, rows);
}

static bool write_strings(export_run *x)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO strings VALUES(?,?)");
    size_t n = kt_trace_nstrings(x->t);
    for (size_t i = 0; st && i < n; i++) {
        sqlite3_bind_int64(st, 1, (int64_t)i);
        sqlite3_bind_text(st, 2, kt_trace_string(x->t, (uint32_t)i), -1, SQLITE_STATIC);
        if (!sqlw_step(x->w, st)) break;
    }
    note_rows(x, "strings", (int64_t)n);
    return sqlw_finish(x->w, st);
}

static void bind_id(sqlite3_stmt *st, int col, int64_t v)
{
    if (v == -1) sqlite3_bind_null(st, col);
    else sqlite3_bind_int64(st, col, v);
}

static void bind_name(sqlite3_stmt *st, int col, uint32_t id)
{
    if (id == KT_NONE) sqlite3_bind_null(st, col);
    else sqlite3_bind_int64(st, col, id);
}

/* The phase as one character of a constant string: no copy per row. */
static void bind_ph(sqlite3_stmt *st, int col, uint8_t ph)
{
    static const char phases[] = "XiIsftCMbenBEPOND";
    const char *p = ph ? memchr(phases, ph, sizeof phases - 1) : NULL;
    char one[2] = { (char)ph, 0 };
    if (p) sqlite3_bind_text(st, col, p, 1, SQLITE_STATIC);
    else sqlite3_bind_text(st, col, one, 1, SQLITE_TRANSIENT);
}

static bool write_events(export_run *x, const kt_rank *r)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    const kt_events *e = &r->ev;
    for (size_t i = 0; st && i < e->n; i++) {
        sqlite3_bind_int64(st, 1, EVENT_KEY(r->rank, i));
        sqlite3_bind_int(st, 2, r->rank);
        sqlite3_bind_int64(st, 3, (int64_t)i);
        sqlite3_bind_int64(st, 4, e->ts[i]);
        bind_id(st, 5, e->dur[i]);
        bind_ph(st, 6, e->ph[i]);
        sqlite3_bind_text(st, 7, kt_event_kind_name(e->kind[i]), -1, SQLITE_STATIC);
        bind_name(st, 8, e->name[i]);
        bind_name(st, 9, e->cat[i]);
        sqlite3_bind_int64(st, 10, kt_event_pid(r, (uint32_t)i));
        sqlite3_bind_int64(st, 11, kt_event_tid(r, (uint32_t)i));
        bind_id(st, 12, e->stream[i]);
        bind_id(st, 13, kt_event_corr(r, (uint32_t)i));
        bind_id(st, 14, kt_event_ext_id(r, (uint32_t)i));
        if (!sqlw_step(x->w, st)) break;
    }
    note_rows(x, "events", (int64_t)e->n);
    return sqlw_finish(x->w, st);
}

static bool write_launches(export_run *x, const kt_rank *r)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO launches VALUES(?,?,?)");
    int64_t rows = 0;
    for (uint32_t ev = 0; st && ev < r->ev.n; ev++) {
        if (!kt_kind_is_gpu(r->ev.kind[ev])) continue;
        uint32_t call = kt_gpu_launcher(r, ev);
        if (call == KT_NONE) continue;
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_int64(st, 2, EVENT_KEY(r->rank, call));
        sqlite3_bind_int64(st, 3, EVENT_KEY(r->rank, ev));
        if (!sqlw_step(x->w, st)) break;
        rows++;
    }
    note_rows(x, "launches", rows);
    return sqlw_finish(x->w, st);
}

static bool write_flows(export_run *x, const kt_rank *r)
{
    if (kt_index_flows(r) != KT_OK) return sqlw_fail(x->w, "flows could not be matched");
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO flows VALUES(?,?,?)");
    const kt_index *idx = r->idx;
    for (size_t i = 0; st && i < idx->nflows; i++) {
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_int64(st, 2, EVENT_KEY(r->rank, idx->flows[i].start));
        sqlite3_bind_int64(st, 3, EVENT_KEY(r->rank, idx->flows[i].end));
        if (!sqlw_step(x->w, st)) break;
    }
    note_rows(x, "flows", (int64_t)idx->nflows);
    return sqlw_finish(x->w, st);
}

static bool write_step_side(export_run *x, sqlite3_stmt *st, const kt_rank *r, const char *side,
                            const kt_step *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_text(st, 2, side, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, s[i].num);
        sqlite3_bind_int64(st, 4, EVENT_KEY(r->rank, s[i].ev));
        sqlite3_bind_int64(st, 5, s[i].ts);
        sqlite3_bind_int64(st, 6, s[i].dur);
        if (!sqlw_step(x->w, st)) return false;
    }
    return true;
}

static bool write_steps(export_run *x, const kt_rank *r)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO steps VALUES(?,?,?,?,?,?)");
    const kt_index *idx = r->idx;
    if (st && write_step_side(x, st, r, "cpu", idx->cpu_steps, idx->ncpu_steps))
        write_step_side(x, st, r, "gpu", idx->gpu_steps, idx->ngpu_steps);
    note_rows(x, "steps", (int64_t)(idx->ncpu_steps + idx->ngpu_steps));
    return sqlw_finish(x->w, st);
}

static bool write_counter_args(export_run *x, sqlite3_stmt *st, const kt_rank *r, uint32_t ev,
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
        if (!sqlw_step(x->w, st)) return false;
        (*rows)++;
    }
    return true;
}

static bool write_counters(export_run *x, const kt_rank *r)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO counters VALUES(?,?,?,?,?,?)");
    int64_t rows = 0;
    for (uint32_t ev = 0; st && ev < r->ev.n; ev++)
        if (r->ev.kind[ev] == KT_K_COUNTER && r->ev.argi[ev] != KT_NONE &&
            !write_counter_args(x, st, r, ev, &rows))
            break;
    note_rows(x, "counters", rows);
    return sqlw_finish(x->w, st);
}

static bool write_rank(export_run *x, const kt_rank *r, const kt_sqlite_options *o)
{
    sqlite3_stmt *st = sqlw_prepare(x->w, "INSERT INTO ranks VALUES(?,?,?,?)");
    if (st) {
        sqlite3_bind_int(st, 1, r->rank);
        sqlite3_bind_text(st, 2, r->file, -1, SQLITE_STATIC);
        if (r->world_size < 0) sqlite3_bind_null(st, 3);
        else sqlite3_bind_int(st, 3, r->world_size);
        sqlite3_bind_int64(st, 4, (int64_t)r->ev.n);
        sqlw_step(x->w, st);
    }
    if (!sqlw_finish(x->w, st)) return false;
    if (!o->no_events && !write_events(x, r)) return false;
    return write_launches(x, r) && write_flows(x, r) && write_steps(x, r) && write_counters(x, r);
}

static bool selected(const kt_rank_sel *sel, int rank)
{
    if (!sel || !sel->nranks) return true;
    for (size_t i = 0; i < sel->nranks; i++)
        if (sel->ranks[i] == rank) return true;
    return false;
}

/* The analysis tables users ask for most, as the CLI computes them. */
static bool write_analyses(export_run *x, const kt_rank_sel *sel)
{
    kt_kernels_options ko = kt_kernels_defaults();
    ko.top = 0;
    ko.full_names = 1;
    kt_tables *k = NULL, *tp = NULL, *id = NULL;
    bool ok = kt_kernels(x->t, sel, &ko, &k) == KT_OK && kt_temporal(x->t, sel, NULL, &tp) == KT_OK &&
              kt_idle(x->t, sel, NULL, &id) == KT_OK;
    if (!ok) sqlw_fail(x->w, "an analysis failed");
    const kt_tables *sets[] = { k, tp, id };
    const char *prefixes[] = { "kernels_", "temporal_", "idle_" };
    for (size_t s = 0; ok && s < 3; s++)
        for (size_t i = 0; ok && i < kt_tables_count(sets[s]); i++) {
            const kt_table *tb = kt_tables_get(sets[s], i);
            char name[128];
            snprintf(name, sizeof name, "%s%s", prefixes[s], kt_table_name(tb));
            ok = sqlw_table(x->w, name, tb);
            note_rows(x, name, (int64_t)kt_table_nrows(tb));
        }
    kt_tables_free(k);
    kt_tables_free(tp);
    kt_tables_free(id);
    return ok;
}

static bool write_all(export_run *x, const kt_rank_sel *sel, const kt_sqlite_options *o)
{
    if (!sqlw_exec(x->w, schema_sql) || !write_strings(x)) return false;
    for (size_t i = 0; i < x->t->nranks; i++) {
        const kt_rank *r = x->t->ranks[i];
        if (selected(sel, r->rank) && !write_rank(x, r, o)) return false;
    }
    return write_analyses(x, sel) && sqlw_exec(x->w, index_sql);
}

kt_status kt_export_sqlite(const kt_trace *t, const kt_rank_sel *sel, const kt_sqlite_options *opt,
                           kt_tables **out)
{
    *out = NULL;
    if (!t || !opt || !opt->path) return KT_EUSAGE;
    export_run x = { .t = t, .summary = kt_table_new("export") };
    if (!x.summary) return KT_ENOMEM;
    kt_table_add_col(x.summary, "table", KT_COL_STR, 0);
    kt_table_add_col(x.summary, "rows", KT_COL_INT, 0);
    kt_status s = sqlw_open(opt->path, opt->err, opt->errlen, &x.w);
    if (s == KT_OK) {
        bool ok = write_all(&x, sel, opt);
        s = sqlw_close(x.w, ok);
    }
    if (s != KT_OK) {
        unlink(opt->path);
        kt_table_free(x.summary);
        return s;
    }
    return kt_tables_from(&x.summary, 1, out);
}
