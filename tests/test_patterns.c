/* test_patterns.c — `kineta patterns` and `--mine` on hand-built traces:
 * roots, sequences and sums computed by hand; HTA's nesting rules; graph
 * launches, ROCm stream 0; damaged input (zero and negative durations,
 * overlapping ops, kernels without a launch) never crashes. */
#include "analysis/structure/op_tree.h"
#include "fixture.h"
#include "test.h"

#include <stdlib.h>

#define US 1000

static void op(kt_trace *t, kt_rank *r, const char *name, int64_t ts, int64_t dur)
{
    fx_event(t, r, 'X', "cpu_op", name, ts * US, dur * US, 100, 100, -1, -1);
}

/* A launch call at ts (1 µs) and its kernel at kts on stream 7. */
static void launch(kt_trace *t, kt_rank *r, const char *api, const char *kernel, int64_t ts, int64_t kts,
                   int64_t kdur, int32_t stream, int64_t corr)
{
    fx_event(t, r, 'X', "cuda_runtime", api, ts * US, 1 * US, 100, 100, -1, corr);
    if (kernel) fx_event(t, r, 'X', "kernel", kernel, kts * US, kdur * US, 0, stream, stream, corr);
}

static kt_tables *patterns(const kt_trace *t, const char *name, size_t min_len)
{
    kt_patterns_options o = kt_patterns_defaults();
    o.op = name;
    o.min_len = min_len;
    kt_tables *ts = NULL;
    CHECK_INT(kt_patterns(t, NULL, &o, &ts, NULL), KT_OK);
    return ts;
}

/* Two aten::linear (0-100, 200-300 µs) each with an aten::addmm launching
 * three kernels: k1 k2 k3 (10+20+30 µs) and k1 k2 k4 (10+20+5 µs); then
 * a nested aten::foo in aten::foo launching three kernels; a kernel with
 * no launch call and a launch with no kernel.                           */
static kt_trace *linear_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    op(t, r, "aten::linear", 0, 100);
    op(t, r, "aten::addmm", 10, 80);
    launch(t, r, "cudaLaunchKernel", "k1", 20, 100, 10, 7, 1);
    launch(t, r, "cudaLaunchKernel", "k2", 30, 110, 20, 7, 2);
    launch(t, r, "cudaLaunchKernel", "k3", 40, 130, 30, 7, 3);
    op(t, r, "aten::linear", 200, 100);
    op(t, r, "aten::addmm", 210, 80);
    launch(t, r, "cudaLaunchKernel", "k1", 220, 300, 10, 7, 4);
    launch(t, r, "cudaLaunchKernel", "k2", 230, 310, 20, 7, 5);
    launch(t, r, "cudaLaunchKernel", "k4", 240, 330, 5, 7, 6);
    op(t, r, "aten::foo", 400, 50);
    op(t, r, "aten::foo", 405, 40);
    launch(t, r, "cudaLaunchKernel", "k1", 410, 500, 10, 7, 7);
    launch(t, r, "cudaLaunchKernel", "k1", 411, 510, 10, 7, 8);
    launch(t, r, "cudaLaunchKernel", "k1", 412, 520, 10, 7, 9);
    launch(t, r, "cudaLaunchKernel", NULL, 430, 0, 0, 7, 10);               /* no kernel */
    fx_event(t, r, 'X', "kernel", "orphan", 600 * US, 5 * US, 0, 7, 7, 99); /* no launch */
    fx_finish(t);
    return t;
}

