/* test_collectives_oracle.c — `collectives` and `stragglers` on the real
 * traces in ../shared: the single-rank NCCL trace's sizes and bandwidths
 * checked by hand (values read from the file), the 2-rank trace_filter set
 * (SendRecv kernels without metadata, matched by stream) and HTA's
 * straggler answer on it under --hta-compat.                              */
#include "kineta.h"
#include "fixture.h"
#include "oracle.h"
#include "test.h"

/* nccl_parser_config: 21 NCCL kernels with metadata on the kernel (15
 * allreduce, 6 broadcast) of a 2-rank job, rank 0 only.  The first
 * allreduce: 2049000 floats, 3306.963 µs.                                */
TEST(collectives_oracle_nccl_parser_config_sizes)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/nccl_parser_config/nccl_data.json.gz", false);
    CHECK(t != NULL);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_collectives(t, NULL, NULL, &ts), KT_OK);
    const kt_table *sync = fx_table(ts, "implicit_sync"), *other = fx_table(ts, "other"), *ranks = fx_table(ts, "ranks");
    CHECK_INT(fx_num(ranks, 0, "comm_kernels"), 21);
    CHECK_INT(fx_num(ranks, 0, "metadata_from_kernel"), 21);
    CHECK_INT(kt_table_nrows(sync), 15);
    CHECK_INT(kt_table_nrows(other), 6);
    CHECK_INT(kt_table_nrows(fx_table(ts, "unmatched")), 0);
    /* the PG lists ranks [0, 1]; only rank 0 is loaded, so it is complete */
    CHECK_STR(kt_table_str(sync, 0, 0), "0_2");
    CHECK_STR(kt_table_str(sync, 0, 1), "position");
    CHECK_INT(fx_num(sync, 0, "In msg nelems"), 2049000);
    CHECK_INT(fx_num(sync, 0, "Group size"), 2);
    double mb = 2049000.0 * 4 / 1048576;
    CHECK_NEAR(fx_num(sync, 0, "Full msg size (MB)"), mb, 1e-12);
    CHECK_NEAR(fx_num(sync, 0, "comm_latency"), 3306.963, 1e-9);
    CHECK_NEAR(fx_num(sync, 0, "algo bw (GB/s)"), mb / 1024 / 3306.963e-6, 1e-9);
    CHECK_NEAR(fx_num(sync, 0, "bus bw (GB/s)"), mb / 1024 / 3306.963e-6 * 2 * (2 - 1) / 2, 1e-9);
    /* the broadcasts: 53120 floats in 30.975 µs, 53 longs in 7.775 µs */
    CHECK_STR(kt_table_str(other, 0, 2), "broadcast");
    CHECK_NEAR(fx_num(other, 0, "algo bw (GB/s)"), 53120.0 * 4 / 1048576 / 1024 / 30.975e-6, 1e-9);
    CHECK_STR(kt_table_str(other, 1, 3), "Long");
    CHECK_NEAR(fx_num(other, 1, "comm_latency"), 7.775, 1e-9);
    /* five sizes, three times each */
    const kt_table *sum = fx_table(ts, "summary");
    CHECK_INT(kt_table_nrows(sum), 5);
    for (size_t i = 0; i < kt_table_nrows(sum); i++) CHECK_INT(fx_num(sum, i, "count"), 3);
    kt_tables_free(ts);
    /* the process group lists ranks [0, 1]: two nodes of one GPU each, even
     * though only rank 0's file is here                                    */
    kt_collectives_options o = kt_collectives_defaults();
    o.gpus_per_node = 1;
    CHECK_INT(kt_collectives(t, NULL, &o, &ts), KT_OK);
    sync = fx_table(ts, "implicit_sync");
    CHECK_INT(fx_num(sync, 0, "node_span"), 2);
    CHECK_INT(fx_num(sync, 0, "intra_node"), 0);
    kt_tables_free(ts);
}

/* trace_filter: two ranks of a 128-rank job; SendRecv kernels with no
 * metadata on streams 84 and 203, matched by position on the stream.    */
