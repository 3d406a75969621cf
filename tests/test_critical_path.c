/* test_critical_path.c — critical-path on small hand-written traces with
 * hand-computed paths: launch delays, what-if predictions, GPU→CPU sync,
 * graph launches and launch APIs HTA ignores (where we differ from HTA and
 * --hta-compat does not), and damaged input: negative durations,
 * overlapping ops, no CPU ops, no GPU events, cycles, bad options.
 * Times below are µs as written in the traces.                            */
#include "analysis/structure/critical_path_longest.h"
#include "fixture.h"
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A trace file made of these events; loaded (hta_compat or not). */
typedef struct tiny {
    char dir[64], path[128];
    kt_trace *t;
} tiny;

static void tiny_load(tiny *k, const char *events, bool hta_compat)
{
    snprintf(k->dir, sizeof k->dir, "/tmp/kt_cp_XXXXXX");
    CHECK(mkdtemp(k->dir) != NULL);
    snprintf(k->path, sizeof k->path, "%s/trace.json", k->dir);
    FILE *f = fopen(k->path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [\n%s\n]}\n", events);
    fclose(f);
    k->t = fx_load_path(k->path, hta_compat);
    CHECK(k->t != NULL);
}

static void tiny_free(tiny *k)
{
    kt_trace_free(k->t);
    unlink(k->path);
    rmdir(k->dir);
}

static kt_tables *run(const tiny *k, const char *annotation, const char *what_if, kt_status want, char *err,
                      size_t errlen)
{
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = annotation;
    o.what_if = what_if;
    kt_tables *ts = NULL;
    if (!k->t) return NULL;
    kt_diags *why;
    kt_status s = kt_critical_path(k->t, NULL, &o, &ts, &why);
    snprintf(err, errlen, "%s", fx_why(why));
    CHECK_INT(s, want);
    return ts;
}

static double num(const kt_tables *ts, const char *table, size_t row, const char *col)
{
    return fx_num(fx_table(ts, table), row, col);
}

/* Percentage of the path of a bound_by class (0 when absent). */
static double pct(const kt_tables *ts, const char *bound_by)
{
    const kt_table *s = fx_table(ts, "summary");
    long row = fx_row(s, "bound_by", bound_by, -1);
    return row < 0 ? 0.0 : fx_num(s, (size_t)row, "pct_of_critical_path_duration");
}

#define OP(name, ts, dur)                                                                                  \
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts \
    ", \"dur\": " #dur "},\n"
#define CALL(name, ts, dur, corr)                                                                          \
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts \
    ", \"dur\": " #dur ", \"args\": {\"correlation\": " #corr "}},\n"
#define KERNEL(name, ts, dur, stream, corr)                                                                \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": " #stream            \
    ", \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": 0, \"stream\": " #stream                    \
    ", \"correlation\": " #corr "}},\n"
#define LAST "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"s\": \"t\"}"

/* op 0-100 launching (10-20) a kernel that runs 50-180: the path is
 * op.start →10→ launch.start →40 (launch delay)→ kernel →130→ end = 180. */
static const char *const launched =
    OP("aten::mm", 0, 100) CALL("cudaLaunchKernel", 10, 10, 5) KERNEL("gemm", 50, 130, 7, 5) LAST;

TEST(critical_path_launch_delay_by_hand)
{
    tiny k = { 0 };
    tiny_load(&k, launched, false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 180, 1e-9);
        CHECK_INT(num(ts, "graph", 0, "nodes"), 6);
        CHECK_NEAR(pct(ts, "cpu_bound"), 100.0 * 10 / 180, 1e-9);
        CHECK_NEAR(pct(ts, "gpu_kernel_launch_overhead"), 100.0 * 40 / 180, 1e-9);
        CHECK_NEAR(pct(ts, "gpu_compute_bound"), 100.0 * 130 / 180, 1e-9);
        const kt_table *e = fx_table(ts, "edges");
        CHECK_INT(kt_table_nrows(e), 3);
        CHECK_STR(kt_table_str(e, 1, (size_t)kt_table_col_index(e, "type")), "critical_path_kernel_launch_delay");
        CHECK_NEAR(fx_num(e, 1, "u_ts"), 10, 1e-9);
        CHECK_NEAR(fx_num(e, 1, "v_ts"), 50, 1e-9);
    }
    kt_tables_free(ts);
    tiny_free(&k);
}

/* What if: launch=0 → max(CPU 100, 10 + 0 + 130) = 140; cpu=0.5 →
 * max(50, 5 + 40 + 130) = 175; gpu=0 → max(100, 50) = 100.               */
