/* test_breakdown.c — HTA kernel breakdown on a hand-built two-rank trace
 * (every number below is worked out in the comments), then against HTA's
 * own outputs on the real traces. */
#include "test.h"
#include "fixture.h"
#include "kineta.h"
#include "oracle.h"

#include <stdlib.h>

#define US 1000 /* ns per µs */

/* Rank 0 (µs): gemm_a [0,100] and [200,260], elementwise_b [350,360] on
 * stream 7; ncclDevKernel_AllReduce [50,250] on stream 20; a memcpy
 * [300,350]; plus a runtime call and a stream-bearing cuda_sync that must
 * not count.  Rank 1: gemm_a [1000,1040].
 * Sweep on rank 0: 0-50 COMP, 50-100 COMP+COMM, 100-200 COMM, 200-250
 * COMP+COMM, 250-260 COMP, 300-350 MEM, 350-360 COMP.                   */
static kt_trace *two_ranks(bool compat)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 0, 5 * US, 1, 1, -1, 1);
    fx_event(t, r, 'X', "kernel", "gemm_a", 0, 100 * US, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "gemm_a", 200 * US, 60 * US, 0, 7, 7, 2);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce", 50 * US, 200 * US, 0, 20, 20, 3);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 300 * US, 50 * US, 0, 7, 7, 4);
    fx_event(t, r, 'X', "kernel", "elementwise_b", 350 * US, 10 * US, 0, 7, 7, 5);
    fx_event(t, r, 'X', "cuda_sync", "Stream Wait Event", 360 * US, 10 * US, 0, 7, 7, 6);
    kt_rank *r1 = fx_rank(t, 1);
    fx_event(t, r1, 'X', "kernel", "gemm_a", 1000 * US, 40 * US, 0, 7, 7, 1);
    fx_finish(t);
    t->hta_compat = compat;
    return t;
}

/* Cell of column col in row (from fx_row); NaN when there is no such row. */
static double cell(const kt_table *tb, long row, const char *col)
{
    return row < 0 ? NAN : fx_num(tb, (size_t)row, col);
}

