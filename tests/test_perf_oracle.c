/* test_perf_oracle.c — `kineta perf --tracelens` against TraceLens's own
 * perf-report CSVs for the five shared h100 traces
 * (../shared/oracle/tracelens/h100/<model>/<sheet>.csv; the other shared
 * traces with TraceLens outputs have only its timeline sheets, which
 * test_timeline_oracle.c compares).
 *
 * Rows are keyed by name and the "param: " columns and must come in
 * TraceLens's order.  Every number equals TraceLens's to the last digit:
 * the same double (throughputs with TraceLens's operations in its order,
 * groups' means and stds as pandas aggregates them, percentages over
 * numpy's sum).  The list-of-dicts columns (kernel_details_summary,
 * kernel_details__summarize_kernel_stats, trunc_kernel_details: Python
 * reprs with numpy scalars) compare as text.  The CSV writer's side is
 * checked by test_csv_digits.c: a CSV reads back to these doubles.       */
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const models[] = {
    "Falconsai_nsfw_image_detection__1016002", "Qwen_Qwen1.5-0.5B-Chat__1016005",
    "facebook_timesformer-base-finetuned-k400__1016002", "gaunernst_bert-small-uncased__1016001",
    "google_owlv2-large-patch14-ensemble__1016001",
};

/* The sheets `kineta perf --tracelens` produces. */
static const char *const sheets[] = { "ops_summary", "ops_summary_by_category", "ops_unique_args",
                                      "unified_perf_summary", "short_kernels_summary", "GEMM", "SDPA_fwd", "CONV_fwd",
                                      "UnaryElementwise", "BinaryElementwise", "Normalization", "Reduce_fwd",
                                      "kernel_summary" };

static void cell(const kt_table *t, size_t r, size_t c, char *buf, size_t cap)
{
    if (kt_table_is_null(t, r, c)) snprintf(buf, cap, "%s", "");
    else if (kt_table_col_type(t, c) == KT_COL_STR) snprintf(buf, cap, "%s", kt_table_str(t, r, c));
    else if (kt_table_col_type(t, c) == KT_COL_INT) snprintf(buf, cap, "%lld", (long long)kt_table_int(t, r, c));
    else snprintf(buf, cap, "%.17g", kt_table_float(t, r, c));
}

static double num(const kt_table *t, size_t r, size_t c)
{
    if (kt_table_is_null(t, r, c)) return NAN;
    return kt_table_col_type(t, c) == KT_COL_INT ? (double)kt_table_int(t, r, c) : kt_table_float(t, r, c);
}

static bool same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* The row key: name and every "param: " column, as the CSV writes them. */
static void oracle_key(const fx_csv *c, size_t row, char *key, size_t cap)
{
    size_t k = (size_t)snprintf(key, cap, "%s", c->row[row][0]);
    for (size_t j = 1; j < c->ncols[0] && k < cap; j++)
        if (!strncmp(c->row[0][j], "param: ", 7)) k += (size_t)snprintf(key + k, cap - k, "|%s", c->row[row][j]);
}

static void our_key(const kt_table *t, size_t row, char *key, size_t cap)
{
    char v[512];
    cell(t, row, 0, v, sizeof v);
    size_t k = (size_t)snprintf(key, cap, "%s", v);
    for (size_t j = 1; j < kt_table_ncols(t) && k < cap; j++)
        if (!strncmp(kt_table_col_name(t, j), "param: ", 7)) {
            cell(t, row, j, v, sizeof v);
            k += (size_t)snprintf(key + k, cap - k, "|%s", v);
        }
}

static void compare_cell(const char *what, const kt_table *t, size_t i, size_t j, const char *col,
                         const char *theirs, size_t *bad)
{
    bool ok;
    if (kt_table_col_type(t, j) == KT_COL_STR) {
        ok = !strcmp(kt_table_str(t, i, j), theirs);
    } else {
        double b = *theirs ? strtod(theirs, NULL) : NAN;
        if (*theirs && !strcmp(theirs, "True")) b = 1;
        ok = same(num(t, i, j), b);
    }
    char ours[512];
    cell(t, i, j, ours, sizeof ours);
    if (!ok && (*bad)++ < 5)
        kt_test_fail(__FILE__, __LINE__, "%s row %zu %s: ours %s, TraceLens %s", what, i, col, ours, theirs);
}

