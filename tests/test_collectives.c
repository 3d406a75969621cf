/* test_collectives.c — `collectives` on hand-built traces: TraceLens's
 * per-instance formulas computed by hand, clock offsets, and every way a
 * collective can fail to match (a rank's trace starting mid-run, a
 * duplicate, ranks disagreeing), metadata from the launching
 * record_param_comms op, and kernels with no metadata at all.             */
#include "analysis/collectives/comm_record.h"
#include "analysis/common/dtypes.h"
#include "fixture.h"
#include "test.h"

#include <math.h>

#define US 1000 /* ns */

typedef struct coll_args {
    const char *name, *dtype, *pg, *pg_ranks, *split;
    int64_t nelems, seq;
} coll_args;

/* A communication kernel on stream 20 with its metadata on the kernel
 * (seq < 0: no "Seq"; name NULL: no metadata at all).                     */
static void comm_kernel(kt_trace *t, kt_rank *r, const char *kname, int64_t ts_us, int64_t dur_us,
                        const coll_args *a)
{
    static int64_t corr = 1000;
    fx_event(t, r, 'X', "kernel", kname, ts_us * US, dur_us * US, 0, 20, 20, corr++);
    if (!a || !a->name) return;
    fx_arg_str(t, r, KT_ARG_COLLECTIVE_NAME, a->name);
    fx_arg_int(r, KT_ARG_IN_MSG_NELEMS, a->nelems);
    fx_arg_int(r, KT_ARG_OUT_MSG_NELEMS, a->nelems);
    fx_arg_str(t, r, KT_ARG_DTYPE, a->dtype ? a->dtype : "Float");
    fx_arg_int(r, KT_ARG_GROUP_SIZE, 2);
    fx_arg_str(t, r, KT_ARG_PG_NAME, a->pg ? a->pg : "0");
    fx_arg_str(t, r, KT_ARG_PG_RANKS, a->pg_ranks ? a->pg_ranks : "[0, 1]");
    if (a->split) fx_arg_str(t, r, KT_ARG_IN_SPLIT_SIZE, a->split);
    if (a->seq >= 0) fx_arg_int(r, KT_ARG_SEQ, a->seq);
}

static const char *const ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

static kt_tables *run(const kt_trace *t, kt_align_mode align)
{
    kt_collectives_options o = kt_collectives_defaults();
    o.align = align;
    kt_tables *ts = NULL;
    CHECK_INT(kt_collectives(t, NULL, &o, &ts), KT_OK);
    return ts;
}

