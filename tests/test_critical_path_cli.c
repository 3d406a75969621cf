/*
 * test_critical_path_cli.c — `kineta critical-path` as users meet it: the
 * tables on stdout and the overlay in -o DIR, exit 1 with a one-line reason
 * when a trace has no CPU ops or no GPU events, exit 2 on bad options.
 * Runs the built binary ($KINETA_BIN, set by `make test`).
 */
#include "cli_run.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>


/* A trace of these events in dir/name. */
static void write_trace(const char *dir, const char *name, const char *events)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"distributedInfo\": {\"rank\": 0},\n\"traceEvents\": [\n%s\n]}\n", events);
    fclose(f);
}

/* Run `kineta ARGS` with stderr joined to stdout into out; the exit code. */
static int run(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *out, size_t cap, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", kt_cli_bin(), args);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define OP                                                                                                    \
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100}"
#define LAUNCH                                                                                                \
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 10," \
    " \"dur\": 10, \"args\": {\"correlation\": 5}}"
#define KERNEL                                                                                                \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 130," \
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 5}}"

TEST(critical_path_cli)
{
    if (!kt_cli_bin()) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    char dir[] = "/tmp/kt_cp_cli_XXXXXX", out_dir[300], overlay[400];
    static char out[1 << 16];
    CHECK(mkdtemp(dir) != NULL);
    write_trace(dir, "ok.json", OP ",\n" LAUNCH ",\n" KERNEL);
    write_trace(dir, "gpu_only.json", KERNEL);
    write_trace(dir, "cpu_only.json", OP);
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    snprintf(overlay, sizeof overlay, "%s/overlaid_critical_path_ok.json", out_dir);

    CHECK_INT(run(out, sizeof out, "critical-path -q --format csv -o %s %s/ok.json", out_dir, dir), 0);
    CHECK(strstr(out, "rank,bound_by,pct_of_critical_path_duration,duration_us") == out);
    CHECK(strstr(out, "0,gpu_compute_bound,72.22222222222223,130\n") != NULL);
    CHECK(access(overlay, R_OK) == 0);
    CHECK_INT(run(out, sizeof out, "critical-path -q --format csv --table what_if --what-if launch=0 -o %s %s/ok.json",
                  out_dir, dir), 0);
    CHECK(strstr(out, "0,launch=0,180,140,-22.22222222222222\n") != NULL);

    CHECK_INT(run(out, sizeof out, "critical-path -q -o %s %s/gpu_only.json", out_dir, dir), 1);
    CHECK(strstr(out, "kineta critical-path: rank 0: no CPU ops in the trace") != NULL);
    CHECK_INT(run(out, sizeof out, "critical-path -q -o %s %s/cpu_only.json", out_dir, dir), 1);
    CHECK(strstr(out, "no GPU events") != NULL);
    /* without -o DIR, or with --no-overlay, the tables and no overlay */
    CHECK_INT(run(out, sizeof out, "critical-path -q --no-overlay --format csv %s/ok.json", dir), 0);
    CHECK(strstr(out, "0,gpu_compute_bound,72.22222222222223,130\n") != NULL);
    CHECK_INT(run(out, sizeof out, "critical-path -q --format csv %s/ok.json", dir), 0);
    CHECK(strstr(out, "0,gpu_compute_bound,72.22222222222223,130\n") != NULL);
    CHECK_INT(run(out, sizeof out, "critical-path -q --instance 3-1 -o %s %s/ok.json", out_dir, dir), 2);
    CHECK_INT(run(out, sizeof out, "critical-path -q --what-if launch=x -o %s %s/ok.json", out_dir, dir), 2);
    CHECK_INT(run(out, sizeof out, "critical-path -q -o %s %s/ok.json", dir, dir), 2); /* next to the input */
    CHECK(strstr(out, "choose another directory") != NULL);

    char path[400];
    const char *names[] = { "ok.json", "gpu_only.json", "cpu_only.json" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    unlink(overlay);
    rmdir(out_dir);
    rmdir(dir);
}

/* The summary has no blank bound_by row (the dependency / sync edges,
 * always 0 %) but under --hta-compat, where HTA has it.                  */
TEST(critical_path_cli_summary_without_blank_row)
{
    if (!kt_cli_bin()) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    const char *trace = "../shared/traces/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz";
    if (access(trace, R_OK) != 0) {
        kt_test_skip("../shared/traces not present");
        return;
    }
    static char out[1 << 14];
    CHECK_INT(run(out, sizeof out, "critical-path --no-overlay --format csv --table summary %s", trace), 0);
    CHECK(strstr(out, "rank,bound_by,") == out);
    CHECK(strstr(out, "\n0,,") == NULL);
    CHECK(strstr(out, "\n0,cpu_bound,") != NULL);
    CHECK_INT(run(out, sizeof out, "critical-path --hta-compat --no-overlay --format csv --table summary %s", trace), 0);
    CHECK(strstr(out, "\n0,,0,0\n") != NULL);
}
