/*
 * test_fuzz_pipeline.c — the fuzzers' pipeline as tests: every analysis of
 * lib/kineta.h is in the dispatch table, the invariant checks can fail,
 * the generator writes loadable traces, and every finding of the fuzzers
 * (tests/data/fuzz/, minimized inputs) and every seed replays clean under
 * the sanitizers of `make test`.
 */
#include "test.h"
#include "fixture.h"
#include "../fuzz/pipeline.h"
#include "../fuzz/trace_gen.h"
#include "table/table.h"

#include <dirent.h>
#include <stdlib.h>

static bool in_dispatch(const char *name, size_t n)
{
    for (const fz_analysis *a = fz_analyses; a->name; a++)
        if (strlen(a->name) == n && !strncmp(a->name, name, n)) return true;
    return false;
}

/* Every `kt_status kt_<name>(const kt_trace *` of the public header. */
TEST(fuzz_dispatch_lists_every_analysis)
{
    char *h = fx_read_file("lib/kineta.h", NULL);
    CHECK(h != NULL);
    if (!h) return;
    static const char decl[] = "kt_status kt_";
    size_t found = 0;
    for (char *p = strstr(h, decl); p; p = strstr(p + 1, decl)) {
        char *name = p + strlen(decl), *paren = strchr(name, '(');
        if (!paren || strncmp(paren, "(const kt_trace *", 17)) continue;
        found++;
        if (!in_dispatch(name, (size_t)(paren - name)))
            kt_test_fail(__FILE__, __LINE__, "kt_%.*s is not in fuzz/pipeline_analyses.c", (int)(paren - name), name);
    }
    CHECK(found >= 15); /* info ... export_sqlite on this branch */
    for (const fz_analysis *a = fz_analyses; a->name; a++) {
        char want[128];
        snprintf(want, sizeof want, "kt_status kt_%s(const kt_trace *", a->name);
        if (!strstr(h, want)) kt_test_fail(__FILE__, __LINE__, "dispatch line %s: no such analysis", a->name);
    }
    free(h);
}

static kt_table *one_column(const char *col, kt_col_type type, double v)
{
    kt_table *t = kt_table_new("t");
    kt_table_add_col(t, col, type, -1);
    kt_table_add_row(t);
    if (type == KT_COL_INT) kt_table_set_int(t, 0, (int64_t)v);
    else kt_table_set_float(t, 0, v);
    return t;
}

/* Returns the checker's verdict on a one-cell table (rank 0 loaded). */
static int verdict_as(const char *col, kt_col_type type, double v, int hta_compat)
{
    kt_table *t = one_column(col, type, v);
    kt_tables *ts = NULL;
    CHECK_INT(kt_tables_from(&t, 1, &ts), KT_OK);
    int ranks[] = { 0 };
    char why[256];
    int bad = fz_check_tables(ts, ranks, 1, hta_compat, why, sizeof why);
    kt_tables_free(ts);
    return bad;
}

static int verdict(const char *col, kt_col_type type, double v) { return verdict_as(col, type, v, 0); }

TEST(fuzz_invariants_catch_bad_cells)
{
    CHECK_INT(verdict("idle_time_pctg", KT_COL_FLOAT, 100.0), 0);
    CHECK_INT(verdict("idle_time_pctg", KT_COL_FLOAT, 100.5), 1);
    CHECK_INT(verdict("% kernel time", KT_COL_FLOAT, -0.5), 1);
    CHECK_INT(verdict("delta_pct", KT_COL_FLOAT, -250), 0);      /* a change, may be negative */
    CHECK_INT(verdict("idle_time_ratio", KT_COL_FLOAT, 1.25), 1);
    CHECK_INT(verdict("count", KT_COL_INT, -1), 1);
    CHECK_INT(verdict("diff_counts", KT_COL_INT, -1), 0);
    CHECK_INT(verdict("rank", KT_COL_INT, 0), 0);
    CHECK_INT(verdict("rank", KT_COL_INT, 5), 1);                 /* not a loaded rank */
}

