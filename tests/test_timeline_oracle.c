/* test_timeline_oracle.c — temporal, idle and overlap under --hta-compat
 * against HTA's own CSVs, and temporal --tracelens against TraceLens's
 * gpu_timeline.csv, on the real traces in ../shared.                      */
#include "../programs/cli.h"
#include "analysis/timeline/temporal_overlap.h"
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* ---- comparison ------------------------------------------------------- */

/* Integer µs sums must be exact; HTA rounds everything else to 2 decimals. */
static double tolerance(const char *col)
{
    if (strstr(col, "(us)") || !strcmp(col, "idle_time") || !strcmp(col, "count")) return 1e-9;
    return 0.01 + 1e-9;
}

static bool cell_equal(const char *got, const char *want, double tol)
{
    if (!*got || !*want) return !*got && !*want;
    char *e1, *e2;
    double a = strtod(got, &e1), b = strtod(want, &e2);
    if (*e1 || *e2) return strcmp(got, want) == 0;
    return fabs(a - b) <= tol;
}

/* One cell of our table as the CSV printer writes it. */
static char *csv_cell(const kt_table *t, size_t row, size_t col)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print_cell(t, row, col, f, false);
    fclose(f);
    return buf;
}

/* Our CSV of t equals the oracle file: same columns (HTA's leading pandas
 * index column ignored), same rows in the same order, equal cells.        */
static void check_csv(const kt_table *t, const char *oracle_dir, const char *file)
{
    char rel[512];
    snprintf(rel, sizeof rel, "oracle/hta/%s/%s.csv", oracle_dir, file);
    fx_csv *want = fx_csv_read(rel);
    if (!want) return; /* HTA produced no such output for this trace */
    size_t cols = kt_table_ncols(t), rows = kt_table_nrows(t);
    size_t skip = want->ncols[0] > cols && (!strcmp(want->row[0][0], "index") || !strcmp(want->row[0][0], "level_0"));
    if (want->ncols[0] - skip != cols || want->nrows - 1 != rows) {
        kt_test_fail(__FILE__, __LINE__, "%s: %zu rows x %zu columns, HTA has %zu x %zu", file, rows, cols,
                     want->nrows - 1, want->ncols[0] - skip);
        fx_csv_free(want);
        return;
    }
    for (size_t c = 0; c < cols; c++) CHECK_STR(kt_table_col_name(t, c), want->row[0][c + skip]);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            char *got = csv_cell(t, r, c);
            const char *w = want->row[r + 1][c + skip];
            if (!cell_equal(got, w, tolerance(kt_table_col_name(t, c))))
                kt_test_fail(__FILE__, __LINE__, "%s row %zu %s: got '%s', HTA '%s'", file, r + 1,
                             kt_table_col_name(t, c), got, w);
            free(got);
        }
    fx_csv_free(want);
}

static char *csv_of(const kt_tables *ts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print_table_csv(kt_tables_get(ts, 0), f);
    fclose(f);
    return buf;
}

/* The pair's by-step tables print as kt_temporal's and kt_overlap's. */
static void check_pair_by_step(const kt_trace *t, kt_tables *pair[KT_PAIR_TABLES], const char *trace)
{
    kt_temporal_options to = { .size = sizeof to, .by_step = 1 };
    kt_overlap_options oo = { .size = sizeof oo, .by_step = 1 };
    kt_tables *te = NULL, *ov = NULL;
    CHECK_INT(kt_temporal(t, NULL, &to, &te), KT_OK);
    CHECK_INT(kt_overlap(t, NULL, &oo, &ov), KT_OK);
    char *a = csv_of(te), *b = csv_of(pair[KT_PAIR_TEMPORAL_BY_STEP]);
    char *c = csv_of(ov), *d = csv_of(pair[KT_PAIR_OVERLAP_BY_STEP]);
    if (strcmp(a, b) || strcmp(c, d)) kt_test_fail(__FILE__, __LINE__, "%s: the pair's by-step tables differ", trace);
    free(a);
    free(b);
    free(c);
    free(d);
    kt_tables_free(te);
    kt_tables_free(ov);
}

/* Every timeline output HTA produced for this trace, under --hta-compat. */
static void check_hta(const char *oracle_dir)
{
    const kt_trace *t = fx_shared_trace(fx_hta_trace(oracle_dir), true);
    if (!t) return;
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    check_csv(fx_table(ts, "temporal_breakdown"), oracle_dir, "temporal_breakdown");
    kt_tables_free(ts);
    CHECK_INT(kt_overlap(t, NULL, NULL, &ts), KT_OK);
    check_csv(fx_table(ts, "comm_comp_overlap"), oracle_dir, "comm_comp_overlap");
    kt_tables_free(ts);
    kt_tables *pair[KT_PAIR_TABLES]; /* the report's one build, folded */
    CHECK_INT(kt_temporal_overlap(t, NULL, pair), KT_OK);
    check_csv(fx_table(pair[KT_PAIR_TEMPORAL], "temporal_breakdown"), oracle_dir, "temporal_breakdown");
    check_csv(fx_table(pair[KT_PAIR_OVERLAP], "comm_comp_overlap"), oracle_dir, "comm_comp_overlap");
    check_pair_by_step(t, pair, oracle_dir);
    for (int i = 0; i < KT_PAIR_TABLES; i++) kt_tables_free(pair[i]);
    CHECK_INT(kt_idle(t, NULL, NULL, &ts), KT_OK);
    check_csv(fx_table(ts, "idle_time"), oracle_dir, "idle_time_breakdown");
    check_csv(fx_table(ts, "interval_stats"), oracle_dir, "idle_time_breakdown_interval_stats");
    kt_tables_free(ts);
}