TEST(critical_path_what_if_by_hand)
{
    tiny k = { 0 };
    tiny_load(&k, launched, false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, "launch=0,cpu=0.5,gpu=0,launch=0+gpu=0", KT_OK, err, sizeof err);
    if (ts) {
        const kt_table *w = fx_table(ts, "what_if");
        CHECK_INT(kt_table_nrows(w), 4);
        CHECK_NEAR(fx_num(w, 0, "predicted_us"), 140, 1e-9);
        CHECK_NEAR(fx_num(w, 1, "predicted_us"), 175, 1e-9);
        CHECK_NEAR(fx_num(w, 2, "predicted_us"), 100, 1e-9);
        CHECK_NEAR(fx_num(w, 3, "predicted_us"), 100, 1e-9);
        CHECK_NEAR(fx_num(w, 0, "change_pct"), 100.0 * (140 - 180) / 180, 1e-9);
        CHECK_STR(kt_table_str(w, 3, (size_t)kt_table_col_index(w, "scenario")), "launch=0+gpu=0");
    }
    kt_tables_free(ts);
    char err2[256] = "";
    CHECK(run(&k, NULL, "launch=-1", KT_EUSAGE, err2, sizeof err2) == NULL);
    CHECK(strstr(err2, "launch=-1") != NULL);
    CHECK(run(&k, NULL, "memory=0", KT_EUSAGE, err2, sizeof err2) == NULL);
    CHECK(run(&k, NULL, "", KT_EUSAGE, err2, sizeof err2) == NULL);
    tiny_free(&k);
}

/* cudaDeviceSynchronize (blocking: weight 0) waits for the kernel: the
 * Context Sync event links kernel end → sync end, then op2 follows:
 * 0 →10→ 10 →40→ 50 →130→ 180 (sync end, 0) → op2 200-230 (dep 0, 30).  */
TEST(critical_path_device_sync_by_hand)
{
    tiny k = { 0 };
    tiny_load(&k,
              OP("aten::mm", 0, 30) CALL("cudaLaunchKernel", 10, 10, 5) KERNEL("gemm", 50, 130, 7, 5)
                  CALL("cudaDeviceSynchronize", 40, 140, 9)
              "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": 0, \"ts\": 60,"
              " \"dur\": 120, \"args\": {\"device\": 0, \"correlation\": 9}},\n"
              OP("aten::add", 200, 30) LAST,
              false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 210, 1e-9);
        CHECK_INT(num(ts, "graph", 0, "critical_path_sync_dependency"), 1);
        const kt_table *e = fx_table(ts, "edges");
        long sync = fx_row(e, "type", "critical_path_sync_dependency", -1);
        CHECK(sync >= 0);
        if (sync >= 0) {
            CHECK_NEAR(fx_num(e, (size_t)sync, "u_ts"), 180, 1e-9);
            CHECK_NEAR(fx_num(e, (size_t)sync, "v_ts"), 180, 1e-9);
        }
        CHECK_NEAR(pct(ts, "cpu_bound"), 100.0 * 40 / 210, 1e-9);
    }
    kt_tables_free(ts);
    tiny_free(&k);
}

/* A CUDA graph launch (10-20) of k1 (stream 7, 30-50), k2 (stream 8,
 * 60-80) and k3 (stream 7, 85-95) under a 0-25 op.  Ours: launch edge to
 * k1 (20), k1 (20), kernel-kernel gap to k3 (35), k3 (10), after 10 µs of
 * op: 95.  HTA (#290): no launch edge for graph launches and only k3 kept
 * (the launch points at its last kernel), unreached: 25 µs of CPU.        */
static const char *const graph =
    OP("aten::graph_replay", 0, 25) CALL("cudaGraphLaunch", 10, 10, 5) KERNEL("k1", 30, 20, 7, 5)
        KERNEL("k2", 60, 20, 8, 5) KERNEL("k3", 85, 10, 7, 5) LAST;

TEST(critical_path_graph_launch_ours_and_hta)
{
    tiny k = { 0 };
    tiny_load(&k, graph, false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 95, 1e-9);
        CHECK_NEAR(pct(ts, "gpu_kernel_launch_overhead"), 100.0 * 20 / 95, 1e-9);
        CHECK_NEAR(pct(ts, "gpu_kernel_kernel_overhead"), 100.0 * 35 / 95, 1e-9);
        CHECK_INT(num(ts, "graph", 0, "unreached_gpu_events"), 0);
    }
    kt_tables_free(ts);
    tiny_free(&k);

    tiny h = { 0 };
    tiny_load(&h, graph, true);
    ts = run(&h, "", NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 25, 1e-9);
        CHECK_NEAR(pct(ts, "cpu_bound"), 100, 1e-9);
        CHECK_INT(num(ts, "graph", 0, "critical_path_kernel_launch_delay"), 0);
        CHECK_INT(num(ts, "graph", 0, "unreached_gpu_events"), 1);
    }
    kt_tables_free(ts);
    tiny_free(&h);
}

