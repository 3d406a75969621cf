/* test_diff_oracle.c — kineta diff's "ops" and "ops_diff" under
 * --hta-compat against HTA's TraceDiff outputs (../shared/oracle/hta/
 * diff_trace_diff and diff_trace_compare: compare_traces.csv, the GPU
 * short-name comparison and ops_diff.json), column for column and row for
 * row; and the call-tree diff across vendors (an AMD MI250 trace against
 * an H100 one) against expectations computed by hand from the JSON.     */
#include "kineta.h"
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair {
    const char *oracle, *control, *test;
} pair;

static const pair pairs[] = {
    { "diff_trace_diff", "traces/hta/trace_diff/control", "traces/hta/trace_diff/test" },
    { "diff_trace_compare", "traces/hta/trace_compare/base", "traces/hta/trace_compare/test" },
};

/* Table "ops" equals the CSV: same columns (HTA writes NaN-joined counts
 * as floats, "2.0": compared as numbers), same rows in the same order.   */
static void compare_ops(const char *what, const kt_tables *ts, const fx_csv *c)
{
    const kt_table *t = kt_tables_find(ts, "ops");
    CHECK(t && c);
    if (!t || !c) return;
    CHECK_INT(kt_table_nrows(t), c->nrows - 1);
    CHECK_INT(kt_table_ncols(t), c->ncols[0]);
    size_t bad = 0;
    for (size_t k = 0; k < c->ncols[0] && k < kt_table_ncols(t); k++) {
        CHECK_STR(kt_table_col_name(t, k), c->row[0][k]);
        for (size_t i = 0; i + 1 < c->nrows && i < kt_table_nrows(t); i++) {
            const char *theirs = c->row[i + 1][k];
            bool ok = kt_table_col_type(t, k) == KT_COL_STR
                          ? !strcmp(kt_table_str(t, i, k), theirs)
                          : (kt_table_col_type(t, k) == KT_COL_INT ? (double)kt_table_int(t, i, k)
                                                                   : kt_table_float(t, i, k)) == strtod(theirs, NULL);
            if (!ok && bad++ < 3)
                kt_test_fail(__FILE__, __LINE__, "%s row %zu column %s: HTA %s", what, i, c->row[0][k], theirs);
        }
    }
}

/* ops_diff.json: {"added": [names...], ...}; names are plain JSON strings. */
static char *next_string(char **p)
{
    char *s = strchr(*p, '"');
    if (!s) return NULL;
    char *w = ++s, *r = s;
    for (; *r && *r != '"'; r++) {
        if (*r == '\\' && r[1]) r++;
        *w++ = *r;
    }
    *p = *r ? r + 1 : r;
    *w = '\0';
    return s;
}

static void compare_ops_diff(const char *what, const kt_tables *ts, const char *json_rel)
{
    const kt_table *t = kt_tables_find(ts, "ops_diff");
    const char *path = kt_test_shared_path(json_rel);
    char *text = path ? fx_read_file(path, NULL) : NULL;
    CHECK(t && text);
    if (!t || !text) { free(text); return; }
    size_t row = 0, bad = 0;
    char *p = text, *change = NULL;
    for (char *s; (s = next_string(&p));) {
        char *after = p;
        while (*after == ' ' || *after == '\n') after++;
        if (*after == ':') { change = s; continue; } /* a key: the list that follows */
        bool ok = row < kt_table_nrows(t) && change && !strcmp(kt_table_str(t, row, 0), change) &&
                  !strcmp(kt_table_str(t, row, 1), s);
        if (!ok && bad++ < 3) kt_test_fail(__FILE__, __LINE__, "%s ops_diff row %zu: HTA %s %s", what, row, change, s);
        row++;
    }
    CHECK_INT(kt_table_nrows(t), row);
    free(text);
}