TEST(patterns_two_sequences_under_linear)
{
    kt_trace *t = linear_trace();
    kt_tables *ts = patterns(t, "aten::linear", 3);
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 2);
    if (tb && kt_table_nrows(tb) == 2) {
        /* equal counts: by pattern text */
        CHECK_STR(kt_table_str(tb, 0, 0), "aten::linear|k1|k2|k3");
        CHECK_STR(kt_table_str(tb, 1, 0), "aten::linear|k1|k2|k4");
        CHECK_INT(kt_table_int(tb, 0, 1), 1);
        CHECK_NEAR(fx_num(tb, 0, "GPU kernel duration (us)"), 60, 1e-9);
        CHECK_NEAR(fx_num(tb, 1, "GPU kernel duration (us)"), 35, 1e-9);
        CHECK_NEAR(fx_num(tb, 0, "CPU op duration (us)"), 100, 1e-9);
        CHECK_INT(kt_table_int(tb, 0, 4), 0); /* rank */
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* "aten::" matches every op: only the outermost ones are roots (the
 * linears and the outer foo), never an op inside a matching op.        */
TEST(patterns_substring_match_takes_outermost_roots)
{
    kt_trace *t = linear_trace();
    kt_tables *ts = patterns(t, "aten::", 3);
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 3);
    if (tb && kt_table_nrows(tb) == 3) {
        CHECK_STR(kt_table_str(tb, 0, 0), "aten::foo|k1|k1|k1");
        CHECK_NEAR(fx_num(tb, 0, "CPU op duration (us)"), 50, 1e-9); /* the outer foo */
        CHECK_STR(kt_table_str(tb, 1, 0), "aten::linear|k1|k2|k3");
    }
    const kt_table *ops = fx_table(ts, "ops");
    CHECK(ops && kt_table_nrows(ops) == 1);
    if (ops && kt_table_nrows(ops) == 1) {
        CHECK_STR(kt_table_str(ops, 0, 2), "substring");
        CHECK(kt_table_is_null(ops, 0, 3));
        CHECK_INT(kt_table_int(ops, 0, 4), 3);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* min_len counts GPU events under the op: 4 excludes every root. */
TEST(patterns_min_len_excludes_short_ops)
{
    kt_trace *t = linear_trace();
    kt_tables *ts = patterns(t, "aten::addmm", 4);
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* No op: the cpu_ops that launched most GPU events (their nearest op). */
TEST(patterns_picks_ops_launching_most)
{
    kt_trace *t = linear_trace();
    kt_tables *ts = patterns(t, NULL, 3);
    const kt_table *ops = fx_table(ts, "ops");
    CHECK(ops && kt_table_nrows(ops) == 2);
    if (ops && kt_table_nrows(ops) == 2) {
        CHECK_STR(kt_table_str(ops, 0, 1), "aten::addmm");
        CHECK_INT(kt_table_int(ops, 0, 3), 6);
        CHECK_INT(kt_table_int(ops, 0, 4), 2);
        CHECK_STR(kt_table_str(ops, 1, 1), "aten::foo");
        CHECK_INT(kt_table_int(ops, 1, 3), 3);
        CHECK_STR(kt_table_str(ops, 1, 2), "exact");
    }
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 3);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* A graph launch's kernels belong to the op that launched it; ROCm's
 * stream 0 counts by default, not under --hta-compat (HTA links only
 * streams > 0).                                                         */
TEST(patterns_graph_launch_and_rocm_stream_zero)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    op(t, r, "CompiledFunction", 0, 50);
    launch(t, r, "cudaGraphLaunch", "g1", 10, 100, 5, 7, 1);
    fx_event(t, r, 'X', "kernel", "g2", 106 * US, 5 * US, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "g3", 112 * US, 5 * US, 0, 7, 7, 1);
    op(t, r, "aten::mm", 200, 50);
    launch(t, r, "hipLaunchKernel", "h1", 210, 300, 5, 0, 2);
    launch(t, r, "hipLaunchKernel", "h2", 220, 310, 5, 0, 3);
    fx_finish(t);
    kt_tables *ts = patterns(t, "CompiledFunction", 3);
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 1);
    if (tb && kt_table_nrows(tb) == 1) {
        CHECK_STR(kt_table_str(tb, 0, 0), "CompiledFunction|g1|g2|g3");
        CHECK_NEAR(fx_num(tb, 0, "GPU kernel duration (us)"), 15, 1e-9);
    }
    kt_tables_free(ts);
    ts = patterns(t, "aten::mm", 2);
    tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 1 && !strcmp(kt_table_str(tb, 0, 0), "aten::mm|h1|h2"));
    kt_tables_free(ts);
    t->hta_compat = true;
    ts = patterns(t, "aten::mm", 2);
    tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 0 && kt_table_ncols(tb) == 4);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Depths by HTA's endpoint order, on damaged times: two zero-length events
 * at one instant nest; a zero-length event at the instant another ends is
 * not inside it; a negative duration counts as 0; an op overlapping its
 * predecessor's end nests under it.                                    */