/* The report's cut (no_edges, longest_edges 3) of the graph launch's path
 * op 10, launch 20, k1 20, k1→k3 gap 35, k3 10: no table edges, the gap
 * first, then launch and k1 (a tie: path order), each with its position.  */
TEST(critical_path_longest_edges_only)
{
    tiny k = { 0 };
    tiny_load(&k, graph, false);
    kt_critical_path_options o = kt_critical_path_defaults();
    o.no_edges = 1;
    o.longest_edges = 3;
    kt_tables *ts = NULL, *all = NULL;
    if (k.t) CHECK_INT(kt_critical_path(k.t, NULL, &o, &ts, NULL), KT_OK);
    if (ts) {
        CHECK(kt_tables_find(ts, "edges") == NULL);
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 95, 1e-9);
        const kt_table *b = fx_table(ts, "breakdown");
        CHECK_INT(kt_table_nrows(b), 3);
        static const double edge[] = { 3, 1, 2 }, dur[] = { 35, 20, 20 };
        for (size_t i = 0; i < 3; i++) {
            CHECK_NEAR(fx_num(b, i, "edge"), edge[i], 0);
            CHECK_NEAR(fx_num(b, i, "duration"), dur[i], 1e-9);
        }
        CHECK_STR(kt_table_str(b, 0, (size_t)kt_table_col_index(b, "type")), "critical_path_kernel_kernel_delay");
        CHECK_STR(kt_table_str(b, 1, (size_t)kt_table_col_index(b, "bound_by")), "gpu_kernel_launch_overhead");
    }
    o = kt_critical_path_defaults();
    if (k.t) CHECK_INT(kt_critical_path(k.t, NULL, &o, &all, NULL), KT_OK);
    if (all) { /* the defaults: every edge, in path order, no column "edge" */
        CHECK(kt_tables_find(all, "edges") != NULL);
        CHECK_INT(kt_table_nrows(fx_table(all, "breakdown")), 5);
        CHECK_INT(kt_table_col_index(fx_table(all, "breakdown"), "edge"), -1);
    }
    kt_tables_free(ts);
    kt_tables_free(all);
    tiny_free(&k);
}

/* hipModuleLaunchKernel (Triton on ROCm) launches for us, not for HTA. */
TEST(critical_path_hip_module_launch)
{
    static const char *const hip =
        OP("triton_op", 0, 100) CALL("hipModuleLaunchKernel", 10, 10, 5) KERNEL("triton_k", 50, 130, 0, 5) LAST;
    tiny k = { 0 }, h = { 0 };
    tiny_load(&k, hip, false);
    tiny_load(&h, hip, true);
    char err[256] = "";
    kt_tables *ours = run(&k, NULL, NULL, KT_OK, err, sizeof err), *hta = run(&h, "", NULL, KT_OK, err, sizeof err);
    if (ours && hta) {
        CHECK_NEAR(num(ours, "graph", 0, "path_length_us"), 180, 1e-9);
        CHECK_NEAR(pct(ours, "gpu_kernel_launch_overhead"), 100.0 * 40 / 180, 1e-9);
        CHECK_NEAR(num(hta, "graph", 0, "path_length_us"), 130, 1e-9); /* the kernel alone */
        CHECK_INT(num(hta, "graph", 0, "critical_path_kernel_launch_delay"), 0);
    }
    kt_tables_free(ours);
    kt_tables_free(hta);
    tiny_free(&k);
    tiny_free(&h);
}

/* No ProfilerStep: the whole trace; with one: its instance 0 only. */
TEST(critical_path_window_default)
{
    tiny k = { 0 };
    tiny_load(&k,
              "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 1,"
              " \"ts\": 0, \"dur\": 100},\n" OP("aten::mm", 1, 99) CALL("cudaLaunchKernel", 10, 10, 5)
                  KERNEL("gemm", 50, 130, 7, 5) OP("aten::late", 300, 50) LAST,
              false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_NEAR(num(ts, "graph", 0, "window_start_us"), 0, 1e-9);
        CHECK_NEAR(num(ts, "graph", 0, "window_end_us"), 100, 1e-9);
        CHECK_NEAR(num(ts, "graph", 0, "path_length_us"), 179, 1e-9); /* aten::late is outside */
    }
    kt_tables_free(ts);
    ts = run(&k, "", NULL, KT_OK, err, sizeof err);
    if (ts) CHECK_NEAR(num(ts, "graph", 0, "window_end_us"), 350, 1e-9);
    kt_tables_free(ts);
    CHECK(run(&k, "NoSuchAnnotation", NULL, KT_EANALYSIS, err, sizeof err) == NULL);
    CHECK(strstr(err, "NoSuchAnnotation") != NULL);
    kt_critical_path_options o = kt_critical_path_defaults();
    o.instance_first = o.instance_last = 5;
    kt_tables *none = NULL;
    kt_diags *why = NULL;
    if (k.t) CHECK_INT(kt_critical_path(k.t, NULL, &o, &none, &why), KT_EANALYSIS);
    CHECK(strstr(fx_why(why), "instance 5") != NULL);
    tiny_free(&k);
}

