/*
 * test_perf_compare.c — `kineta perf --compare` (kt_perf_compare): a run
 * compared with itself differs nowhere (every row matched, every
 * difference 0, every ratio 1); HTA's trace_diff control/test pair lists
 * the ops whose kernel time changed, with both sides equal to a hand count
 * from the JSON (tests/compare_check.py); the workbook of a comparison
 * opens with openpyxl with a sheet per compared table.
 */
#include "cli_run.h"
#include "oracle.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BERT "traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"



/* Every row of t matched, its __diff cells 0 and __ratio cells 1. */
static size_t check_no_difference(const kt_table *t)
{
    long status = kt_table_col_index(t, "status");
    size_t cells = 0;
    CHECK(status >= 0);
    for (size_t r = 0; status >= 0 && r < kt_table_nrows(t); r++) {
        if (strcmp(kt_table_str(t, r, (size_t)status), "matched"))
            kt_test_fail(__FILE__, __LINE__, "%s row %zu: %s", kt_table_name(t), r, kt_table_str(t, r, (size_t)status));
        for (size_t c = 0; c < kt_table_ncols(t); c++) {
            const char *name = kt_table_col_name(t, c);
            size_t n = strlen(name);
            bool diff = n > 6 && !strcmp(name + n - 6, "__diff"), ratio = n > 7 && !strcmp(name + n - 7, "__ratio");
            if ((!diff && !ratio) || kt_table_is_null(t, r, c)) continue;
            cells++;
            if (kt_table_float(t, r, c) != (diff ? 0.0 : 1.0))
                kt_test_fail(__FILE__, __LINE__, "%s row %zu %s: %.17g", kt_table_name(t), r, name,
                             kt_table_float(t, r, c));
        }
    }
    return cells;
}

TEST(perf_compare_with_itself_differs_nowhere)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(BERT, false);
    if (!t) return;
    kt_tables *ts = NULL;
    CHECK_INT(kt_perf_compare(t, t, NULL, NULL, &ts, NULL), KT_OK);
    size_t cells = 0;
    for (size_t i = 0; ts && i < kt_tables_count(ts); i++) cells += check_no_difference(kt_tables_get(ts, i));
    CHECK(cells > 1000); /* the comparison compared something */
    CHECK(ts && kt_tables_find(ts, "gpu_timeline") && kt_tables_find(ts, "kernel_summary") &&
          kt_tables_find(ts, "GEMM") && !kt_tables_find(ts, "notes"));
    const kt_table *g = ts ? kt_tables_find(ts, "GEMM") : NULL;
    CHECK(g && kt_table_col_index(g, "param: M") >= 0 && kt_table_col_index(g, "base::Kernel Time (\xc2\xb5s)_sum") >= 0 &&
          kt_table_col_index(g, "test::Kernel Time (\xc2\xb5s)_sum") >= 0);
    kt_tables_free(ts);
}

TEST(perf_compare_trace_diff_lists_changed_ops)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    char base[1024], cmd[4096];
    snprintf(base, sizeof base, "%s", kt_test_shared_path("traces/hta/trace_diff/control/control.json.gz"));
    snprintf(cmd, sizeof cmd, "%s tests/compare_check.py %s %s %s >&2", kt_test_python(), kt_cli_bin(), base,
             kt_test_shared_path("traces/hta/trace_diff/test/test.json.gz"));
    CHECK_INT(system(cmd), 0);
}

TEST(perf_compare_workbook_opens)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    if (!kt_test_openpyxl()) return;
    char trace[1024], xlsx[64], cmd[2048];
    static char out[1 << 12];
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path(BERT));
    snprintf(xlsx, sizeof xlsx, "/tmp/kineta-perf-cmp-%d.xlsx", (int)getpid());
    CHECK_INT(kt_cli_run_out(out, sizeof out, "perf -q --format csv --table gpu_timeline --names a,b --compare %s "
                                              "--xlsx %s %s", trace, xlsx, trace), 0);
    CHECK(strstr(out, "type,status,a::time ms,b::time ms,time ms__diff,time ms__ratio") == out);
    snprintf(cmd, sizeof cmd,
             "%s -c \"import openpyxl,sys; b=openpyxl.load_workbook('%s',read_only=True); "
             "r=list(b['GEMM'].iter_rows(values_only=True)); "
             "sys.exit(not (b.sheetnames[0]=='gpu_timeline' and 'notes' not in b.sheetnames and len(r)>1 "
             "and r[0][0]=='name' and all(x[r[0].index('status')]=='matched' for x in r[1:])))\"",
             kt_test_python(), xlsx);
    CHECK_INT(system(cmd), 0);
    unlink(xlsx);
}
