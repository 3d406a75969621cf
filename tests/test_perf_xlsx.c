/*
 * test_perf_xlsx.c — `kineta perf --xlsx`: the workbook, read back with
 * Debian's python3-openpyxl, holds every sheet `perf --tracelens --format
 * csv` prints, cell for cell (tests/xlsx_check.py), on two shared h100
 * traces that have TraceLens oracle sheets.
 */
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Debian's python3 (pyenv's, first on PATH, lacks Debian's packages). */
static const char *python(void)
{
    const char *p = getenv("KINETA_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

static void check_trace(const char *model)
{
    char rel[256], trace[1024], xlsx[64], cmd[2048];
    static char out[1 << 12];
    snprintf(rel, sizeof rel, "traces/tracelens/h100/%s.json.gz", model);
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path(rel));
    snprintf(xlsx, sizeof xlsx, "/tmp/kineta-perf-xlsx-%d.xlsx", (int)getpid());
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --xlsx %s %s", xlsx, trace), 0);
    snprintf(cmd, sizeof cmd, "%s tests/xlsx_check.py %s %s %s >&2", python(), kt_cli_bin(), trace, xlsx);
    CHECK_INT(system(cmd), 0);
    unlink(xlsx);
}

TEST(perf_xlsx_equals_tracelens_csv)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s -c 'import openpyxl' >/dev/null 2>&1", python());
    if (system(cmd) != 0) {
        kt_test_skip("python3 with openpyxl not found (apt-get install python3-openpyxl)");
        return;
    }
    check_trace("gaunernst_bert-small-uncased__1016001");
    check_trace("Qwen_Qwen1.5-0.5B-Chat__1016005");
}
