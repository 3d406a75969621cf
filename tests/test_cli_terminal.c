/*
 * test_cli_terminal.c — what a terminal shows first, and outputs that never
 * break the next run: summaries before raw tables, raw tables cut with the
 * way to the rest, empty and all-zero tables named instead of printed;
 * the tables csv leaves out named on stderr; the defaults a user expects
 * (kernels by total time, critical-path/patterns without -o, whole µs
 * without ".000"); and derived traces, --exclude and --file-ranks in a
 * directory.  Runs the built binary on real traces from ../shared.
 */
#include "cli_run.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#define OUT_CAP (1 << 22)

#define NEED_BIN()                                                                          \
    do {                                                                                    \
        if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; } \
    } while (0)

static char *out_buf(void)
{
    static char *buf;
    if (!buf) buf = malloc(OUT_CAP);
    return buf;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Rows of a csv --table (lines but the header). */
static long csv_rows(const char *args)
{
    char *out = out_buf();
    if (kt_cli_run_out(out, OUT_CAP, "%s --format csv -q", args) != 0) return -1;
    return (long)count_lines(out) - 1;
}

/* The offset of needle in s, or -1. */
static long at(const char *s, const char *needle)
{
    const char *p = strstr(s, needle);
    return p ? (long)(p - s) : -1;
}

/* ---- 11. summaries first, raw tables cut, empty tables named ------------ */
TEST(cli_terminal_summaries_first)
{
    NEED_BIN();
    NEED_SHARED();
    char trace[1024], args[1200], line[128], *out = out_buf();
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path("traces/hta/timeline_analysis"));
    snprintf(args, sizeof args, "critical-path --no-overlay --table breakdown %s", trace);
    long edges = csv_rows(args);
    CHECK(edges > 1000); /* 3527 on this trace: csv keeps every row */
    setenv("COLUMNS", "1000", 1);
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "critical-path --no-overlay --format table -q %s", trace), 0);
    CHECK(count_lines(out) < 80); /* was 2 x 3527 rows and more */
    CHECK(at(out, "== summary (") == 0);
    CHECK(at(out, "== graph (") > 0 && at(out, "== graph (") < at(out, "== breakdown ("));
    snprintf(line, sizeof line, "\n%ld more rows: --table breakdown --top 0\n", edges - 10);
    CHECK(strstr(out, line) != NULL);
    snprintf(line, sizeof line, "\n%ld more rows: --table edges --top 0\n", edges - 10);
    CHECK(strstr(out, line) != NULL);
    /* the line's advice gives every row: title, header, rows */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "critical-path --no-overlay --format table -q --table breakdown --top 0 %s", trace),
              0);
    CHECK_INT(count_lines(out), edges + 2);
    /* queue: its summary before its 2408-row series */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "queue --format table -q %s", trace), 0);
    CHECK(at(out, "== summary (") == 0 && at(out, "== series (2408 rows)") > 0);
    CHECK(strstr(out, "\n2398 more rows: --table series --top 0\n") != NULL);
    CHECK(strstr(out, "\nno rows: diagnostics\n") != NULL && !strstr(out, "== diagnostics"));
    /* collectives on a job without all-to-all: no empty tables, no zero heatmap */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "collectives --format table -q %s", trace), 0);
    CHECK(!strstr(out, "== all2allv") && !strstr(out, "== implicit_sync"));
    CHECK(strstr(out, "\nno rows: summary, all2allv_summary, implicit_sync, all2allv, unmatched\n") != NULL);
    CHECK(strstr(out, "\nall zero: all2allv_heatmap, stragglers\n") != NULL);
    /* named, an empty table is shown */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "collectives --format table -q --table all2allv %s", trace), 0);
    CHECK(at(out, "== all2allv (0 rows)\n") == 0);
    unsetenv("COLUMNS");
}

/* ---- 12. piped csv names the tables it leaves out ----------------------- */
TEST(cli_terminal_csv_names_left_out)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = kt_test_shared_path("traces/hta/timeline_analysis");
    char *out = out_buf();
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "queue %s", trace), 0); /* stdout a pipe: csv */
    CHECK(strstr(out, "kineta queue: csv holds one table, series; left out: summary (5 rows), blocked (5 rows), "
                      "weighted (5 rows), diagnostics (0 rows). --table NAME prints one of them, --format json all\n"));
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "queue --table summary %s", trace), 0);
    CHECK(!strstr(out, "left out"));
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "queue -q %s", trace), 0);
    CHECK_STR(out, "");
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "overlap %s", trace), 0); /* one table: nothing left out */
    CHECK(!strstr(out, "left out"));
}

