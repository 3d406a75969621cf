/* test_critical_path_oracle.c — `critical-path --hta-compat` against HTA's
 * own outputs (../shared/oracle/hta/<dir>/critical_path_*.csv and each
 * status.json's graph statistics), one test per trace HTA handled, with
 * the annotation and instance HTA was run with (../shared/oracle/README.md).
 *
 * The ordered path is compared edge by edge (start/end times, start flags,
 * type, weight): equal paths mean the same critical events, the same total
 * weight and the same breakdown.  Event ids differ (HTA numbers every
 * traceEvents entry, we number the events we keep), so times identify them.
 * The summary must agree within 0.1 percentage points, the path's total
 * weight exactly, and the graph's node and edge counts with HTA's.        */
#include "fixture.h"
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORWARD "[param|pytorch.model.alex_net|0|0|0|measure|forward]"

typedef struct cp_case {
    const char *dir, *annotation;
    int instance;
    long nodes, edges; /* HTA's status.json critical_path_graph */
} cp_case;

static const kt_table *table(const kt_tables *ts, const char *name)
{
    const kt_table *t = kt_tables_find(ts, name);
    CHECK(t != NULL);
    return t;
}

static double num(const kt_table *t, size_t row, const char *col)
{
    long j = kt_table_col_index(t, col);
    if (j < 0 || kt_table_is_null(t, row, (size_t)j)) return NAN;
    return kt_table_col_type(t, (size_t)j) == KT_COL_INT ? (double)kt_table_int(t, row, (size_t)j)
                                                         : kt_table_float(t, row, (size_t)j);
}

static const char *str(const kt_table *t, size_t row, const char *col)
{
    long j = kt_table_col_index(t, col);
    return j < 0 ? "" : kt_table_str(t, row, (size_t)j);
}

static fx_csv *oracle(const char *dir, const char *file)
{
    char rel[512];
    snprintf(rel, sizeof rel, "oracle/hta/%s/critical_path_%s.csv", dir, file);
    return fx_csv_read(rel);
}

static bool is_true(const char *s)
{
    return !strcmp(s, "True");
}

/* The path, edge by edge. */
static void compare_path(const cp_case *c, const kt_table *edges, const fx_csv *ref)
{
    size_t n = ref->nrows - 1, bad = 0;
    CHECK_INT(kt_table_nrows(edges), n);
    for (size_t i = 0; i < n && i < kt_table_nrows(edges) && bad < 3; i++) {
        bool same = fabs(num(edges, i, "u_ts") - strtod(fx_csv_get(ref, i + 1, "u_ts"), NULL)) < 5e-4 &&
                    fabs(num(edges, i, "v_ts") - strtod(fx_csv_get(ref, i + 1, "v_ts"), NULL)) < 5e-4 &&
                    fabs(num(edges, i, "weight") - strtod(fx_csv_get(ref, i + 1, "weight"), NULL)) < 5e-4 &&
                    (num(edges, i, "u_is_start") == 1) == is_true(fx_csv_get(ref, i + 1, "u_is_start")) &&
                    (num(edges, i, "v_is_start") == 1) == is_true(fx_csv_get(ref, i + 1, "v_is_start")) &&
                    !strcmp(str(edges, i, "type"), fx_csv_get(ref, i + 1, "type"));
        if (!same && bad++ < 3)
            kt_test_fail(__FILE__, __LINE__, "%s: path edge %zu: ours %.3f->%.3f %s %.3f, HTA %s->%s %s %s", c->dir,
                         i, num(edges, i, "u_ts"), num(edges, i, "v_ts"), str(edges, i, "type"),
                         num(edges, i, "weight"), fx_csv_get(ref, i + 1, "u_ts"), fx_csv_get(ref, i + 1, "v_ts"),
                         fx_csv_get(ref, i + 1, "type"), fx_csv_get(ref, i + 1, "weight"));
    }
}

/* Total weight exact; the breakdown as a multiset of (type, bound_by,
 * duration) is implied by the path, so only its sum is checked here.     */
static void compare_total(const cp_case *c, const kt_table *breakdown, const fx_csv *ref)
{
    double ours = 0, theirs = 0;
    for (size_t i = 0; i < kt_table_nrows(breakdown); i++) ours += num(breakdown, i, "duration");
    for (size_t i = 1; i < ref->nrows; i++) theirs += strtod(fx_csv_get(ref, i, "duration"), NULL);
    if (fabs(ours - theirs) > 5e-4) kt_test_fail(__FILE__, __LINE__, "%s: total %.3f, HTA %.3f", c->dir, ours, theirs);
    CHECK_INT(kt_table_nrows(breakdown), ref->nrows - 1);
}