/* Queue lengths are never negative, except as HTA computes them. */
TEST(fuzz_invariants_queue_length_not_negative)
{
    CHECK_INT(verdict("queue_length", KT_COL_INT, -1), 1);
    CHECK_INT(verdict("queue_length_min", KT_COL_FLOAT, -1), 1);
    CHECK_INT(verdict("time_weighted_50%", KT_COL_INT, -2), 1);
    CHECK_INT(verdict("queue_length", KT_COL_INT, 0), 0);
    CHECK_INT(verdict_as("queue_length", KT_COL_INT, -1, 1), 0);
    CHECK_INT(verdict_as("queue_length_min", KT_COL_FLOAT, -1, 1), 0);
}

TEST(fuzz_invariants_catch_bad_rows)
{
    kt_table *t = kt_table_new("temporal_breakdown");
    kt_table_add_col(t, "idle_time(us)", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "compute_time(us)", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "kernel_time(us)", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "min", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "mean", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "max", KT_COL_FLOAT, -1);
    double rows[2][6] = { { 4, 6, 10, 1, 2, 3 }, { 4, 7, 10, 1, 2, 3 } }; /* 4 + 7 > 10 */
    for (int r = 0; r < 2; r++) {
        kt_table_add_row(t);
        for (size_t c = 0; c < 6; c++) kt_table_set_float(t, c, rows[r][c]);
    }
    kt_tables *ts = NULL;
    CHECK_INT(kt_tables_from(&t, 1, &ts), KT_OK);
    char why[256];
    CHECK_INT(fz_check_tables(ts, NULL, 0, 0, why, sizeof why), 1);
    CHECK(strstr(why, "row 1") != NULL);
    kt_tables_free(ts);

    t = kt_table_new("d");
    kt_table_add_col(t, "x_min", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "x_mean", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "x_max", KT_COL_FLOAT, -1);
    kt_table_add_row(t);
    kt_table_set_float(t, 0, 1), kt_table_set_float(t, 1, 5), kt_table_set_float(t, 2, 4);
    CHECK_INT(kt_tables_from(&t, 1, &ts), KT_OK);
    CHECK_INT(fz_check_tables(ts, NULL, 0, 0, why, sizeof why), 1);
    CHECK(strstr(why, "x_mean") != NULL);
    kt_tables_free(ts);
}

TEST(fuzz_rendered_row_counts)
{
    const char csv[] = "a,b\n1,\"x\ny\"\n2,\"q\"\"\"\n";
    CHECK_INT(fz_csv_rows(csv, sizeof csv - 1), 2);
    CHECK_INT(fz_csv_rows("a\n", 2), 0);
    const char json[] = "[\n  {\"a\":\"x\\ny\"},\n  {\"a\":2}\n]";
    CHECK_INT(fz_json_rows(json, sizeof json - 1), 2);
    CHECK_INT(fz_json_rows("[]", 2), 0);
}

/* Generated traces load (the point of the generator: past the parser),
 * and the same bytes give the same trace.                                */
TEST(fuzz_generator_writes_loadable_traces)
{
    uint8_t bytes[512];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)(i * 131 + 7);
    for (size_t n = 0; n <= sizeof bytes; n += 128) {
        size_t len = 0, len2 = 0;
        char *a = fz_generate_trace(bytes, n, &len), *b = fz_generate_trace(bytes, n, &len2);
        CHECK(a && b && len == len2 && !memcmp(a, b, len));
        kt_load_options o = { .size = sizeof o, .jobs = 1 };
        kt_trace *t = NULL;
        kt_diags *d = NULL;
        CHECK_INT(kt_load_buffer("gen.json", a, len, &o, &t, &d), KT_OK);
        if (n) CHECK(t && kt_trace_nevents(t, 0) > 0);
        kt_trace_free(t);
        kt_diags_free(d);
        free(a), free(b);
    }
}