/* No CPU ops, or no GPU events: a clear error, no tables. */
TEST(critical_path_needs_cpu_and_gpu)
{
    tiny k = { 0 };
    tiny_load(&k, KERNEL("gemm", 50, 130, 7, 5) LAST, false);
    char err[256] = "";
    CHECK(run(&k, NULL, NULL, KT_EANALYSIS, err, sizeof err) == NULL);
    CHECK(strstr(err, "no CPU ops") != NULL);
    tiny_free(&k);
    tiny_load(&k, OP("aten::mm", 0, 100) LAST, false);
    CHECK(run(&k, NULL, NULL, KT_EANALYSIS, err, sizeof err) == NULL);
    CHECK(strstr(err, "no GPU events") != NULL);
    tiny_free(&k);
}

/* A kernel written with a negative duration (ns rounding), ops that
 * overlap without nesting on one thread, a zero-length op, a kernel with no
 * launch and a launch with no kernel: no crash, the negative span counts 0
 * and is reported, the orphan kernel and the zero-length op stay out of
 * the graph (10 nodes: a, b, both launches, gemm), the path is no longer
 * than the trace.                                                          */
TEST(critical_path_damaged_input)
{
    tiny k = { 0 };
    tiny_load(&k,
              OP("aten::a", 0, 50) OP("aten::b", 30, 50) CALL("cudaLaunchKernel", 35, 5, 5)
                  KERNEL("gemm", 60, -1, 7, 5) OP("aten::zero", 90, 0) CALL("cudaLaunchKernel", 41, 3, 77)
                      KERNEL("orphan", 70, 5, 9, 99) LAST,
              false);
    char err[256] = "";
    kt_tables *ts = run(&k, NULL, NULL, KT_OK, err, sizeof err);
    if (ts) {
        CHECK_INT(num(ts, "graph", 0, "negative_weight_edges") >= 1, 1);
        CHECK_INT(num(ts, "graph", 0, "nodes"), 10);
        CHECK_INT(num(ts, "graph", 0, "unreached_gpu_events"), 0);
        double len = num(ts, "graph", 0, "path_length_us");
        CHECK(len > 0 && len <= 80);
        const kt_table *b = fx_table(ts, "breakdown");
        for (size_t i = 0; i < kt_table_nrows(b); i++) CHECK(fx_num(b, i, "duration") >= 0);
    }
    kt_tables_free(ts);
    tiny_free(&k);
}

/* A cycle (a damaged trace's sync edges can close one): broken at its
 * earliest node, counted, and the longest path of what is left found.
 * Nodes 0..3 at t = 0, 10, 20, 30; edges 0→1→2→3 and 3→1.               */
TEST(critical_path_cycle_is_broken)
{
    int64_t ts[] = { 0, 10, 20, 30 };
    uint32_t ev[] = { 0, 1, 2, 3 };
    uint8_t flags[] = { CP_NODE_START, CP_NODE_START, CP_NODE_START, CP_NODE_START };
    uint32_t src[] = { 0, 1, 2, 3 }, dst[] = { 1, 2, 3, 1 }, attr[] = { 0, 1, 2, 3 };
    uint8_t type[] = { CP_OPERATOR, CP_OPERATOR, CP_OPERATOR, CP_OPERATOR }, ef[4] = { 0 };
    cp_graph g = { .n = 4, .ts = ts, .ev = ev, .flags = flags, .m = 4, .src = src, .dst = dst, .attr = attr,
                   .type = type, .eflags = ef };
    uint8_t cls[4] = { CP_CLASS_CPU, CP_CLASS_CPU, CP_CLASS_CPU, CP_CLASS_CPU };
    cp_path p;
    CHECK_INT(cp_longest_path(&g, cls, NULL, &p), KT_OK);
    CHECK_INT(p.cycle_edges, 1);   /* 0→1 was released, 3→1 ignored */
    CHECK_INT(p.length, 30);       /* 0 → 1 → 2 → 3 */
    CHECK_INT(p.nn, 4);
    CHECK_INT(p.nodes[0], 0);
    CHECK_INT(p.nodes[3], 3);
    cp_path_free(&p);
}

