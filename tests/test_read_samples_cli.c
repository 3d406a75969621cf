/*
 * test_read_samples_cli.c — every command a user starts with runs on every
 * other profiler's sample in ../shared/traces/other (exit 0, a table with
 * rows), as on a Kineto trace; where a table cannot have rows (no host
 * calls recorded: no launches; no communication kernels: no collectives)
 * the command still exits 0 and a footnote says why.  The JAX samples also
 * run as the Chrome trace jax.profiler writes beside them.
 */
#include "test.h"
#include "cli_run.h"
#include "read_check.h"

#include <stdlib.h>
#include <unistd.h>

/* Commands whose table must have rows on a sample with kernels. */
static const char *const commands[] = { "info", "kernels", "categories", "temporal", "idle",
                                        "breakdown", "gaps", "overlap" };

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* launch: rows when the sample has API calls (with_calls), else a
 * footnote; collectives: its kernels table has rows when the sample has
 * communication kernels (with_comm), else a footnote.                   */
static void run_empty_or_noted(const char *path, const char *rel, const char *cmd, const char *table, bool rows,
                               const char *note)
{
    static char out[1 << 20];
    int rc = kt_cli_run_out(out, sizeof out, "%s --table %s --format csv '%s'", cmd, table, path);
    CHECK_INT(rc, 0);
    if (rows != (lines(out) >= 2)) kt_test_fail(__FILE__, __LINE__, "%s on %s: %zu lines", cmd, rel, lines(out));
    if (rows) return;
    /* the terminal view names the empty table and gives its footnote */
    CHECK_INT(kt_cli_run_out(out, sizeof out, "%s --format table '%s'", cmd, path), 0);
    if (!strstr(out, note)) kt_test_fail(__FILE__, __LINE__, "%s on %s: no footnote \"%s\" in: %.300s", cmd, rel, note, out);
}

/* Each command on path: exit 0 and a header plus at least one row; launch
 * and collectives as run_empty_or_noted says; report writes a page.      */
static void run_path(const char *path, const char *rel, bool with_calls, bool with_comm)
{
    static char out[1 << 20];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        int rc = kt_cli_run_out(out, sizeof out, "%s --format csv '%s'", commands[i], path);
        if (rc != 0 || lines(out) < 2) kt_test_fail(__FILE__, __LINE__, "%s on %s: exit %d, %zu lines", commands[i], rel, rc, lines(out));
    }
    run_empty_or_noted(path, rel, "launch", "launches", with_calls, "no launches:");
    run_empty_or_noted(path, rel, "collectives", "kernels", with_comm,
                       "no collectives: the trace holds no communication kernel");
    char html[] = "/tmp/kt_read_report_XXXXXX";
    int fd = mkstemp(html);
    if (fd >= 0) close(fd);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "report '%s' -o %s", path, html), 0);
    FILE *f = fopen(html, "r");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_END);
        CHECK(ftell(f) > 10000);
        fclose(f);
    }
    unlink(html);
}

static bool have_cli(void)
{
    if (kt_cli_bin()) return true;
    kt_test_skip("KINETA_BIN not set");
    return false;
}

static void run_all(const char *rel, bool with_calls, bool with_comm)
{
    const char *p = kt_test_shared_path(rel);
    if (!p) {
        kt_test_skip("../shared/traces/other absent");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    if (have_cli()) run_path(path, rel, with_calls, with_comm);
}

/* The MI350X sample has RCCL kernels but no API calls */
TEST(read_cli_rocprof_json_sample) { run_all("traces/other/rocprofv3/908_results.json.gz", false, true); }
/* the sample directories gather files of different runs: no call there
 * launched a kernel there */
TEST(read_cli_rocprof_csv_samples)
{
    run_all("traces/other/rocprofv3/csv_sdk_docs", false, false);
    run_all("traces/other/rocprofv3/csv_rocm_systems", true, false);
}
TEST(read_cli_nsys_sample) { run_all("traces/other/nsys/cloverleaf/perlmutter-cloverleaf-cuda.sqlite", true, false); }
TEST(read_cli_xplane_samples)
{
    run_all("traces/other/jax/jax_conv_minimal_08/tw003.xplane.pb", true, false);
    run_all("traces/other/jax/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", true, false);
}

/* A profile as jax.profiler's trace.json.gz (written here from
 * the .xplane.pb by tests/xplane_to_trace_json.py). */
static void run_as_trace_json(const char *rel)
{
    char pb[1024], json[64];
    if (!rd_xplane_as_trace_json(rel, pb, sizeof pb, json, sizeof json)) return;
    if (have_cli()) run_path(json, rel, true, false);
    unlink(json);
}

/* one of them: test_read_xla_trace.c compares both with their .xplane.pb */
TEST(read_cli_xla_trace_json_sample)
{
    run_as_trace_json("traces/other/jax/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
}