TEST(collectives_kind_and_dtype_names)
{
    CHECK_INT(kt_coll_kind_from_arg("_allgather_base"), KT_COLL_ALLGATHER);
    CHECK_INT(kt_coll_kind_from_arg("all_gather_into_tensor_coalesced"), KT_COLL_ALLGATHER);
    CHECK_INT(kt_coll_kind_from_arg("_reduce_scatter_base"), KT_COLL_REDUCESCATTER);
    CHECK_INT(kt_coll_kind_from_arg("allreduce_coalesced"), KT_COLL_ALLREDUCE);
    CHECK_INT(kt_coll_kind_from_arg("all_to_allv"), KT_COLL_ALLTOALLV);
    CHECK_INT(kt_coll_kind_from_arg("all_to_all"), KT_COLL_ALLTOALL);
    CHECK_INT(kt_coll_kind_from_arg("recv"), KT_COLL_RECV);
    CHECK_INT(kt_coll_kind_from_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
              KT_COLL_ALLREDUCE);
    CHECK_INT(kt_coll_kind_from_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
              KT_COLL_ALLGATHER);
    CHECK_INT(kt_coll_kind_from_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"), KT_COLL_SENDRECV);
    CHECK_INT(kt_coll_kind_from_kernel("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), KT_COLL_UNKNOWN);
    CHECK_INT(kt_scalar_type_bytes("BFloat16"), 2);
    CHECK_INT(kt_scalar_type_bytes("Long"), 8);
    CHECK_INT(kt_scalar_type_bytes("Float"), 4);
    CHECK_INT(kt_scalar_type_bytes("Bool"), 1);
    CHECK_INT(kt_scalar_type_bytes("Mystery"), 0);
    /* the same table under the C++ names of op inputs, without bool (perf) */
    CHECK_INT(kt_dtype_bytes("c10::BFloat16"), 2);
    CHECK_INT(kt_dtype_bytes("long int"), 8);
    CHECK_INT(kt_dtype_bytes("bool"), 0);
    CHECK(!strcmp(kt_dtype_precision("c10::Half"), "fp16"));
    CHECK(kt_coll_implicit_sync(KT_COLL_ALLTOALL) && !kt_coll_implicit_sync(KT_COLL_BROADCAST));
}

/* rank 0 arrives at 1000 µs and runs 500 µs, rank 1 arrives at 1200 µs and
 * runs 300 µs: both leave at 1500 µs.  4 MiB of floats.                   */
TEST(collectives_hand_computed_allreduce)
{
    kt_trace *t = fx_trace();
    coll_args a = { .name = "allreduce", .nelems = 1048576, .seq = 1 };
    comm_kernel(t, fx_rank(t, 0), ALLREDUCE, 1000, 500, &a);
    comm_kernel(t, fx_rank(t, 1), ALLREDUCE, 1200, 300, &a);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *tb = fx_table(ts, "implicit_sync");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK_STR(kt_table_str(tb, 0, 0), "0_1");
    CHECK_STR(kt_table_str(tb, 0, 1), "seq");
    CHECK_NEAR(fx_num(tb, 0, "Full msg size (MB)"), 4.0, 1e-12);
    CHECK_NEAR(fx_num(tb, 0, "comm_latency"), 300, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "skew in start time"), 200, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "skew in end time"), 0, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "avg_wait_time"), 100, 1e-9);
    CHECK_INT(fx_num(tb, 0, "earliest arrival rank"), 0);
    CHECK_INT(fx_num(tb, 0, "latest arrival rank"), 1);
    CHECK_NEAR(fx_num(tb, 0, "algo bw (GB/s)"), 4.0 / 1024 / 300e-6, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "bus bw (GB/s)"), 4.0 / 1024 / 300e-6 * 2 * (2 - 1) / 2, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "rank_0_wait_time"), 200, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "rank_1_wait_time"), 0, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "rank_1_ts") - fx_num(tb, 0, "rank_0_ts"), 200, 1e-9);
    const kt_table *st = fx_table(ts, "stragglers");
    CHECK_INT(fx_num(st, 0, "rank"), 1); /* least wait first */
    CHECK_INT(fx_num(st, 0, "times_arrived_last"), 1);
    CHECK_NEAR(fx_num(st, 1, "total_wait_time_us"), 200, 1e-9);
    CHECK_NEAR(fx_num(st, 1, "total_nccl_dur_us"), 500, 1e-9);
    const kt_table *sum = fx_table(ts, "summary");
    CHECK_INT(kt_table_nrows(sum), 1);
    CHECK_INT(fx_num(sum, 0, "count"), 1);
    CHECK_NEAR(fx_num(sum, 0, "Total comm latency (ms)"), 0.3, 1e-12);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Rank 1's clock runs 50 µs ahead: both leave together, so its offset is
 * the difference of the ends, and aligned waits are the true ones.        */