static void compare_summary(const cp_case *c, const kt_table *summary, const fx_csv *ref)
{
    CHECK_INT(kt_table_nrows(summary), ref->nrows - 1);
    for (size_t i = 1; i < ref->nrows && i - 1 < kt_table_nrows(summary); i++) {
        CHECK_STR(str(summary, i - 1, "bound_by"), fx_csv_get(ref, i, "bound_by"));
        double want = strtod(fx_csv_get(ref, i, "pct_of_critical_path_duration"), NULL);
        if (fabs(num(summary, i - 1, "pct_of_critical_path_duration") - want) > 0.1)
            kt_test_fail(__FILE__, __LINE__, "%s: %s %.4f%%, HTA %.4f%%", c->dir, fx_csv_get(ref, i, "bound_by"),
                         num(summary, i - 1, "pct_of_critical_path_duration"), want);
    }
}

static void run_case(const cp_case *c)
{
    NEED_SHARED();
    const char *rel = fx_hta_trace(c->dir);
    const kt_trace *t = rel ? fx_shared_trace(rel, true) : NULL;
    CHECK(t != NULL);
    if (!t) return;
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = c->annotation;
    o.instance_first = o.instance_last = c->instance;
    kt_tables *ts = NULL;
    kt_diags *why;
    kt_status s = kt_critical_path(t, NULL, &o, &ts, &why);
    const char *err = fx_why(why);
    if (s != KT_OK) kt_test_fail(__FILE__, __LINE__, "%s: %s", c->dir, err);
    fx_csv *edges = oracle(c->dir, "edges_in_order"), *bd = oracle(c->dir, "breakdown"),
           *sum = oracle(c->dir, "summary");
    CHECK(edges && bd && sum);
    if (ts && edges && bd && sum) {
        const kt_table *g = table(ts, "graph");
        CHECK_INT(kt_table_nrows(g), 1); /* HTA ran on the first rank: the oracle traces used have one */
        CHECK_INT(num(g, 0, "nodes"), c->nodes);
        CHECK_INT(num(g, 0, "edges"), c->edges);
        compare_path(c, table(ts, "edges"), edges);
        compare_total(c, table(ts, "breakdown"), bd);
        compare_summary(c, table(ts, "summary"), sum);
    }
    fx_csv_free(edges);
    fx_csv_free(bd);
    fx_csv_free(sum);
    kt_tables_free(ts);
}

#define CP_TEST(name, dir, ann, inst, nodes, edges)                                                                \
    TEST(name)                                                                                                     \
    {                                                                                                              \
        static const cp_case c = { dir, ann, inst, nodes, edges };                                                 \
        run_case(&c);                                                                                              \
    }

CP_TEST(critical_path_oracle_simple_add, "cp_simple_add", FORWARD, 1, 414, 415)
CP_TEST(critical_path_oracle_alexnet, "cp_alexnet", FORWARD, 1, 418, 421)
CP_TEST(critical_path_oracle_event_sync, "cp_cuda_event_sync", "ProfilerStep", 0, 54, 57)
CP_TEST(critical_path_oracle_event_sync_multi_stream, "cp_cuda_event_sync_multi_stream", "", 0, 78, 82)
CP_TEST(critical_path_oracle_amd, "amd_trace", "ProfilerStep", 1, 80, 79)
CP_TEST(critical_path_oracle_timeline, "timeline_analysis", "ProfilerStep", 0, 4734, 4704)
CP_TEST(critical_path_oracle_nccl, "nccl_parser_config", "ProfilerStep", 1, 15600, 15598)
CP_TEST(critical_path_oracle_ns_resolution, "ns_resolution_trace", "ProfilerStep", 1, 11228, 11225)
CP_TEST(critical_path_oracle_negative_queue, "negative_queue_length_values_check", "ProfilerStep", 1, 13976, 13956)
CP_TEST(critical_path_oracle_df_index_resolver, "df_index_resolver", "ProfilerStep", 1, 45576, 45568)
CP_TEST(critical_path_oracle_trace_diff_control, "trace_diff_control", "ProfilerStep", 1, 19846, 19839)
CP_TEST(critical_path_oracle_trace_diff_test, "trace_diff_test", "ProfilerStep", 1, 17712, 17700)

/* trace_filter has two ranks; HTA analysed rank 0. */
TEST(critical_path_oracle_trace_filter_rank0)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("trace_filter_2ranks"), true);
    CHECK(t != NULL);
    if (!t) return;
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = "ProfilerStep";
    int r0 = 0;
    kt_rank_sel sel = { &r0, 1 };
    kt_tables *ts = NULL;
    CHECK_INT(kt_critical_path(t, &sel, &o, &ts, NULL), KT_OK);
    fx_csv *edges = oracle("trace_filter_2ranks", "edges_in_order");
    CHECK(edges != NULL);
    cp_case c = { "trace_filter_2ranks", "ProfilerStep", 0, 4734, 4704 };
    if (ts && edges) {
        CHECK_INT(num(table(ts, "graph"), 0, "nodes"), c.nodes);
        compare_path(&c, table(ts, "edges"), edges);
    }
    fx_csv_free(edges);
    kt_tables_free(ts);
}