TEST(breakdown_kernel_type_partition)
{
    kt_trace *t = two_ranks(false);
    kt_tables *ts = NULL;
    CHECK_INT(kt_breakdown(t, NULL, NULL, &ts), KT_OK);
    const kt_table *kt = kt_tables_find(ts, "kernel_type");
    CHECK_INT(kt_table_nrows(kt), 4);
    /* sum descending; the COMMUNICATION / COMP+COMM tie in type order */
    CHECK_STR(kt_table_str(kt, 0, 0), "COMPUTATION");
    CHECK_NEAR(kt_table_float(kt, 0, 1), 70 + 40, 1e-9);
    CHECK_STR(kt_table_str(kt, 1, 0), "COMMUNICATION");
    CHECK_NEAR(kt_table_float(kt, 1, 1), 100, 1e-9);
    CHECK_STR(kt_table_str(kt, 2, 0), "COMPUTATION overlapping COMMUNICATION");
    CHECK_NEAR(kt_table_float(kt, 2, 1), 100, 1e-9);
    CHECK_STR(kt_table_str(kt, 3, 0), "MEMORY");
    CHECK_NEAR(kt_table_float(kt, 3, 2), 100.0 * 50 / 360, 1e-9);
    const kt_table *br = kt_tables_find(ts, "kernel_type_by_rank");
    CHECK_NEAR(cell(br, fx_row(br, "kernel_type", "COMPUTATION", 1), "percentage"), 100, 1e-9);
    CHECK_NEAR(cell(br, fx_row(br, "kernel_type", "COMPUTATION", 0), "sum"), 70, 1e-9);
    kt_tables_free(ts);

    kt_breakdown_options o = kt_breakdown_defaults();
    o.memory = 0; /* no MEMORY type: the memcpy's 50 µs disappear */
    CHECK_INT(kt_breakdown(t, NULL, &o, &ts), KT_OK);
    kt = kt_tables_find(ts, "kernel_type");
    CHECK_INT(kt_table_nrows(kt), 3);
    CHECK_INT(fx_row(kt, "kernel_type", "MEMORY", -1), -1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(breakdown_folding_reports_real_statistics)
{
    kt_trace *t = two_ranks(false);
    kt_breakdown_options o = kt_breakdown_defaults();
    o.num_kernels = 1; /* rank 0 COMPUTATION has 2 names: elementwise_b folds */
    kt_tables *ts = NULL;
    CHECK_INT(kt_breakdown(t, NULL, &o, &ts), KT_OK);
    const kt_table *k = kt_tables_find(ts, "kernels");
    long a = fx_row(k, "name", "gemm_a", 0), others = fx_row(k, "name", "others", 0);
    CHECK(a >= 0 && others >= 0);
    CHECK_NEAR(cell(k, a, "sum (us)"), 160, 1e-9);
    CHECK_NEAR(cell(k, a, "max (us)"), 100, 1e-9);
    CHECK_NEAR(cell(k, a, "min (us)"), 60, 1e-9);
    CHECK_NEAR(cell(k, a, "mean (us)"), 80, 1e-9);
    CHECK_NEAR(cell(k, a, "stddev"), 28.2842712474619, 1e-9);
    CHECK_NEAR(cell(k, a, "count"), 2, 0);
    CHECK_NEAR(cell(k, others, "sum (us)"), 10, 1e-9);
    CHECK_NEAR(cell(k, others, "count"), 1, 0);
    CHECK_INT(fx_row(k, "name", "elementwise_b", -1), -1);
    CHECK(a < others); /* named kernels before "others" */
    /* rank 1 has one name: never folded */
    CHECK_NEAR(cell(k, fx_row(k, "name", "gemm_a", 1), "mean (us)"), 40, 1e-9);
    CHECK_INT(kt_table_nrows(k), 5); /* + nccl, memcpy */
    /* distribution: top kernels on every rank they ran on; not elementwise_b */
    const kt_table *d = kt_tables_find(ts, "distribution");
    CHECK_INT(kt_table_nrows(d), 4);
    CHECK_NEAR(cell(d, fx_row(d, "name", "gemm_a", 1), "max (us)"), 40, 1e-9);
    CHECK_NEAR(cell(d, fx_row(d, "name", "gemm_a", 0), "min (us)"), 60, 1e-9);
    CHECK_INT(fx_row(d, "name", "elementwise_b", -1), -1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(breakdown_hta_compat_reproduces_folding_bug)
{
    kt_trace *t = two_ranks(true);
    kt_breakdown_options o = kt_breakdown_defaults();
    o.num_kernels = 1;
    kt_tables *ts = NULL;
    CHECK_INT(kt_breakdown(t, NULL, &o, &ts), KT_OK);
    const kt_table *k = kt_tables_find(ts, "kernels");
    CHECK_INT(kt_table_col_index(k, "count"), -1); /* HTA's columns only */
    long a = fx_row(k, "name", "gemm_a", 0);
    CHECK_NEAR(cell(k, a, "max (us)"), 160, 1e-9); /* HTA: max = min = mean = sum */
    CHECK_NEAR(cell(k, a, "min (us)"), 160, 1e-9);
    CHECK_NEAR(cell(k, a, "mean (us)"), 160, 1e-9);
    CHECK_NEAR(cell(k, a, "stddev"), 0, 0);
    /* HTA's order: kernel_type, name, rank */
    CHECK_STR(kt_table_str(k, 0, 6), "COMMUNICATION");
    CHECK_STR(kt_table_str(k, 1, 0), "gemm_a");
    CHECK_STR(kt_table_str(k, 3, 0), "others");
    CHECK_STR(kt_table_str(k, 4, 6), "MEMORY");
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(breakdown_rank_selection)
{
    kt_trace *t = two_ranks(false);
    int only1[] = { 1 };
    kt_rank_sel sel = { only1, 1 };
    kt_tables *ts = NULL;
    CHECK_INT(kt_breakdown(t, &sel, NULL, &ts), KT_OK);
    const kt_table *kt = kt_tables_find(ts, "kernel_type");
    CHECK_INT(kt_table_nrows(kt), 1);
    CHECK_NEAR(kt_table_float(kt, 0, 1), 40, 1e-9);
    CHECK_INT(kt_table_nrows(kt_tables_find(ts, "kernels")), 1);
    kt_tables_free(ts);
    kt_breakdown_options o = kt_breakdown_defaults();
    o.duration_ratio = 1.5;
    CHECK_INT(kt_breakdown(t, NULL, &o, &ts), KT_EUSAGE);
    kt_trace_free(t);
}

/* ---- against HTA's own outputs (../shared/oracle/hta) --------------------- */

static bool same_number(const char *hta, double ours)
{
    double h = strtod(hta, NULL);
    return fabs(h - ours) <= 1e-9 * fmax(1, fabs(h));
}

/* HTA's kernel_type rows, its zero-length overlap classes included (met
 * through its unstable sort of equal times, docs/kernels.md), in order;
 * sums exact, percentages as HTA rounds them (one decimal).               */
static void compare_kernel_type(const char *dir, const kt_table *ours, const fx_csv *hta)
{
    size_t k = 0;
    for (size_t r = 1; r < hta->nrows; r++) {
        if (k >= kt_table_nrows(ours)) { kt_test_fail(__FILE__, __LINE__, "%s: kernel_type row %zu missing", dir, r); return; }
        double pct = fx_num(ours, k, "percentage");
        if (strcmp(kt_table_str(ours, k, 0), fx_csv_get(hta, r, "kernel_type")) ||
            !same_number(fx_csv_get(hta, r, "sum"), fx_num(ours, k, "sum")) ||
            fabs(round(pct * 10) / 10 - strtod(fx_csv_get(hta, r, "percentage"), NULL)) > 1e-9)
            kt_test_fail(__FILE__, __LINE__, "%s: kernel_type row %zu: %s %s %s vs ours %s %.17g %.17g", dir, r,
                         fx_csv_get(hta, r, "kernel_type"), fx_csv_get(hta, r, "sum"),
                         fx_csv_get(hta, r, "percentage"), kt_table_str(ours, k, 0), fx_num(ours, k, "sum"), pct);
        k++;
    }
    CHECK_INT(kt_table_nrows(ours), k);
}

/* Per-kernel rows: same order, names, types, ranks; every statistic. */
static void compare_kernels(const char *dir, const char *file, const kt_table *ours, const fx_csv *hta)
{
    static const char *const nums[] = { "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)" };
    if (kt_table_nrows(ours) != hta->nrows - 1) {
        kt_test_fail(__FILE__, __LINE__, "%s %s: %zu rows, HTA %zu", dir, file, kt_table_nrows(ours), hta->nrows - 1);
        return;
    }
    for (size_t r = 1; r < hta->nrows; r++) {
        bool ok = !strcmp(kt_table_str(ours, r - 1, 0), fx_csv_get(hta, r, "name")) &&
                  !strcmp(kt_table_str(ours, r - 1, 6), fx_csv_get(hta, r, "kernel_type")) &&
                  fx_num(ours, r - 1, "rank") == strtod(fx_csv_get(hta, r, "rank"), NULL);
        for (int c = 0; c < 5; c++) ok = ok && same_number(fx_csv_get(hta, r, nums[c]), fx_num(ours, r - 1, nums[c]));
        if (!ok)
            kt_test_fail(__FILE__, __LINE__, "%s %s row %zu: %.60s sum %s mean %s vs ours %.60s sum %.17g mean %.17g", dir,
                         file, r, fx_csv_get(hta, r, "name"), fx_csv_get(hta, r, "sum (us)"),
                         fx_csv_get(hta, r, "mean (us)"), kt_table_str(ours, r - 1, 0), fx_num(ours, r - 1, "sum (us)"),
                         fx_num(ours, r - 1, "mean (us)"));
    }
}

/* One HTA run: its two CSVs against our tables with the same options. */
static void compare_run(const char *dir, const kt_trace *t, const char *prefix, const kt_breakdown_options *o)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "oracle/hta/%s/%s_kernel_type.csv", dir, prefix);
    snprintf(b, sizeof b, "oracle/hta/%s/%s_all_kernels.csv", dir, prefix);
    fx_csv *types = fx_csv_read(a), *kernels = fx_csv_read(b);
    kt_tables *ts = NULL;
    CHECK(types && kernels);
    CHECK_INT(kt_breakdown(t, NULL, o, &ts), KT_OK);
    if (types && kernels && ts) {
        compare_kernel_type(dir, fx_table(ts, "kernel_type"), types);
        compare_kernels(dir, prefix, fx_table(ts, "kernels"), kernels);
    }
    kt_tables_free(ts);
    fx_csv_free(types);
    fx_csv_free(kernels);
}

/* Every trace HTA produced a kernel breakdown for: --hta-compat gives HTA's
 * tables — the default run (10 kernels, ratio 0.8, memory: HTA's folding
 * bug included) and the unfolded one (1000 kernels, no memory).           */
TEST(breakdown_hta_compat_equals_hta_oracle)
{
    NEED_SHARED();
    static const char *const dirs[] = {
        "amd_trace", "cp_alexnet", "cp_cuda_event_sync", "cp_cuda_event_sync_multi_stream", "cp_simple_add",
        "cupti_profiler", "df_index_resolver", "execution_trace", "mtia_trace_single_rank", "nccl_parser_config",
        "negative_queue_length_values_check", "ns_resolution_trace", "timeline_analysis", "trace_diff_control",
        "trace_diff_test", "trace_filter_2ranks", "triton_example",
    };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        const kt_trace *t = fx_shared_trace(fx_hta_trace(dirs[i]), true);
        if (!t) continue;
        kt_breakdown_options o = kt_breakdown_defaults();
        compare_run(dirs[i], t, "gpu_kernel_breakdown", &o);
        o.num_kernels = 1000;
        o.memory = 0;
        compare_run(dirs[i], t, "gpu_kernel_breakdown_n1000_nomem", &o);
    }
}
