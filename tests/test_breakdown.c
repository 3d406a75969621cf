/* test_breakdown.c — HTA kernel breakdown on a hand-built two-rank trace
 * (every number below is worked out in the comments), then against HTA's
 * own outputs on the real traces. */
#include "test.h"
#include "fixture.h"
#include "kineta.h"

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