#define HTA_ORACLE(dir)                                                       \
    TEST(oracle_hta_timeline_##dir)                                           \
    {                                                                         \
        NEED_SHARED();                                                        \
        check_hta(#dir);                                                      \
    }

HTA_ORACLE(amd_trace)
HTA_ORACLE(cp_alexnet)
HTA_ORACLE(cp_cuda_event_sync)
HTA_ORACLE(cp_cuda_event_sync_multi_stream)
HTA_ORACLE(cp_simple_add)
HTA_ORACLE(cupti_profiler)
HTA_ORACLE(df_index_resolver)
HTA_ORACLE(execution_trace)
HTA_ORACLE(mtia_trace_single_rank)
HTA_ORACLE(nccl_parser_config)
HTA_ORACLE(negative_queue_length_values_check)
HTA_ORACLE(ns_resolution_trace)
HTA_ORACLE(timeline_analysis)
HTA_ORACLE(trace_diff_control)
HTA_ORACLE(trace_diff_test)
HTA_ORACLE(trace_filter_2ranks)
HTA_ORACLE(triton_example)

/* ---- TraceLens gpu_timeline --------------------------------------------- */

static void check_tracelens(const char *trace, const char *oracle)
{
    const kt_trace *t = fx_shared_trace(trace, false);
    fx_csv *want = fx_csv_read(oracle);
    if (!t || !want) {
        kt_test_fail(__FILE__, __LINE__, "cannot load %s or read %s", trace, oracle);
        fx_csv_free(want);
        return;
    }
    kt_temporal_options o = { .size = sizeof o, .tracelens = 1 };
    kt_tables *ts = NULL;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "gpu_timeline");
    CHECK_INT(kt_table_nrows(tb), want->nrows - 1);
    double total_ms = kt_table_float(tb, 5, 1);
    for (size_t r = 1; r < want->nrows && r - 1 < kt_table_nrows(tb); r++) {
        CHECK_STR(kt_table_str(tb, r - 1, 0), fx_csv_get(want, r, "type"));
        CHECK_NEAR(kt_table_float(tb, r - 1, 1), atof(fx_csv_get(want, r, "time ms")), 1e-3); /* 1 µs */
        CHECK_NEAR(kt_table_float(tb, r - 1, 2), atof(fx_csv_get(want, r, "percent")), 100 * 1e-3 / total_ms + 1e-9);
    }
    kt_tables_free(ts);
    fx_csv_free(want);
}

#define TRACELENS_ORACLE(name, trace, dir)                                    \
    TEST(oracle_tracelens_gpu_timeline_##name)                                \
    {                                                                         \
        NEED_SHARED();                                                        \
        check_tracelens("traces/tracelens/" trace, "oracle/tracelens/" dir "/gpu_timeline.csv"); \
    }

TRACELENS_ORACLE(h100_falconsai, "h100/Falconsai_nsfw_image_detection__1016002.json.gz",
                 "h100/Falconsai_nsfw_image_detection__1016002")
TRACELENS_ORACLE(h100_qwen, "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "h100/Qwen_Qwen1.5-0.5B-Chat__1016005")
TRACELENS_ORACLE(h100_timesformer, "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
                 "h100/facebook_timesformer-base-finetuned-k400__1016002")
TRACELENS_ORACLE(h100_bert, "h100/gaunernst_bert-small-uncased__1016001.json.gz",
                 "h100/gaunernst_bert-small-uncased__1016001")
TRACELENS_ORACLE(h100_owlv2, "h100/google_owlv2-large-patch14-ensemble__1016001.json.gz",
                 "h100/google_owlv2-large-patch14-ensemble__1016001")
TRACELENS_ORACLE(mi210_gpu_only, "mi210/gpu_only_trace/gpu_only_trace.json.gz", "mi210/gpu_only_trace/gpu_only_trace")
TRACELENS_ORACLE(normalization, "perf_model/normalization/normalization_layer_test.json.gz",
                 "perf_model/normalization/normalization_layer_test")
TRACELENS_ORACLE(torch_compile_triton, "torch_compile_triton/trace.json.gz", "torch_compile_triton/trace")
