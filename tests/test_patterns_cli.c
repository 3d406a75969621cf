/* test_patterns_cli.c — `kineta patterns` as users meet it: -o DIR is
 * where the overlay lands (none without it, with --no-overlay or --mine), --mine, bad options and an empty op name are usage errors
 * (exit 2). Runs $KINETA_BIN (set by `make test`). */
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(patterns_cli_exit_codes_and_overlay)
{
    const char *bin = getenv("KINETA_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    char dir[] = "/tmp/kt_patterns_cli_XXXXXX", in[300], out[300], cmd[2048];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/t.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(in, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"traceEvents\": [\n"
          "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::foo\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 50, \"args\": {}},\n"
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1, \"args\": {\"correlation\": 2}},\n"
          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 2, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 0, \"tid\": 7, \"ts\": 13, \"dur\": 2, \"args\": {\"stream\": 7, \"correlation\": 2}}\n"
          "]}\n", f);
    fclose(f);
    CHECK(mkdir(out, 0755) == 0);
    snprintf(cmd, sizeof cmd,
             "%s patterns -q --op aten::foo --min-len 2 --format csv --table patterns %s | grep -qx "
             "'aten::foo|a|b,1,4,50,0'",
             bin, in);
    CHECK_INT(sh(cmd), 0); /* no -o DIR: the tables, no overlay */
    snprintf(cmd, sizeof cmd, "ls %s | wc -l | grep -qx 2", dir); /* t.json and out/ */
    CHECK_INT(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s patterns -q --op '' -o %s %s >/dev/null 2>&1", bin, out, in);
    CHECK_INT(sh(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s patterns -q --max-len 1 --mine -o %s %s >/dev/null 2>&1", bin, out, in);
    CHECK_INT(sh(cmd), 2);
    snprintf(cmd, sizeof cmd,
             "%s patterns -q --op aten::foo --min-len 2 --format csv --table patterns -o %s %s | grep -qx "
             "'aten::foo|a|b,1,4,50,0'",
             bin, out, in);
    CHECK_INT(sh(cmd), 0);
    char ov[400];
    snprintf(ov, sizeof ov, "%s/overlaid_t.json", out);
    CHECK(access(ov, R_OK) == 0);
    snprintf(cmd, sizeof cmd, "%s patterns -q --mine --format csv --table sequences -o %s %s | wc -l | grep -qx 1",
             bin, out, in);
    CHECK_INT(sh(cmd), 0); /* a|b occurs once: header only */
    unlink(ov);
    /* tables only: no -o needed, nothing written */
    snprintf(cmd, sizeof cmd,
             "%s patterns -q --no-overlay --op aten::foo --min-len 2 --format csv --table patterns %s | grep -qx "
             "'aten::foo|a|b,1,4,50,0'",
             bin, in);
    CHECK_INT(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s patterns -q --mine --format csv --table sequences %s | wc -l | grep -qx 1", bin, in);
    CHECK_INT(sh(cmd), 0);
    CHECK(access(ov, F_OK) != 0);
    rmdir(out);
    unlink(in);
    rmdir(dir);
}