TEST(patterns_op_tree_nesting_on_odd_durations)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t p = fx_event(t, r, 'X', "cpu_op", "P", 0, 100, 1, 1, -1, -1);
    uint32_t z1 = fx_event(t, r, 'X', "cpu_op", "z1", 100, 0, 1, 1, -1, -1);
    uint32_t z2 = fx_event(t, r, 'X', "cpu_op", "z2", 100, 0, 1, 1, -1, -1);
    uint32_t neg = fx_event(t, r, 'X', "cpu_op", "neg", 50, -7, 1, 1, -1, -1);
    uint32_t a = fx_event(t, r, 'X', "cpu_op", "A", 200, 10, 1, 1, -1, -1);
    uint32_t b = fx_event(t, r, 'X', "cpu_op", "B", 205, 10, 1, 1, -1, -1);
    uint32_t c = fx_event(t, r, 'X', "cpu_op", "C", 212, 1, 1, 1, -1, -1);
    uint32_t other = fx_event(t, r, 'X', "cpu_op", "T2", 0, 1000, 1, 2, -1, -1);
    fx_finish(t);
    kt_op_tree tr;
    CHECK_INT(kt_op_tree_build(t, r, &tr), KT_OK);
    CHECK_INT(kt_op_tree_depth(&tr, p), 0);
    CHECK_INT(kt_op_tree_depth(&tr, neg), 1);
    CHECK_INT(kt_op_tree_depth(&tr, z1), 0);
    CHECK_INT(kt_op_tree_depth(&tr, z2), 1);
    CHECK_INT(tr.node[tr.parent[tr.pos[z2]]], z1);
    CHECK_INT(kt_op_tree_depth(&tr, a), 0);
    CHECK_INT(kt_op_tree_depth(&tr, b), 1);
    CHECK_INT(kt_op_tree_depth(&tr, c), 2);
    CHECK_INT(kt_op_tree_depth(&tr, other), 0);
    kt_op_tree_free(&tr);
    kt_trace_free(t);
}

/* Ops with negative and zero durations at one instant (they nest: one
 * root), kernels with no launch or negative durations: one root and no
 * crash; --mine finds nothing repeated; an empty op name is a usage error. */
TEST(patterns_damaged_input_does_not_crash)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    op(t, r, "aten::x", 0, -5);
    op(t, r, "aten::x", 0, 0);
    fx_event(t, r, 'X', "kernel", "k", 10 * US, -3 * US, 0, 7, 7, 5);
    fx_event(t, r, 'X', "kernel", "k", 10 * US, 0, 0, 7, 7, -1);
    launch(t, r, "cudaLaunchKernel", "k", 1, 2, -1, 7, 6);
    fx_finish(t);
    kt_tables *ts = patterns(t, "aten::x", 0);
    const kt_table *tb = fx_table(ts, "patterns");
    CHECK(tb && kt_table_nrows(tb) == 1);
    if (tb && kt_table_nrows(tb) == 1) CHECK_STR(kt_table_str(tb, 0, 0), "aten::x");
    kt_tables_free(ts);
    kt_mine_options m = kt_mine_defaults();
    CHECK_INT(kt_mine_sequences(t, NULL, &m, &ts), KT_OK);
    CHECK(kt_table_nrows(fx_table(ts, "sequences")) == 0);
    kt_tables_free(ts);
    kt_patterns_options o = kt_patterns_defaults();
    o.op = "";
    CHECK_INT(kt_patterns(t, NULL, &o, &ts, NULL), KT_EUSAGE);
    kt_trace_free(t);
}

/* Kernel i of a --mine stream: launched by op at 10·i µs, run on stream
 * 7 at *ts for 10 µs, the next kernel gap µs after it.                   */
static void mined_kernel(kt_trace *t, kt_rank *r, int i, const char *op_name, const char *kernel, int64_t *ts,
                         int64_t gap)
{
    op(t, r, op_name, 10 * i, 5);
    launch(t, r, "cudaLaunchKernel", kernel, 10 * i + 1, *ts, 10, 7, 100 + i);
    *ts += 10 + gap;
}

static kt_tables *mine(const kt_trace *t, size_t max_len)
{
    kt_mine_options m = kt_mine_defaults();
    m.max_len = max_len;
    kt_tables *out = NULL;
    CHECK_INT(kt_mine_sequences(t, NULL, &m, &out), KT_OK);
    return out;
}

/* --mine on one stream: A B C A B C A B C X A B, 10 µs kernels, 5 µs apart
 * except 50 µs after each C.  Hand-counted (no overlap): B|C|A and C|A|B
 * twice each, gaps {5,50,5,50} → median 27.5 → saving 2·2·27.5 = 110;
 * C|A twice with 50 → 100; A|B|C 3×2×5 = 30; A|B 4×1×5 = 20.  Each
 * kernel X is launched by op_X.                                        */