TEST(collectives_oracle_trace_filter_by_stream)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/trace_filter", false);
    CHECK(t != NULL);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_collectives(t, NULL, NULL, &ts), KT_OK);
    const kt_table *ranks = fx_table(ts, "ranks"), *other = fx_table(ts, "other");
    CHECK_INT(fx_num(ranks, 0, "comm_kernels"), 10);
    CHECK_INT(fx_num(ranks, 1, "name_only"), 10);
    CHECK_INT(kt_table_nrows(other), 10);
    CHECK_STR(kt_table_str(other, 0, 1), "stream");
    CHECK_STR(kt_table_str(other, 0, 2), "sendrecv");
    CHECK_INT(kt_table_nrows(fx_table(ts, "implicit_sync")), 0);
    kt_tables_free(ts);
}

/* kt_stragglers on the trace_filter pair (loaded as HTA loads it when
 * hta_compat) with `candidates`; NULL, after a failed CHECK, when it
 * could not run.                                                         */
static kt_tables *trace_filter_stragglers(bool hta_compat, int candidates)
{
    const kt_trace *t = fx_shared_trace("traces/hta/trace_filter", hta_compat);
    CHECK(t != NULL);
    if (!t) return NULL;
    kt_stragglers_options o = kt_stragglers_defaults();
    o.candidates = candidates;
    kt_tables *ts = NULL;
    kt_status st = kt_stragglers(t, NULL, &o, &ts);
    CHECK_INT(st, KT_OK);
    return st == KT_OK ? ts : NULL;
}

/* HTA's get_potential_stragglers on trace_filter returned [1] (status.json).
 * Both ranks run the dominant SendRecv kernel (stream 84) last in the one
 * step HTA keeps (551) at 269.204 and 433.395 ms after the first event; the
 * selected events span 608.096 ms.  One iteration: HTA's single-iteration
 * branch flags every rank at or above the k-th largest metric and returns
 * the first k ranks of a Series with one row per rank, so k = 2 returns two
 * ranks on any trace (or raises) and [1] is the k = 1 answer; with the
 * default k = 2 both are flagged, the tie in rank order (docs/collectives.md). */
TEST(stragglers_oracle_hta_trace_filter)
{
    NEED_SHARED();
    kt_tables *ts = trace_filter_stragglers(true, 1);
    if (!ts) return;
    const kt_table *s = fx_table(ts, "stragglers"), *m = fx_table(ts, "metric");
    CHECK_INT(kt_table_nrows(s), 1);
    CHECK_INT(fx_num(s, 0, "rank"), 1);
    CHECK_INT(kt_table_nrows(m), 2);
    CHECK_INT(fx_num(m, 0, "iteration"), 551);
    CHECK_INT(fx_num(m, 0, "stream"), 84);
    CHECK_NEAR(fx_num(m, 0, "normalized_start_time"), 269204 / 608096.0, 1e-12);
    CHECK_NEAR(fx_num(m, 1, "normalized_start_time"), 433395 / 608096.0, 1e-12);
    kt_tables_free(ts);
    CHECK_INT(kt_stragglers_defaults().candidates, 2); /* HTA's default num_candidates */
    if (!(ts = trace_filter_stragglers(true, 2))) return;
    s = fx_table(ts, "stragglers");
    CHECK_INT(kt_table_nrows(s), 2);
    CHECK_INT(fx_num(s, 0, "rank"), 0);
    CHECK_INT(fx_num(s, 1, "rank"), 1);
    kt_tables_free(ts);
}

/* HTA's comm-kernel rule misses ncclDevKernel_* names ([BUG] A4.12); the
 * default metric takes every NCCL name, and on this trace's old
 * ncclKernel_* names both agree.                                          */
TEST(stragglers_default_metric_on_trace_filter)
{
    NEED_SHARED();
    kt_tables *ts = trace_filter_stragglers(false, 1);
    if (!ts) return;
    const kt_table *s = fx_table(ts, "hta_stragglers");
    CHECK_INT(kt_table_nrows(s), 1);
    CHECK_INT(fx_num(s, 0, "rank"), 1);
    CHECK(kt_tables_find(ts, "verdict") != NULL);
    kt_tables_free(ts);
}