/* ---- 13. defaults a user expects ---------------------------------------- */
TEST(cli_terminal_defaults)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = kt_test_shared_path("traces/hta/timeline_analysis");
    char *out = out_buf();
    /* kernels by total time: the total column never increases down the rows */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "kernels --format json -q --table kernels %s", trace), 0);
    double prev = INFINITY;
    int rows = 0;
    for (const char *p = strstr(out, "\"total_us\":"); p; p = strstr(p + 1, "\"total_us\":"), rows++) {
        double v = strtod(p + 11, NULL);
        CHECK(v <= prev);
        prev = v;
    }
    CHECK(rows > 10);
    /* critical-path and patterns without -o: their tables, exit 0 */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "critical-path --format table -q %s", trace), 0);
    CHECK(strstr(out, "cpu_bound") != NULL && !strstr(out, "== files"));
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "patterns --format table -q %s", trace), 0);
    CHECK(strstr(out, "== ops (3 rows)") != NULL);
    /* whole µs without ".000"; a column with fractions keeps them */
    setenv("COLUMNS", "1000", 1);
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "queue --format table -q --table series %s", trace), 0);
    CHECK(strstr(out, "\n  21283    0    7       7             1     0\n") != NULL);
    CHECK(!strstr(out, ".000"));
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "kernels --format table -q %s", trace), 0);
    CHECK(strstr(out, " 396199 ") != NULL && strstr(out, " 39619.900 ") != NULL);
    unsetenv("COLUMNS");
    /* csv carries the value itself, every digit and no padding */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "queue --format csv -q %s", trace), 0);
    CHECK(strstr(out, "\n21283,0,7,7,1,0\n") != NULL);
}

/* ---- 14. outputs written beside traces never break the next load -------- */
TEST(cli_terminal_outputs_beside_traces)
{
    NEED_BIN();
    NEED_SHARED();
    const char *src = kt_test_shared_path("traces/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz");
    char dir[] = "/tmp/kineta-beside-XXXXXX", cmd[4096], *out = out_buf();
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cp %s %s/a.json.gz", src, dir);
    CHECK_INT(system(cmd), 0);
    /* counters into the traces' own directory, as HTA writes them */
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "counters -q -o %s %s", dir, dir), 0);
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "info --format csv %s", dir), 0);
    CHECK(strstr(out, "a_with_counters.json.gz: skipped: kineta wrote it from a.json.gz") != NULL);
    snprintf(cmd, sizeof cmd, "info --table ranks %s", dir);
    CHECK_INT(csv_rows(cmd), 1); /* the one trace */
    /* named as a PATH, the derived trace loads (with its counters) */
    snprintf(cmd, sizeof cmd, "info --table ranks %s/a_with_counters.json.gz", dir);
    CHECK_INT(csv_rows(cmd), 1);
    /* two copies of one rank: --exclude, or a rank per file of the directory */
    snprintf(cmd, sizeof cmd, "cp %s %s/b.json.gz", src, dir);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "info -q %s", dir), 3);
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "info -q --exclude 'b*' --format csv %s", dir), 0);
    CHECK(strstr(out, "/a.json.gz,") && !strstr(out, "/b.json.gz,"));
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "info -q --file-ranks 3,5 --format csv %s", dir), 0);
    CHECK(strstr(out, "\n3,,") && strstr(out, "/a.json.gz,") && strstr(out, "\n5,,") && strstr(out, "/b.json.gz,"));
    CHECK_INT(kt_cli_run_out(out, OUT_CAP, "kernels -q --stream-ranks --file-ranks 3,5 --format csv %s", dir), 0);
    CHECK_INT(kt_cli_run_err(out, OUT_CAP, "info -q --file-ranks 3,5,6 %s", dir), 2);
    CHECK(strstr(out, "explicit ranks: 3 given for 2 trace files") != NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}
