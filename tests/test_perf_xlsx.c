/*
 * test_perf_xlsx.c — `kineta perf --xlsx`: the workbook, read back with
 * Debian's python3-openpyxl, holds gpu_timeline, kernel_summary and every
 * sheet `perf --tracelens --format csv` prints, cell for cell
 * (tests/xlsx_check.py), on two shared h100 traces that have TraceLens
 * oracle sheets, and on the two as ranks 0 and 1 (each rank's rows under
 * a rank column, equal to `--rank R`'s output).
 */
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Debian's python3 (pyenv's, first on PATH, lacks Debian's packages). */
static const char *python(void)
{
    const char *p = getenv("KINETA_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

/* perf --xlsx on the traces (several: --file-ranks ranks), then
 * tests/xlsx_check.py on the workbook. */
static void check_workbook(const char *ranks, const char *const *models, size_t n)
{
    char traces[4096] = "", xlsx[64], cmd[8192], opt[64] = "";
    static char out[1 << 16];
    for (size_t i = 0; i < n; i++) {
        char rel[256];
        size_t len = strlen(traces);
        snprintf(rel, sizeof rel, "traces/tracelens/h100/%s.json.gz", models[i]);
        snprintf(traces + len, sizeof traces - len, " %s", kt_test_shared_path(rel));
    }
    if (*ranks) snprintf(opt, sizeof opt, "--file-ranks %s", ranks);
    snprintf(xlsx, sizeof xlsx, "/tmp/kineta-perf-xlsx-%d.xlsx", (int)getpid());
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --format csv --table gpu_timeline --xlsx %s %s%s", xlsx, opt, traces), 0);
    snprintf(cmd, sizeof cmd, "%s tests/xlsx_check.py %s %s %s --%s >&2", python(), kt_cli_bin(), xlsx, ranks,
             traces);
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
    static const char *const models[] = { "gaunernst_bert-small-uncased__1016001", "Qwen_Qwen1.5-0.5B-Chat__1016005" };
    check_workbook("", &models[0], 1);
    check_workbook("", &models[1], 1);
    check_workbook("0,1", models, 2); /* two runs as two ranks: sheets and params differ between them */
}
