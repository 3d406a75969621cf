/*
 * test_cli.c — the `kineta` command line as users meet it: exit codes,
 * formats, table selection, explicit file ranks.  Runs the built binary
 * ($KINETA_BIN, set by `make test`) on tiny traces written here.
 */
#include "cli_run.h"
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>


#define NEED_BIN()                                                            \
    do {                                                                      \
        if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; } \
    } while (0)

/* A one-kernel trace of the given rank in a fresh temp file. */
static char *write_trace(int rank)
{
    static int seq;
    char *path = malloc(64);
    snprintf(path, 64, "/tmp/kineta-cli-%d-%d.json", (int)getpid(), seq++);
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n\"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
               "\"tid\": 1, \"ts\": 100, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
               "\"ts\": 110, \"dur\": 20, \"args\": {\"stream\": 7, \"correlation\": 7}}\n]}\n",
            rank);
    fclose(f);
    return path;
}

/* Run `kineta ARGS`, capture stdout into out, return the exit code. */

TEST(cli_exit_codes)
{
    NEED_BIN();
    static char out[1 << 16];
    char *a = write_trace(0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "--version"), 0);
    CHECK(strstr(out, "kineta ") == out);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info %s", a), 0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "nosuchcommand %s", a), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info --nosuchoption %s", a), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info"), 2);                      /* no PATH */
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info /nonexistent/trace.json"), 3);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "kernels --format csv --table nope %s", a), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "kernels --help"), 0);
    CHECK(strstr(out, "tables:") != NULL);
    unlink(a);
    free(a);
}

TEST(cli_formats_and_table_selection)
{
    NEED_BIN();
    static char out[1 << 16];
    char *a = write_trace(0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "temporal --format csv %s", a), 0);
    CHECK_STR(out, "rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),"
                   "idle_time_pctg,compute_time_pctg,non_compute_time_pctg\n0,0,20,0,20,0,100,0\n");
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info --format json %s", a), 0);
    CHECK(strstr(out, "\"complete_by_cat\":{") != NULL);
    CHECK(strstr(out, "\"kernel\":1") != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "kernels --format json %s", a), 0);
    CHECK(out[0] == '{' && strstr(out, "\"kernels\": [") != NULL);
    unlink(a);
    free(a);
}

TEST(cli_duplicate_ranks_need_file_ranks)
{
    NEED_BIN();
    static char out[1 << 16];
    char *a = write_trace(0), *b = write_trace(0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info %s %s", a, b), 3);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info --format csv --table ranks --file-ranks 3,4 %s %s", a, b), 0);
    CHECK(strstr(out, "\n3,") != NULL && strstr(out, "\n4,") != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "info --file-ranks 3 %s %s", a, b), 2);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}

/* --timings: one line naming each phase with its wall and CPU seconds;
 * a command that loads two runs itself (diff) has no separate load;
 * nothing without the option.                                          */
TEST(cli_timings_name_each_phase)
{
    NEED_BIN();
    char out[1024];
    char *a = write_trace(0), *b = write_trace(1);
    kt_cli_run_err(out, sizeof out, "kernels -q --timings %s", a);
    double w[4], c[4];
    CHECK_INT(sscanf(out, "kineta: timings: load %lf s (CPU %lf s), kernels %lf s (CPU %lf s), output %lf s (CPU %lf s), "
                          "free %lf s (CPU %lf s)\n", &w[0], &c[0], &w[1], &c[1], &w[2], &c[2], &w[3], &c[3]), 8);
    for (int i = 0; i < 4; i++) CHECK(w[i] >= 0 && c[i] >= 0 && w[i] < 60 && c[i] < 60);
    kt_cli_run_err(out, sizeof out, "diff -q --timings %s %s", a, b);
    CHECK(strncmp(out, "kineta: timings: diff ", 22) == 0);
    kt_cli_run_err(out, sizeof out, "kernels -q %s", a);
    CHECK_STR(out, "");
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}
