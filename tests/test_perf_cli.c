/*
 * test_perf_cli.c — `kineta perf` as users run it: TraceLens's GEMM.csv
 * header and row count from `--tracelens --format csv --table GEMM`, the
 * headroom table, and the exit code for a device spec that cannot be used.
 */
#include "fixture.h"
#include "oracle.h"
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


/* Run `kineta ARGS`, stdout into out; the exit code. */

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

TEST(perf_cli_tracelens_gemm_csv)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    char trace[1024]; /* kt_test_shared_path's buffer is reused below */
    snprintf(trace, sizeof trace, "%s",
             kt_test_shared_path("traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"));
    static char out[1 << 16];
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --tracelens --format csv --table GEMM %s", trace), 0);
    char *want =
        fx_read_file(kt_test_shared_path("oracle/tracelens/h100/gaunernst_bert-small-uncased__1016001/GEMM.csv"), NULL);
    if (!want) return;
    size_t hl = strcspn(want, "\n");
    CHECK(strncmp(out, want, hl) == 0 && out[hl] == '\n');
    CHECK_INT(lines(out), lines(want));
    CHECK(strstr(out, "\naten::addmm,141,30522,512,True,\"(512, 1)\",\"(1, 512)\"") != NULL);
    free(want);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --format csv --table headroom %s", trace), 0);
    CHECK(strncmp(out, "rank_by_lost,op,family,params,", 30) == 0 && strstr(out, "\n1,aten::addmm,GEMM,") != NULL);
}

TEST(perf_cli_bad_device_spec)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    char trace[64], spec[64];
    static char out[1 << 12];
    snprintf(trace, sizeof trace, "/tmp/kineta-perf-cli-%d.json", (int)getpid());
    snprintf(spec, sizeof spec, "/tmp/kineta-perf-cli-%d.spec", (int)getpid());
    FILE *f = fopen(trace, "w");
    fputs("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
          "\"ts\": 1, \"dur\": 2, \"args\": {\"stream\": 7}}]}\n", f);
    fclose(f);
    f = fopen(spec, "w");
    fputs("{\"name\": \"x\", \"max_achievable_tflops\": {}}", f); /* no mem_bw_gbps */
    fclose(f);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --device-spec %s %s", spec, trace), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --device-spec /nonexistent/spec.json %s", trace), 2);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --format csv --table notes %s", trace), 0);
    CHECK(strstr(out, "no roofline columns") != NULL);
    unlink(trace);
    unlink(spec);
}