static void check_pair(const pair *p, bool hta_compat)
{
    const kt_trace *c = fx_shared_trace(p->control, false), *t = fx_shared_trace(p->test, false);
    if (!c || !t) return;
    char rel[256];
    kt_diff_options o = kt_diff_defaults();
    o.hta_compat = hta_compat;
    kt_tables *ts;
    CHECK_INT(kt_diff(c, t, &o, &ts, NULL), KT_OK);
    snprintf(rel, sizeof rel, "oracle/hta/%s/compare_traces.csv", p->oracle);
    fx_csv *csv = fx_csv_read(rel);
    compare_ops(p->oracle, ts, csv);
    fx_csv_free(csv);
    snprintf(rel, sizeof rel, "oracle/hta/%s/ops_diff.json", p->oracle);
    compare_ops_diff(p->oracle, ts, rel);
    kt_tables_free(ts);

    o.device = KT_DIFF_DEVICE_GPU;
    o.short_names = 1;
    CHECK_INT(kt_diff(c, t, &o, &ts, NULL), KT_OK);
    snprintf(rel, sizeof rel, "oracle/hta/%s/compare_traces_short_name_gpu.csv", p->oracle);
    csv = fx_csv_read(rel);
    compare_ops(p->oracle, ts, csv);
    fx_csv_free(csv);
    kt_tables_free(ts);
}

TEST(diff_oracle_trace_diff)
{
    NEED_SHARED();
    check_pair(&pairs[0], true);
}

TEST(diff_oracle_trace_compare)
{
    NEED_SHARED();
    check_pair(&pairs[1], true);
}

/* Both pairs have integer µs timestamps, one rank and CUDA launches: our
 * own rules give HTA's numbers there too.                                 */
TEST(diff_oracle_default_rules_agree_on_us_traces)
{
    NEED_SHARED();
    check_pair(&pairs[0], false);
    check_pair(&pairs[1], false);
}

/* The first row of `tree` with this name at this depth, or -1. */
static long tree_row(const kt_table *t, const char *name, int64_t depth)
{
    long n = kt_table_col_index(t, "name"), d = kt_table_col_index(t, "depth");
    for (size_t i = 0; i < kt_table_nrows(t); i++)
        if (!strcmp(kt_table_str(t, i, (size_t)n), name) && kt_table_int(t, i, (size_t)d) == depth) return (long)i;
    return -1;
}

static double cell(const kt_table *t, long row, const char *col)
{
    long c = kt_table_col_index(t, col);
    if (row < 0 || c < 0) return -12345;
    return kt_table_col_type(t, (size_t)c) == KT_COL_INT ? (double)kt_table_int(t, (size_t)row, (size_t)c)
                                                          : kt_table_float(t, (size_t)row, (size_t)c);
}

/* AMD (MI250, ROCm 6.2, a toy MLP training step, ProfilerStep#1) against
 * H100 (bert-small inference, ProfilerStep#6).  Expected values computed
 * from the JSON by hand (python): GPU work of the first step, by its GPU
 * ProfilerStep annotation, else its launch's step: AMD 16 events, 149.042
 * us; H100 61 events, 309.437 us.  aten::linear → aten::addmm match; the
 * GPU time launched inside aten::addmm: AMD 1 op, 24.480 us (hipLaunchKernel
 * + hipExtModuleLaunchKernel), H100 26 ops, 197.598 us (22 cuLaunchKernel
 * and 4 cudaLaunchKernelExC); all their launch calls align as one node
 * (every kernel launch API normalises to "LaunchKernel").                 */