/* Inputs named gen-* are generator bytes, the rest trace files. */
static size_t replay_dir(const char *dir, const char *scratch)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        char path[4096], why[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        char *data = fx_read_file(path, &len);
        CHECK(data != NULL);
        if (!data) continue;
        if (!strncmp(e->d_name, "gen-", 4)) {
            char *trace = fz_generate_trace((const uint8_t *)data, len, &len);
            free(data);
            data = trace;
        }
        if (data && fz_pipeline((const uint8_t *)data, len, scratch, why, sizeof why))
            kt_test_fail(__FILE__, __LINE__, "%s: %s", path, why);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

TEST(fuzz_findings_replay_clean)
{
    char scratch[4096];
    CHECK_INT(fz_make_scratch(scratch, sizeof scratch), 0);
    CHECK(replay_dir("tests/data/fuzz", scratch) >= 1);
    fz_remove_scratch(scratch);
}

TEST(fuzz_seeds_replay_clean)
{
    char scratch[4096];
    CHECK_INT(fz_make_scratch(scratch, sizeof scratch), 0);
    CHECK(replay_dir("fuzz/seeds", scratch) >= 5);
    CHECK(replay_dir("fuzz/seeds-generated", scratch) >= 1);
    fz_remove_scratch(scratch);
}

/* Issue 17's report: `kineta gaps` on a trace without events passed NULL
 * to qsort (UBSan).  No GPU work: no rows, and the status is OK.          */
TEST(fuzz_gaps_on_empty_trace)
{
    static const char empty[] = "{\"traceEvents\":[]}";
    kt_load_options o = { .size = sizeof o, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *d = NULL;
    CHECK_INT(kt_load_buffer("rank-0.json", empty, sizeof empty - 1, &o, &t, &d), KT_OK);
    kt_tables *ts = NULL;
    CHECK_INT(kt_gaps(t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "device_idle")), 0);
    CHECK_INT(kt_table_nrows(fx_table(ts, "stream_gaps")), 0);
    CHECK_INT(kt_table_nrows(fx_table(ts, "transitions")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Times beyond what analyses can add in int64 ns are unusable fields (the
 * event skipped for ts, no duration for dur) with a warning; the edges of
 * the range load as written.                                              */
TEST(fuzz_load_times_out_of_range_are_unusable)
{
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":4611686018427387.904,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":7,\"ts\":4611686018427387.903,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":7,\"ts\":-2305843009213693.952,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"d\",\"pid\":0,\"tid\":7,\"ts\":-2305843009213693.953,\"dur\":1},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1152921504606846.976},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"f\",\"pid\":0,\"tid\":7,\"ts\":6,\"dur\":1152921504606846.975},"
        /* 16 digits of µs: ns overflow int64 on the 8-digit fast path (fuzz_parse) */
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g\",\"pid\":0,\"tid\":7,\"ts\":9610366600000000.5,\"dur\":1}]}";
    kt_load_options o = { .size = sizeof o, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *d = NULL;
    CHECK_INT(kt_load_buffer("rank-0.json", trace, sizeof trace - 1, &o, &t, &d), KT_OK);
    if (!t) return;
    CHECK_INT(kt_trace_nevents(t, 0), 4); /* a (2^62), d (below -2^61) and g skipped */
    int64_t ts[4], dur[4];
    kt_event_columns c = { .size = sizeof c, .ts = ts, .dur = dur };
    CHECK_INT(kt_trace_events(t, 0, &c), KT_OK);
    CHECK_INT(ts[0], INT64_C(4611686018427387903));
    CHECK_INT(ts[1], -INT64_C(2305843009213693952));
    CHECK_INT(dur[2], -1);                              /* 2^60 ns: no duration */
    CHECK_INT(dur[3], INT64_C(1152921504606846975));
    size_t unusable = 0;
    for (size_t i = 0; i < kt_diags_count(kt_trace_diags(t)); i++)
        unusable += strstr(kt_diags_get(kt_trace_diags(t), i)->message, "out of range") != NULL;
    CHECK(unusable >= 1);
    kt_trace_free(t);
}
