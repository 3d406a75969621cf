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
    snprintf(cmd, sizeof cmd, "%s tests/xlsx_check.py %s %s %s --%s >&2", kt_test_python(), kt_cli_bin(), xlsx, ranks,
             traces);
    CHECK_INT(system(cmd), 0);
    unlink(xlsx);
}

/* `report --xlsx` writes the workbook `perf --xlsx` does, cell for cell. */
TEST(report_xlsx_is_perf_workbook)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    if (!kt_test_openpyxl()) return;
    char trace[1024], a[64], b[64], html[64], cmd[2048];
    static char out[1 << 12];
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path("traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"));
    snprintf(a, sizeof a, "/tmp/kineta-report-xlsx-%d.xlsx", (int)getpid());
    snprintf(b, sizeof b, "/tmp/kineta-perf-xlsx2-%d.xlsx", (int)getpid());
    snprintf(html, sizeof html, "/tmp/kineta-report-xlsx-%d.html", (int)getpid());
    CHECK_INT(kt_cli_run_out(out, sizeof out, "report -q --xlsx %s -o %s %s", a, html, trace), 0);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --format csv --table gpu_timeline --xlsx %s %s", b, trace), 0);
    snprintf(cmd, sizeof cmd,
             "%s -c \"import openpyxl,sys; x,y=(openpyxl.load_workbook(p,read_only=True) for p in sys.argv[1:]); "
             "v=lambda b:[[list(r) for r in b[s].iter_rows(values_only=True)] for s in b.sheetnames]; "
             "sys.exit(not (x.sheetnames==y.sheetnames and v(x)==v(y) and len(x.sheetnames)>5))\" %s %s",
             kt_test_python(), a, b);
    CHECK_INT(system(cmd), 0);
    unlink(a);
    unlink(b);
    unlink(html);
}

TEST(perf_xlsx_equals_tracelens_csv)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    if (!kt_test_openpyxl()) return;
    static const char *const models[] = { "gaunernst_bert-small-uncased__1016001", "Qwen_Qwen1.5-0.5B-Chat__1016005" };
    check_workbook("", &models[0], 1);
    check_workbook("0,1", models, 2); /* two runs as two ranks: sheets and params differ between them */
}