TEST(patterns_mine_ranks_by_saved_launch_gaps)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    const char *seq = "ABCABCABCXAB";
    int64_t ts = 1000;
    for (int i = 0; seq[i]; i++) {
        char kname[2] = { seq[i], 0 }, oname[8] = "op_";
        oname[3] = seq[i];
        mined_kernel(t, r, i, oname, kname, &ts, seq[i] == 'C' ? 50 : 5);
    }
    fx_finish(t);
    kt_tables *out = mine(t, 3);
    const kt_table *tb = fx_table(out, "sequences");
    CHECK(tb && kt_table_nrows(tb) >= 5);
    if (tb && kt_table_nrows(tb) >= 5) {
        static const char *const kernels[] = { "B|C|A", "C|A|B", "C|A", "A|B|C", "A|B" };
        static const double saving[] = { 110, 110, 100, 30, 20 };
        static const int64_t count[] = { 2, 2, 2, 3, 4 };
        static const double kernel_us[] = { 60, 60, 40, 90, 80 };
        for (size_t i = 0; i < 5; i++) {
            CHECK_NEAR(fx_num(tb, i, "kernel_us"), kernel_us[i], 1e-9);
            CHECK_STR(kt_table_str(tb, i, 7), kernels[i]);
            CHECK_NEAR(fx_num(tb, i, "saving_us"), saving[i], 1e-9);
            CHECK_INT(kt_table_int(tb, i, 4), count[i]);
            CHECK_INT(kt_table_int(tb, i, 2), 7);
        }
        CHECK_NEAR(fx_num(tb, 0, "median_gap_us"), 27.5, 1e-9);
        CHECK_STR(kt_table_str(tb, 0, 8), "op_B|op_C|op_A");
    }
    kt_tables_free(out);
    kt_trace_free(t);
}

/* --mine on a stream of 6000 kernels named at random among 3000, so that
 * nearly every window is new: the window table grows from its first 4096
 * slots several times, each length counted again in the larger one.  A
 * motif P Q R every 120 kernels, 100 µs after P and after Q (5 µs
 * elsewhere): 50 times, saving 50·2·100 = 10000 µs; P|Q and Q|R 50·1·100
 * = 5000 each (equal: by name); nothing else repeats with such gaps.     */
TEST(patterns_mine_grows_its_table_on_long_streams)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    unsigned seed = 11;
    int64_t ts = 1000;
    for (int i = 0; i < 6000; i++) {
        char kname[16];
        int at = i % 120;
        if (at < 3) {
            snprintf(kname, sizeof kname, "%c", "PQR"[at]);
        } else {
            seed = seed * 1103515245u + 12345u;
            snprintf(kname, sizeof kname, "k%u", (seed >> 8) % 3000);
        }
        mined_kernel(t, r, i, "op", kname, &ts, at < 2 ? 100 : 5);
    }
    fx_finish(t);
    kt_tables *out = mine(t, 4);
    const kt_table *tb = fx_table(out, "sequences");
    CHECK(tb && kt_table_nrows(tb) >= 3);
    if (tb && kt_table_nrows(tb) >= 3) {
        static const char *const kernels[] = { "P|Q|R", "P|Q", "Q|R" };
        static const double saving[] = { 10000, 5000, 5000 };
        for (size_t i = 0; i < 3; i++) {
            CHECK_STR(kt_table_str(tb, i, 7), kernels[i]);
            CHECK_INT(kt_table_int(tb, i, 4), 50);
            CHECK_NEAR(fx_num(tb, i, "saving_us"), saving[i], 1e-9);
        }
        CHECK(fx_num(tb, 3, "saving_us") < 1000);
    }
    kt_tables_free(out);
    kt_trace_free(t);
}

/* Random damaged traces (negative, zero and overlapping durations, ops on
 * several threads, launches with 0-3 kernels or pointing nowhere), both
 * modes: no crash, and every root is an op of the name with at least
 * min_len GPU events under it, so counts add up to at most the ops.     */
