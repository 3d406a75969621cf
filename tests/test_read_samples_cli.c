/*
 * test_read_samples_cli.c — every command a user starts with runs on every
 * other profiler's sample in ../shared/traces/other (exit 0, a table with
 * rows), as on a Kineto trace.
 */
#include "test.h"
#include "cli_run.h"

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

/* Each command on path: exit 0 and a header plus at least one row; launch
 * also when the sample has API calls (with_calls); report writes a page. */
static void run_all(const char *rel, bool with_calls)
{
    const char *p = kt_test_shared_path(rel);
    if (!p) {
        kt_test_skip("../shared/traces/other absent");
        return;
    }
    if (!kt_cli_bin()) {
        kt_test_skip("KINETA_BIN not set");
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    static char out[1 << 20];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        int rc = kt_cli_run_out(out, sizeof out, "%s --format csv '%s'", commands[i], path);
        if (rc != 0 || lines(out) < 2) kt_test_fail(__FILE__, __LINE__, "%s on %s: exit %d, %zu lines", commands[i], rel, rc, lines(out));
    }
    int rc = kt_cli_run_out(out, sizeof out, "launch --format csv '%s'", path);
    CHECK_INT(rc, 0);
    if (with_calls) CHECK(lines(out) >= 2);
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

TEST(read_cli_rocprof_json_sample) { run_all("traces/other/rocprofv3/908_results.json.gz", false); }
/* the sample directories gather files of different runs: no call there
 * launched a kernel there */
TEST(read_cli_rocprof_csv_samples)
{
    run_all("traces/other/rocprofv3/csv_sdk_docs", false);
    run_all("traces/other/rocprofv3/csv_rocm_systems", false);
}
TEST(read_cli_nsys_sample) { run_all("traces/other/nsys/cloverleaf/perlmutter-cloverleaf-cuda.sqlite", true); }
TEST(read_cli_xplane_samples)
{
    run_all("traces/other/jax/jax_conv_minimal_08/tw003.xplane.pb", true);
    run_all("traces/other/jax/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", true);
}
