/* test_overlap.c — share of communication overlapped by computation. */
#include "analysis/timeline/temporal_overlap.h"
#include "fixture.h"
#include "test.h"

#define US 1000

/* Rank 1 (µs): nccl 0–10 (s8) and 20–30 (s8); gemm 5–12 and 18–22 (s7);
 * a Stream Wait Event 0–30 on s9 (neither comm nor compute).  Overlap:
 * 5 + 2 of 20 µs of communication = 35 %.  Steps: #1 0–15, #2 15–40.     */
static kt_trace *overlap_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 1);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#1", 0, 15 * US, 0, 7, -1, -1);
    fx_event(t, r, 'X', "gpu_user_annotation", "ProfilerStep#2", 15 * US, 25 * US, 0, 7, -1, -1);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0, 10 * US, 0, 8, 8, -1);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 20 * US, 10 * US, 0, 8, 8, -1);
    fx_event(t, r, 'X', "kernel", "sm90_xmma_gemm_bf16", 5 * US, 7 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "kernel", "sm90_xmma_gemm_bf16", 18 * US, 4 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "cuda_sync", "Stream Wait Event", 0, 30 * US, 0, 9, 9, -1);
    fx_finish(t);
    return t;
}

TEST(overlap_share_of_comm_hidden_by_compute)
{
    kt_trace *t = overlap_trace();
    kt_tables *ts;
    CHECK_INT(kt_overlap(t, NULL, NULL, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "comm_comp_overlap");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK_INT(kt_table_int(tb, 0, 0), 1);
    CHECK_NEAR(fx_num(tb, 0, "comp_comm_overlap_pctg"), 35, 1e-9);
    kt_tables_free(ts);

    kt_overlap_options o = { .size = sizeof o, .by_step = 1 };
    CHECK_INT(kt_overlap(t, NULL, &o, &ts), KT_OK);
    tb = fx_table(ts, "comm_comp_overlap");
    CHECK_INT(kt_table_nrows(tb), 2);
    CHECK_NEAR(fx_num(tb, 0, "step"), 1, 0);
    CHECK_NEAR(fx_num(tb, 0, "comp_comm_overlap_pctg"), 50, 1e-9); /* 5 of 10 */
    CHECK_NEAR(fx_num(tb, 1, "comp_comm_overlap_pctg"), 20, 1e-9); /* 2 of 10 */
    kt_tables_free(ts);

    kt_rank_sel other = { (const int[]){ 9 }, 1 };
    CHECK_INT(kt_overlap(t, &other, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "comm_comp_overlap")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The report's pair: the four tables from one build of the unions by step,
 * folded for the whole rank.  Step 1 (0-15 µs): compute 5-12 = 7 µs of
 * kernels busy 0-12 (the wait event on s9 is not a kernel); step 2: busy
 * 18-30, compute 18-22 = 4; the rank: busy 0-12 and 18-30 of a 0-30 span. */
TEST(overlap_and_temporal_from_one_build)
{
    kt_trace *t = overlap_trace();
    kt_tables *ts[KT_PAIR_TABLES];
    CHECK_INT(kt_temporal_overlap(t, NULL, ts), KT_OK);
    const kt_table *ov = fx_table(ts[KT_PAIR_OVERLAP_BY_STEP], "comm_comp_overlap");
    const kt_table *te = fx_table(ts[KT_PAIR_TEMPORAL_BY_STEP], "temporal_breakdown");
    CHECK_INT(kt_table_nrows(ov), 2);
    CHECK_NEAR(fx_num(ov, 0, "comp_comm_overlap_pctg"), 50, 1e-9);
    CHECK_NEAR(fx_num(ov, 1, "comp_comm_overlap_pctg"), 20, 1e-9);
    CHECK_INT(kt_table_nrows(te), 2);
    CHECK_NEAR(fx_num(te, 0, "step"), 1, 0);
    CHECK_NEAR(fx_num(te, 0, "compute_time(us)"), 7, 1e-9);
    CHECK_NEAR(fx_num(te, 0, "idle_time(us)"), 0, 1e-9);
    CHECK_NEAR(fx_num(te, 1, "compute_time(us)"), 4, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts[KT_PAIR_OVERLAP], "comm_comp_overlap"), 0, "comp_comm_overlap_pctg"), 35, 1e-9);
    te = fx_table(ts[KT_PAIR_TEMPORAL], "temporal_breakdown");
    CHECK_INT(kt_table_nrows(te), 1);
    CHECK_NEAR(fx_num(te, 0, "compute_time(us)"), 11, 1e-9);
    CHECK_NEAR(fx_num(te, 0, "idle_time(us)"), 6, 1e-9);
    CHECK_NEAR(fx_num(te, 0, "kernel_time(us)"), 30, 1e-9);
    for (int i = 0; i < KT_PAIR_TABLES; i++) kt_tables_free(ts[i]);
    kt_trace_free(t);
}

TEST(overlap_without_comm_is_null)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "gemm", 0, 100, 0, 7, 7, -1);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_overlap(t, NULL, NULL, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "comm_comp_overlap");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK(kt_table_is_null(tb, 0, 1));
    kt_tables_free(ts);
    kt_trace_free(t);
}