TEST(diff_tree_across_vendors_amd_vs_h100)
{
    NEED_SHARED();
    const kt_trace *amd = fx_shared_trace("traces/hta/amd_trace", false);
    const kt_trace *h100 = fx_shared_trace("traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz", false);
    if (!amd || !h100) return;
    kt_tables *ts;
    CHECK_INT(kt_diff(amd, h100, NULL, &ts, NULL), KT_OK);
    const kt_table *t = kt_tables_find(ts, "tree");
    CHECK(t != NULL);
    if (!t) { kt_tables_free(ts); return; }
    long root = tree_row(t, "(root)", 0), step = tree_row(t, "ProfilerStep#1", 1);
    CHECK_NEAR(cell(t, root, "Control_gpu_us"), 149.042, 1e-9);
    CHECK_NEAR(cell(t, root, "Test_gpu_us"), 309.437, 1e-9);
    CHECK(step >= 0 && !strcmp(kt_table_str(t, (size_t)step, 3), "matched"));
    CHECK(step >= 0 && !strcmp(kt_table_str(t, (size_t)step, 5), "ProfilerStep#6"));
    long linear = tree_row(t, "aten::linear", 2), addmm = tree_row(t, "aten::addmm", 3);
    CHECK(linear >= 0 && cell(t, addmm, "parent") == (double)linear);
    CHECK_INT(cell(t, addmm, "Control_count"), 1);
    CHECK_INT(cell(t, addmm, "Test_count"), 26);
    CHECK_NEAR(cell(t, addmm, "Control_gpu_us"), 24.480, 1e-9);
    CHECK_NEAR(cell(t, addmm, "Test_gpu_us"), 197.598, 1e-9);
    CHECK_NEAR(cell(t, addmm, "delta_gpu_us"), 197.598 - 24.480, 1e-9);
    long launch = tree_row(t, "hipLaunchKernel", 4);
    CHECK(launch >= 0 && cell(t, launch, "parent") == (double)addmm);
    CHECK(launch >= 0 && !strcmp(kt_table_str(t, (size_t)launch, 3), "matched"));
    CHECK(launch >= 0 && !strcmp(kt_table_str(t, (size_t)launch, 5), "cuLaunchKernel"));
    CHECK_INT(cell(t, launch, "Control_count"), 2); /* + hipExtModuleLaunchKernel */
    CHECK_INT(cell(t, launch, "Test_count"), 26);   /* 22 cuLaunchKernel + 4 cudaLaunchKernelExC */
    CHECK_NEAR(cell(t, launch, "Test_gpu_us"), 197.598, 1e-9);
    CHECK(tree_row(t, "hipExtModuleLaunchKernel", 4) < 0);
    /* the kernels of aten::addmm on each side sum to its own launches' time */
    const kt_table *k = kt_tables_find(ts, "kernels");
    double sum[2] = { 0, 0 };
    for (size_t i = 0; k && i < kt_table_nrows(k); i++)
        if (kt_table_int(k, i, 0) == addmm) sum[strcmp(kt_table_str(k, i, 1), "Control") != 0] += kt_table_float(k, i, 4);
    CHECK_NEAR(sum[0], 24.480, 1e-9);
    CHECK_NEAR(sum[1], 197.598, 1e-9);
    kt_tables_free(ts);
}

/* Every shared trace against itself, with our rules and HTA's: every ops
 * row '=', every name unchanged, every merged node matched with no GPU
 * delta — or, for files with nothing to compare, a clear input error.    */
static void check_self(const char *path, bool hta_compat)
{
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    if (kt_load(&path, 1, NULL, &t, &fail) != KT_OK) { /* not a Kineto trace: the loader's tests */
        kt_diags_free(fail);
        return;
    }
    kt_diff_options o = kt_diff_defaults();
    o.hta_compat = hta_compat;
    kt_tables *ts = NULL;
    kt_diags *why;
    kt_status st = kt_diff(t, t, &o, &ts, &why);
    const char *err = fx_why(why);
    if (st != KT_OK) {
        if (st != KT_EINPUT || !err[0]) kt_test_fail(__FILE__, __LINE__, "%s: %s (%s)", path, kt_status_str(st), err);
        kt_trace_free(t);
        return;
    }
    const kt_table *ops = kt_tables_find(ts, "ops"), *od = kt_tables_find(ts, "ops_diff"), *tree = kt_tables_find(ts, "tree");
    size_t bad = 0;
    for (size_t i = 0; i < kt_table_nrows(ops); i++)
        bad += strcmp(kt_table_str(ops, i, 7), "=") != 0 || kt_table_float(ops, i, 6) != 0;
    for (size_t i = 0; i < kt_table_nrows(od); i++) bad += strcmp(kt_table_str(od, i, 0), "unchanged") != 0;
    long status = kt_table_col_index(tree, "status"), delta = kt_table_col_index(tree, "delta_gpu_us");
    for (size_t i = 0; i < kt_table_nrows(tree); i++)
        bad += strcmp(kt_table_str(tree, i, (size_t)status), "matched") != 0 || kt_table_float(tree, i, (size_t)delta) != 0;
    if (bad || kt_table_nrows(ops) != kt_table_nrows(od) || kt_table_nrows(tree) == 0)
        kt_test_fail(__FILE__, __LINE__, "%s%s: %zu cells changed against itself", path, hta_compat ? " (hta)" : "", bad);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(diff_every_shared_trace_against_itself)
{
    NEED_SHARED();
    size_t n = 0;
    char **files = fx_shared_trace_files(&n);
    CHECK(n > 20);
    for (size_t i = 0; i < n; i++) {
        check_self(files[i], false);
        check_self(files[i], true);
    }
    fx_free_paths(files, n);
}