/* The path's end among equally long ones is the first networkx visits:
 * the fewest hops from a source, then its visiting order, not time order.
 * Nodes 0..4 at t = 0, 10, 10, 20, 20; 0→2 (10), 2→1 (0: back in node
 * order, at one time), 1→3 (10), 0→4 (20): 3 and 4 both end 20 µs paths,
 * 4 in one hop.  Then 0→4 and 0→3 (20 each, one hop): 4, added first.    */
#define MAX_HAND 8
/* The longest path of a hand-made graph: n nodes at ts[] (events 0..n),
 * m operator edges src[k] → dst[k] but those of types[k] when given.    */
static kt_status hand_path(const int64_t *ts, uint32_t n, const uint32_t *src, const uint32_t *dst,
                           const uint8_t *types, size_t m, cp_path *p)
{
    uint32_t ev[MAX_HAND], attr[MAX_HAND];
    uint8_t flags[MAX_HAND], type[MAX_HAND], ef[MAX_HAND] = { 0 };
    for (uint32_t v = 0; v < n; v++) ev[v] = v, flags[v] = CP_NODE_START;
    for (size_t k = 0; k < m; k++) attr[k] = src[k], type[k] = types ? types[k] : CP_OPERATOR;
    cp_graph g = { .n = n, .ts = (int64_t *)ts, .ev = ev, .flags = flags, .m = m, .src = (uint32_t *)src,
                   .dst = (uint32_t *)dst, .attr = attr, .type = type, .eflags = ef };
    return cp_longest_path(&g, NULL, NULL, p);
}

TEST(critical_path_end_ties_follow_generations)
{
    static const int64_t ts[] = { 0, 10, 10, 20, 20 };
    static const uint32_t src[] = { 0, 2, 1, 0 }, dst[] = { 2, 1, 3, 4 }, src2[] = { 0, 0 }, dst2[] = { 4, 3 };
    static const uint8_t type[] = { CP_OPERATOR, CP_DEPENDENCY, CP_OPERATOR, CP_OPERATOR };
    cp_path p;
    CHECK_INT(hand_path(ts, 5, src, dst, type, 4, &p), KT_OK);
    CHECK_INT(p.length, 20);
    CHECK_INT(p.nn, 2);
    if (p.nn == 2) CHECK_INT(p.nodes[1], 4);
    cp_path_free(&p);
    CHECK_INT(hand_path(ts, 5, src2, dst2, NULL, 2, &p), KT_OK);
    CHECK_INT(p.length, 20);
    CHECK_INT(p.nn, 2);
    if (p.nn == 2) CHECK_INT(p.nodes[1], 4);
    cp_path_free(&p);
}

/* Equal-length paths resolve as networkx does: the first maximum over
 * predecessors in edge insertion order.  Node 3 has two 10 µs routes,
 * via 1 (edges inserted first) and via 2.                                 */
TEST(critical_path_ties_follow_insertion_order)
{
    int64_t ts[] = { 0, 5, 5, 10 };
    uint32_t ev[] = { 0, 1, 2, 3 };
    uint8_t flags[4] = { CP_NODE_START, CP_NODE_START, CP_NODE_START, 0 };
    uint32_t src[] = { 0, 1, 0, 2 }, dst[] = { 1, 3, 2, 3 }, attr[4] = { 0, 1, 0, 2 };
    uint8_t type[] = { CP_OPERATOR, CP_OPERATOR, CP_OPERATOR, CP_OPERATOR }, ef[4] = { 0 };
    cp_graph g = { .n = 4, .ts = ts, .ev = ev, .flags = flags, .m = 4, .src = src, .dst = dst, .attr = attr,
                   .type = type, .eflags = ef };
    cp_path p;
    CHECK_INT(cp_longest_path(&g, NULL, NULL, &p), KT_OK);
    CHECK_INT(p.length, 10);
    CHECK_INT(p.nn, 3);
    CHECK_INT(p.nodes[1], 1);
    cp_path_free(&p);
    uint32_t src2[] = { 0, 2, 0, 1 }, dst2[] = { 2, 3, 1, 3 };
    g.src = src2, g.dst = dst2;
    CHECK_INT(cp_longest_path(&g, NULL, NULL, &p), KT_OK);
    CHECK_INT(p.nodes[1], 2);
    cp_path_free(&p);
}
