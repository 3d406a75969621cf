/*
 * test_attrib_cli.c — `kineta annotations | ops | cupti | memory` as users
 * run them: exit codes, the memory timeline file recognized by content
 * (not loaded as a trace), -o DIR optional for memory.
 */
#include "cli_run.h"
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>



static char *write_file(const char *text)
{
    static int seq;
    char *path = malloc(64);
    snprintf(path, 64, "/tmp/kineta-attrib-cli-%d-%d.json", (int)getpid(), seq++);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

TEST(attrib_cli_commands)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    static char out[1 << 16];
    char *tr = write_file("{\"traceEvents\": [\n"
                          "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                          "\"ts\": 90, \"dur\": 50},\n"
                          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                          "\"tid\": 1, \"ts\": 100, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
                          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
                          "\"ts\": 110, \"dur\": 20, \"args\": {\"stream\": 7, \"correlation\": 7}}\n]}\n");
    char *tl = write_file("[[-1, 1, 100, 0], [5, 2, 50, 3]]");
    CHECK_INT(kt_cli_run_out(out, sizeof out, "ops --format csv %s", tr), 0); /* delays: 100 - 90, 110 - 100 */
    CHECK(strstr(out, "aten::mm,gemm,1,10,10,0") != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "annotations --format csv --table summary %s", tr), 0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "cupti --format csv --table match %s", tr), 0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "cupti --peak-tflops 0 %s", tr), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "memory --format csv %s", tr), 0); /* no -o: tables only */
    CHECK_INT(kt_cli_run_out(out, sizeof out, "memory --format csv --table peaks %s", tl), 0);
    CHECK(strstr(out, "total,150,5") != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info %s", tl), 3); /* a timeline is not a trace */
    unlink(tr);
    unlink(tl);
    free(tr);
    free(tl);
}