TEST(collectives_clock_offset_from_ends)
{
    kt_trace *t = fx_trace();
    kt_rank *r0 = fx_rank(t, 0), *r1 = fx_rank(t, 1);
    for (int64_t k = 0; k < 3; k++) {
        coll_args a = { .name = "allreduce", .nelems = 1024, .seq = k + 1 };
        comm_kernel(t, r0, ALLREDUCE, 1000 + 1000 * k, 500, &a);
        comm_kernel(t, r1, ALLREDUCE, 1250 + 1000 * k, 300, &a);
    }
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *off = fx_table(ts, "clock_offsets");
    CHECK_NEAR(fx_num(off, 1, "offset_us"), 50, 1e-9);
    CHECK_INT(fx_num(off, 1, "collectives"), 3);
    CHECK_INT(fx_num(off, 1, "via"), 0);
    CHECK_NEAR(fx_num(fx_table(ts, "implicit_sync"), 2, "skew in start time"), 200, 1e-9);
    kt_tables_free(ts);
    ts = run(t, KT_ALIGN_NONE);
    CHECK_NEAR(fx_num(fx_table(ts, "implicit_sync"), 2, "skew in start time"), 250, 1e-9);
    CHECK_NEAR(fx_num(fx_table(ts, "implicit_sync"), 2, "skew in end time"), 50, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Rank 1's trace starts after collective 1: matched by Seq, collective 2
 * is complete and collective 1 is reported, not dropped.                  */
TEST(collectives_mid_collective_start_reported)
{
    kt_trace *t = fx_trace();
    kt_rank *r0 = fx_rank(t, 0), *r1 = fx_rank(t, 1);
    coll_args a1 = { .name = "allreduce", .nelems = 1024, .seq = 1 }, a2 = { .name = "allreduce", .nelems = 2048, .seq = 2 };
    comm_kernel(t, r0, ALLREDUCE, 100, 50, &a1);
    comm_kernel(t, r0, ALLREDUCE, 300, 50, &a2);
    comm_kernel(t, r1, ALLREDUCE, 310, 40, &a2);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *un = fx_table(ts, "unmatched"), *sync = fx_table(ts, "implicit_sync");
    CHECK_INT(kt_table_nrows(sync), 1);
    CHECK_INT(fx_num(sync, 0, "In msg nelems"), 2048);
    CHECK_INT(kt_table_nrows(un), 1);
    CHECK_STR(kt_table_str(un, 0, 0), "0_1");
    CHECK_STR(kt_table_str(un, 0, 5), "missing ranks");
    CHECK_INT(fx_num(un, 0, "ranks present"), 1);
    CHECK_INT(fx_num(un, 0, "ranks expected"), 2);
    /* every kernel is listed, with the status of its instance */
    const kt_table *k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 3);
    CHECK_STR(kt_table_str(k, 0, 1), "0_1");
    CHECK_STR(kt_table_str(k, 0, 3), "missing ranks");
    CHECK_STR(kt_table_str(k, 2, 3), "complete");
    CHECK_INT(fx_num(k, 2, "rank"), 1);
    CHECK_INT(fx_num(k, 2, "Seq"), 2);
    CHECK_STR(kt_table_str(k, 2, 15), "kernel");
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Without Seq, matching by position shifts when a rank starts late: the
 * ranks then disagree on the sizes, and that is what is reported.         */
TEST(collectives_position_shift_reported_as_mismatch)
{
    kt_trace *t = fx_trace();
    kt_rank *r0 = fx_rank(t, 0), *r1 = fx_rank(t, 1);
    coll_args a1 = { .name = "allreduce", .nelems = 1024, .seq = -1 }, a2 = { .name = "allreduce", .nelems = 2048, .seq = -1 };
    comm_kernel(t, r0, ALLREDUCE, 100, 50, &a1);
    comm_kernel(t, r0, ALLREDUCE, 300, 50, &a2);
    comm_kernel(t, r1, ALLREDUCE, 310, 40, &a2);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *un = fx_table(ts, "unmatched");
    CHECK_INT(kt_table_nrows(fx_table(ts, "implicit_sync")), 0);
    CHECK_INT(kt_table_nrows(un), 2);
    CHECK_STR(kt_table_str(un, 0, 1), "position");
    CHECK_STR(kt_table_str(un, 0, 5), "metadata differs");
    CHECK_STR(kt_table_str(un, 1, 5), "missing ranks");
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(collectives_duplicate_seq_reported)
{
    kt_trace *t = fx_trace();
    kt_rank *r0 = fx_rank(t, 0), *r1 = fx_rank(t, 1);
    coll_args a = { .name = "allreduce", .nelems = 1024, .seq = 7 };
    comm_kernel(t, r0, ALLREDUCE, 100, 50, &a);
    comm_kernel(t, r0, ALLREDUCE, 300, 50, &a);
    comm_kernel(t, r1, ALLREDUCE, 310, 40, &a);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *un = fx_table(ts, "unmatched");
    CHECK_INT(kt_table_nrows(un), 1);
    CHECK_STR(kt_table_str(un, 0, 5), "duplicate");
    CHECK_INT(fx_num(un, 0, "ranks present"), 3);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* No metadata anywhere: the kind comes from the kernel name and kernels
 * match by position on their stream; sizes and bandwidths stay null.     */
TEST(collectives_without_metadata_match_by_stream)
{
    kt_trace *t = fx_trace();
    const char *k = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
    kt_rank *ranks[2] = { fx_rank(t, 0), fx_rank(t, 1) };
    for (int r = 0; r < 2; r++)
        for (int64_t i = 0; i < 2; i++) comm_kernel(t, ranks[r], k, 100 + 200 * i + 10 * r, 60 - 10 * r, NULL);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *sync = fx_table(ts, "implicit_sync");
    CHECK_INT(kt_table_nrows(sync), 2);
    CHECK_STR(kt_table_str(sync, 0, 0), "stream20_0");
    CHECK_STR(kt_table_str(sync, 0, 1), "stream");
    CHECK_STR(kt_table_str(sync, 0, 2), "allreduce");
    CHECK(kt_table_is_null(sync, 0, (size_t)kt_table_col_index(sync, "algo bw (GB/s)")));
    CHECK_NEAR(fx_num(sync, 0, "comm_latency"), 50, 1e-9);
    CHECK_INT(fx_num(fx_table(ts, "ranks"), 0, "name_only"), 2);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Older traces: the metadata is on record_param_comms, which encloses the
 * launch call of the kernel.                                              */
TEST(collectives_metadata_from_record_param_comms)
{
    kt_trace *t = fx_trace();
    for (int rank = 0; rank < 2; rank++) {
        kt_rank *r = fx_rank(t, rank);
        fx_event(t, r, 'X', "cpu_op", "record_param_comms", 0, 100 * US, 1, 1, -1, -1);
        fx_arg_str(t, r, KT_ARG_COLLECTIVE_NAME, "allreduce");
        fx_arg_int(r, KT_ARG_IN_MSG_NELEMS, 262144);
        fx_arg_int(r, KT_ARG_OUT_MSG_NELEMS, 262144);
        fx_arg_str(t, r, KT_ARG_DTYPE, "BFloat16");
        fx_arg_str(t, r, KT_ARG_PG_NAME, "0");
        fx_arg_int(r, KT_ARG_SEQ, 12);
        fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 10 * US, 5 * US, 1, 1, -1, 77);
        fx_event(t, r, 'X', "kernel", ALLREDUCE, (200 + 20 * rank) * US, (100 - 20 * rank) * US, 0, 20, 20, 77);
    }
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    const kt_table *sync = fx_table(ts, "implicit_sync"), *ranks = fx_table(ts, "ranks");
    CHECK_INT(kt_table_nrows(sync), 1);
    CHECK_STR(kt_table_str(sync, 0, 0), "0_12");
    CHECK_NEAR(fx_num(sync, 0, "Full msg size (MB)"), 0.5, 1e-12);
    CHECK_INT(fx_num(ranks, 0, "metadata_from_cpu_op"), 1);
    CHECK_INT(fx_num(ranks, 0, "with_seq"), 1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* All-to-all-v: rank 0 sends [1, 3] floats to ranks [0, 1], rank 1 [2, 2]. */
TEST(collectives_all2allv_sizes)
{
    kt_trace *t = fx_trace();
    const char *k = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    coll_args a0 = { .name = "all_to_allv", .nelems = 4, .seq = 3, .split = "[1, 3]" };
    coll_args a1 = { .name = "all_to_allv", .nelems = 4, .seq = 3, .split = "[2, 2]" };
    comm_kernel(t, fx_rank(t, 0), k, 100, 40, &a0);
    comm_kernel(t, fx_rank(t, 1), k, 110, 20, &a1);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_NONE);
    const kt_table *tb = fx_table(ts, "all2allv");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK_INT(fx_num(tb, 0, "total bytes"), 32);
    CHECK_NEAR(fx_num(tb, 0, "size_imbalance"), 1.0, 1e-12); /* 16 and 16 bytes */
    CHECK_NEAR(fx_num(tb, 0, "max_rank_dur/min_rank_dur"), 2.0, 1e-12);
    CHECK_NEAR(fx_num(tb, 0, "wall_time"), 40, 1e-9);
    CHECK_NEAR(fx_num(tb, 0, "throughput (GB/s)"), 32 / 1e9 / 40e-6, 1e-12);
    const kt_table *sum = fx_table(ts, "all2allv_summary");
    CHECK_INT(kt_table_nrows(sum), 1);
    CHECK_INT(fx_num(sum, 0, "count"), 1);
    CHECK_NEAR(fx_num(sum, 0, "wall_time_median"), 40, 1e-9);
    CHECK_NEAR(fx_num(sum, 0, "max_rank_dur/min_rank_dur_max"), 2.0, 1e-12);
    CHECK_NEAR(fx_num(sum, 0, "Total wall time (ms)"), 0.04, 1e-12);
    /* who sent what to whom: the splits in "Process Group Ranks" order */
    const kt_table *hm = fx_table(ts, "all2allv_heatmap");
    CHECK_INT(kt_table_nrows(hm), 2);
    CHECK_NEAR(fx_num(hm, 0, "to rank 0 (bytes)"), 4, 0);
    CHECK_NEAR(fx_num(hm, 0, "to rank 1 (bytes)"), 12, 0);
    CHECK_NEAR(fx_num(hm, 1, "to rank 0 (bytes)"), 8, 0);
    CHECK_NEAR(fx_num(hm, 1, "to rank 1 (bytes)"), 8, 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(collectives_empty_trace)
{
    kt_trace *t = fx_trace();
    fx_event(t, fx_rank(t, 0), 'X', "kernel", "gemm", 0, 10, 0, 7, 7, 1);
    fx_finish(t);
    kt_tables *ts = run(t, KT_ALIGN_COLLECTIVES);
    CHECK_INT(kt_table_nrows(fx_table(ts, "implicit_sync")), 0);
    CHECK_INT(fx_num(fx_table(ts, "ranks"), 0, "comm_kernels"), 0);
    kt_tables_free(ts);
    kt_stragglers_options o = kt_stragglers_defaults();
    CHECK_INT(kt_stragglers(t, NULL, &o, &ts), KT_OK);
    const kt_table *v = fx_table(ts, "verdict"); /* no step, no collective: nothing to go on */
    CHECK_INT(kt_table_nrows(v), 1);
    CHECK(kt_table_is_null(v, 0, 0));
    CHECK_STR(kt_table_str(v, 0, 1), "inconclusive");
    CHECK_INT(kt_table_nrows(fx_table(ts, "hta_stragglers")), 1); /* why it is empty */
    kt_tables_free(ts);
    kt_trace_free(t);
}
