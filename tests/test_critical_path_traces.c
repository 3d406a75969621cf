/* test_critical_path_traces.c — critical-path with our defaults on the real
 * traces HTA gets wrong or cannot read: ns timestamps, AMD/ROCm, CUDA graph
 * launches (trace_diff/test: HTA #290), a legacy (2021) trace and a Triton
 * trace (cuLaunchKernel).  Each gives a non-empty path whose summary adds up
 * to 100 %, and the figures that follow from our rules are pinned (docs/
 * critical_path.md explains each difference from HTA).                     */
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <math.h>

typedef struct trace_case {
    const char *rel;
    int instance;
    double path_us;          /* the path's length */
    const char *top;         /* the largest bound_by */
    double top_pct;
} trace_case;

static double col(const kt_table *t, size_t row, const char *name)
{
    long j = kt_table_col_index(t, name);
    return j < 0 ? NAN : kt_table_float(t, row, (size_t)j);
}

static void check_trace(const trace_case *c)
{
    const kt_trace *t = fx_shared_trace(c->rel, false);
    CHECK(t != NULL);
    if (!t) return;
    kt_critical_path_options o = kt_critical_path_defaults();
    o.instance_first = o.instance_last = c->instance;
    kt_tables *ts = NULL;
    CHECK_INT(kt_critical_path(t, NULL, &o, &ts, NULL), KT_OK);
    if (!ts) return;
    const kt_table *s = kt_tables_find(ts, "summary"), *g = kt_tables_find(ts, "graph");
    double sum = 0, best = -1;
    const char *top = "";
    long bcol = kt_table_col_index(s, "bound_by");
    for (size_t i = 0; i < kt_table_nrows(s); i++) {
        double p = col(s, i, "pct_of_critical_path_duration");
        sum += p;
        if (p > best) best = p, top = kt_table_str(s, i, (size_t)bcol);
    }
    CHECK_NEAR(sum, 100.0, 0.01);
    CHECK(kt_table_nrows(kt_tables_find(ts, "edges")) > 0);
    CHECK_NEAR(col(g, 0, "path_length_us"), c->path_us, 0.0005);
    CHECK_STR(top, c->top);
    CHECK_NEAR(best, c->top_pct, 0.001);
    kt_tables_free(ts);
}

TEST(critical_path_traces_ns_resolution)
{
    NEED_SHARED();
    static const trace_case c = { "traces/hta/ns_resolution_trace", 1, 95736.026, "gpu_compute_bound", 98.804 };
    check_trace(&c);
}

TEST(critical_path_traces_amd)
{
    NEED_SHARED();
    static const trace_case c = { "traces/hta/amd_trace", 0, 7452.353, "cpu_bound", 100.0 };
    check_trace(&c);
}

/* 12 cudaGraphLaunch calls, 5046 kernels: on the path for us, invisible to
 * HTA (100 % cpu_bound under --hta-compat, tests/test_critical_path_oracle.c). */
TEST(critical_path_traces_graph_launches)
{
    NEED_SHARED();
    static const trace_case c = { "traces/hta/trace_diff/test", 1, 80912.0, "gpu_compute_bound", 89.873 };
    check_trace(&c);
}

TEST(critical_path_traces_legacy)
{
    NEED_SHARED();
    static const trace_case c = { "traces/legacy_tbplugin_resnet50.pt.trace.json.gz", 0, 927913.0, "cpu_bound",
                                  100.0 };
    check_trace(&c);
}

TEST(critical_path_traces_triton)
{
    NEED_SHARED();
    static const trace_case c = { "traces/tracelens/torch_compile_triton", 0, 12793.711, "gpu_compute_bound",
                                  98.087 };
    check_trace(&c);
}