/* Same rows (by key, in order) and every oracle column equal. */
static void compare_sheet(const char *model, const kt_tables *ts, const char *sheet)
{
    char rel[512], what[600];
    snprintf(rel, sizeof rel, "oracle/tracelens/h100/%s/%s.csv", model, sheet);
    snprintf(what, sizeof what, "%s %s", model, sheet);
    fx_csv *c = fx_csv_read(rel);
    const kt_table *t = kt_tables_find(ts, sheet);
    if (!c) {
        if (t && kt_table_nrows(t)) kt_test_fail(__FILE__, __LINE__, "%s: we have rows, TraceLens no sheet", what);
        return;
    }
    size_t want = c->nrows - 1, bad = 0;
    if (!t || kt_table_nrows(t) != want) {
        kt_test_fail(__FILE__, __LINE__, "%s: %zu rows, TraceLens %zu", what, t ? kt_table_nrows(t) : 0, want);
        fx_csv_free(c);
        return;
    }
    for (size_t i = 0; i < want && bad < 5; i++) {
        char k1[2048], k2[2048];
        oracle_key(c, i + 1, k1, sizeof k1);
        our_key(t, i, k2, sizeof k2);
        if (strcmp(k1, k2)) {
            kt_test_fail(__FILE__, __LINE__, "%s row %zu: ours %s, TraceLens %s", what, i, k2, k1);
            bad++;
            continue;
        }
        for (size_t k = 0; k < c->ncols[0]; k++) {
            const char *col = c->row[0][k];
            long j = kt_table_col_index(t, col);
            if (j < 0) {
                kt_test_fail(__FILE__, __LINE__, "%s: no column %s", what, col);
                bad = 5;
                break;
            }
            compare_cell(what, t, i, (size_t)j, col, c->row[i + 1][k], &bad);
        }
    }
    fx_csv_free(c);
}

TEST(perf_tracelens_sheets_equal_tracelens_csvs)
{
    NEED_SHARED();
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        char rel[512];
        snprintf(rel, sizeof rel, "traces/tracelens/h100/%s.json.gz", models[m]);
        const kt_trace *t = fx_shared_trace(rel, false);
        if (!t) continue;
        kt_perf_options o = kt_perf_defaults();
        o.tracelens = 1;
        kt_tables *ts = NULL;
        CHECK_INT(kt_perf(t, NULL, &o, &ts, NULL), KT_OK);
        for (size_t s = 0; ts && s < sizeof sheets / sizeof sheets[0]; s++) compare_sheet(models[m], ts, sheets[s]);
        /* no device spec under --tracelens unless given: no roofline columns */
        const kt_table *g = kt_tables_find(ts, "GEMM");
        CHECK(g && kt_table_col_index(g, "Roofline Time (µs)") < 0);
        CHECK(!kt_tables_find(ts, "headroom"));
        kt_tables_free(ts);
    }
}

/* kernel_summary on the other TraceLens traces: the same columns (the
 * mi210 trace launches without cpu_ops: no "Parent cpu_op" column, as
 * TraceLens), the same rows and duration sums by kernel name (row order
 * aside: TraceLens orders ties of the sum by pandas' unstable sort).     */
TEST(perf_kernel_summary_equals_tracelens_on_other_traces)
{
    NEED_SHARED();
    static const char *const runs[] = { "mi210/gpu_only_trace/gpu_only_trace", "torch_compile_triton/trace",
                                        "perf_model/normalization/normalization_layer_test" };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char rel[512], trace[512];
        snprintf(rel, sizeof rel, "oracle/tracelens/%s/kernel_summary.csv", runs[i]);
        snprintf(trace, sizeof trace, "traces/tracelens/%s.json.gz", runs[i]);
        fx_csv *c = fx_csv_read(rel);
        const kt_trace *t = fx_shared_trace(trace, false);
        kt_perf_options o = kt_perf_defaults();
        o.tracelens = 1;
        kt_tables *ts = NULL;
        CHECK(c && t && kt_perf(t, NULL, &o, &ts, NULL) == KT_OK);
        const kt_table *k = ts ? kt_tables_find(ts, "kernel_summary") : NULL;
        CHECK(k && c && kt_table_ncols(k) == c->ncols[0] && kt_table_nrows(k) == c->nrows - 1);
        for (size_t j = 0; k && c && j < c->ncols[0] && j < kt_table_ncols(k); j++)
            CHECK_STR(kt_table_col_name(k, j), c->row[0][j]);
        long name = k ? kt_table_col_index(k, "Kernel name") : -1, sum = k ? kt_table_col_index(k, "Kernel duration (\xc2\xb5s)_sum") : -1;
        for (size_t r = 1; k && c && name >= 0 && sum >= 0 && r < c->nrows; r++) {
            double want = strtod(fx_csv_get(c, r, "Kernel duration (\xc2\xb5s)_sum"), NULL), got = 0;
            for (size_t q = 0; q < kt_table_nrows(k); q++)
                if (!strcmp(kt_table_str(k, q, (size_t)name), fx_csv_get(c, r, "Kernel name")))
                    got += kt_table_float(k, q, (size_t)sum);
            double all = 0;
            for (size_t q = 1; q < c->nrows; q++)
                if (!strcmp(fx_csv_get(c, q, "Kernel name"), fx_csv_get(c, r, "Kernel name")))
                    all += strtod(fx_csv_get(c, q, "Kernel duration (\xc2\xb5s)_sum"), NULL);
            if (fabs(got - all) > 1e-9 * fmax(1, all))
                kt_test_fail(__FILE__, __LINE__, "%s %.60s: %.17g us, TraceLens %.17g (row %g)", runs[i],
                             fx_csv_get(c, r, "Kernel name"), got, all, want);
        }
        kt_tables_free(ts);
        fx_csv_free(c);
    }
}