TEST(patterns_random_damaged_traces)
{
    unsigned seed = 7;
    int64_t found = 0;
    for (int round = 0; round < 40; round++) {
        kt_trace *t = fx_trace();
        kt_rank *r = fx_rank(t, 0);
        int64_t nops = 0, corr = 1;
        for (int i = 0; i < 60; i++) {
            seed = seed * 1103515245u + 12345u;
            int64_t ts = (int64_t)(seed >> 8) % 500, dur = (int64_t)(seed >> 16) % 60 - 10;
            int64_t tid = 1 + (seed >> 4) % 3;
            if (seed % 3 == 0) {
                fx_event(t, r, 'X', "cpu_op", "aten::op", ts * US, dur * US, 100, tid, -1, -1);
                nops++;
            } else {
                fx_event(t, r, 'X', "cuda_runtime", seed % 5 ? "cudaLaunchKernel" : "cudaGraphLaunch", ts * US,
                         dur * US, 100, tid, -1, corr);
                for (unsigned k = 0; k < (seed >> 12) % 4; k++)
                    fx_event(t, r, 'X', "kernel", k % 2 ? "ka" : "kb", (ts + 5 + (int64_t)k) * US, (dur / 2) * US, 0,
                             7, (int32_t)(seed % 2 ? 7 : 0), seed % 7 ? corr : corr + 1000);
                corr++;
            }
        }
        fx_finish(t);
        for (int compat = 0; compat < 2; compat++) {
            t->hta_compat = compat;
            kt_tables *ts = patterns(t, "aten::op", 2);
            const kt_table *tb = fx_table(ts, "patterns");
            int64_t total = 0;
            for (size_t i = 0; tb && i < kt_table_nrows(tb); i++) {
                total += kt_table_int(tb, i, 1);
                CHECK(strncmp(kt_table_str(tb, i, 0), "aten::op|", 9) == 0);
                CHECK(kt_table_float(tb, i, 3) >= 0);
            }
            CHECK(total <= nops);
            found += total;
            kt_tables_free(ts);
            kt_mine_options m = kt_mine_defaults();
            CHECK_INT(kt_mine_sequences(t, NULL, &m, &ts), KT_OK);
            kt_tables_free(ts);
        }
        kt_trace_free(t);
    }
    CHECK(found > 0); /* the rounds do find patterns */
}

/* The op tree orders a thread's members by ts, longer first (negative
 * durations as 0), file order last, however they come: 3,000 events in a
 * shuffled order on one thread with 9 durations, half on 40 instants
 * (groups of ~37 equal ts: past the insertion sort's 16), half on 400
 * (groups of ~4), and a second thread already in order; compared with a
 * comparison sort of the same rule.                                     */
static const kt_events *order_events;
static int by_op_order(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const kt_events *e = order_events;
    int64_t da = e->dur[a] > 0 ? e->dur[a] : 0, db = e->dur[b] > 0 ? e->dur[b] : 0;
    if (e->ts[a] != e->ts[b]) return e->ts[a] < e->ts[b] ? -1 : 1;
    if (da != db) return da > db ? -1 : 1;
    return (a > b) - (a < b);
}

TEST(patterns_op_tree_orders_members_by_ts_longer_first)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint64_t rng = 12345;
    enum { N = 3000 };
    for (int i = 0; i < N; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        bool big = (rng >> 40) & 1;
        int64_t ts = big ? (int64_t)((rng >> 33) % 40) * 1000 : 500 + (int64_t)((rng >> 33) % 400) * 1000;
        int64_t dur = (int64_t)((rng >> 20) % 9) - 2;
        fx_event(t, r, 'X', "cpu_op", "op", ts, dur, 1, 1, -1, -1);
    }
    for (int i = 0; i < 50; i++) fx_event(t, r, 'X', "cpu_op", "in order", i * 10, 5, 1, 2, -1, -1);
    fx_finish(t);
    kt_op_tree tr;
    CHECK_INT(kt_op_tree_build(t, r, &tr), KT_OK);
    CHECK_INT(tr.n, N + 50);
    uint32_t *want = malloc((N + 50) * sizeof *want);
    size_t nw = 0, bad = 0;
    for (uint32_t i = 0; want && i < r->ev.n; i++)
        if (kt_ev_tid(&r->ev, i) == kt_ev_tid(&r->ev, 0)) want[nw++] = i;
    order_events = &r->ev;
    if (want) qsort(want, nw, sizeof *want, by_op_order);
    CHECK_INT(nw, N);
    /* the first thread's members, in tree order, are its sorted events */
    for (size_t k = 0, j = 0; want && k < tr.n; k++)
        if (kt_ev_tid(&r->ev, tr.node[k]) == kt_ev_tid(&r->ev, 0)) bad += j >= nw || tr.node[k] != want[j++];
    CHECK_INT(bad, 0);
    free(want);
    kt_op_tree_free(&tr);
    kt_trace_free(t);
}
