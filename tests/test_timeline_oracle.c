/* test_timeline_oracle.c — temporal, idle and overlap under --hta-compat
 * against HTA's own CSVs, and temporal --tracelens against TraceLens's
 * gpu_timeline.csv, on the real traces in ../shared.                      */
#include "../programs/cli.h"
#include "fixture.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* ---- a tiny CSV reader (the oracle files have no quoted fields) ---------- */

typedef struct csv {
    char *text;
    char **cell; /* row-major, header row first */
    size_t rows, cols;
} csv;

static void csv_free(csv *c)
{
    free(c->text);
    free(c->cell);
}

static bool csv_parse(char *text, csv *c)
{
    memset(c, 0, sizeof *c);
    c->text = text;
    size_t cap = 64;
    c->cell = malloc(cap * sizeof *c->cell);
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t n = 0;
        for (char *f = line;; n++) {
            if (c->rows * c->cols + n + 1 >= cap) c->cell = realloc(c->cell, (cap *= 2) * sizeof *c->cell);
            char *comma = strchr(f, ',');
            c->cell[(c->rows ? c->rows * c->cols : 0) + n] = f;
            if (!comma) break;
            *comma = '\0';
            f = comma + 1;
        }
        if (!c->rows) c->cols = n + 1;
        else if (n + 1 != c->cols) return false;
        c->rows++;
        line = nl ? nl + 1 : NULL;
    }
    return c->rows > 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

static char *render_csv(const kt_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print_table_csv(t, f);
    fclose(f);
    return buf;
}

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

/* Our CSV of t equals the oracle file: same columns (HTA's leading pandas
 * index column ignored), same rows in the same order, equal cells.        */
static void check_csv(const kt_table *t, const char *oracle_path, const char *what)
{
    char *want_text = read_file(oracle_path);
    if (!want_text) return; /* HTA produced no such output for this trace */
    csv got, want;
    CHECK(csv_parse(render_csv(t), &got));
    CHECK(csv_parse(want_text, &want));
    size_t skip = want.cols > got.cols && (!strcmp(want.cell[0], "index") || !strcmp(want.cell[0], "level_0"));
    if (want.cols - skip != got.cols || want.rows != got.rows) {
        kt_test_fail(__FILE__, __LINE__, "%s: %zux%zu cells, HTA has %zux%zu", what, got.rows, got.cols,
                     want.rows, want.cols - skip);
    } else {
        for (size_t r = 0; r < got.rows; r++)
            for (size_t c = 0; c < got.cols; c++) {
                const char *g = got.cell[r * got.cols + c], *w = want.cell[r * want.cols + c + skip];
                bool ok = r == 0 ? !strcmp(g, w) : cell_equal(g, w, tolerance(got.cell[c]));
                if (!ok)
                    kt_test_fail(__FILE__, __LINE__, "%s row %zu %s: got '%s', HTA '%s'", what, r,
                                 got.cell[c], g, w);
            }
    }
    csv_free(&got);
    csv_free(&want);
}

static void oracle_path(char *buf, size_t n, const char *dir, const char *file)
{
    snprintf(buf, n, "%s/%s/%s.csv", kt_test_shared_path("oracle/hta"), dir, file);
}

/* Every timeline output HTA produced for this trace, under --hta-compat. */
static void check_hta(const char *oracle_dir, const char *trace)
{
    const kt_trace *t = fx_shared_trace(trace, true);
    if (!t) return;
    char path[4096];
    kt_tables *ts;
    CHECK_INT(kt_temporal(t, NULL, NULL, &ts), KT_OK);
    oracle_path(path, sizeof path, oracle_dir, "temporal_breakdown");
    check_csv(kt_tables_find(ts, "temporal_breakdown"), path, "temporal_breakdown");
    kt_tables_free(ts);
    CHECK_INT(kt_overlap(t, NULL, NULL, &ts), KT_OK);
    oracle_path(path, sizeof path, oracle_dir, "comm_comp_overlap");
    check_csv(kt_tables_find(ts, "comm_comp_overlap"), path, "comm_comp_overlap");
    kt_tables_free(ts);
    CHECK_INT(kt_idle(t, NULL, NULL, &ts), KT_OK);
    oracle_path(path, sizeof path, oracle_dir, "idle_time_breakdown");
    check_csv(kt_tables_find(ts, "idle_time"), path, "idle_time_breakdown");
    oracle_path(path, sizeof path, oracle_dir, "idle_time_breakdown_interval_stats");
    check_csv(kt_tables_find(ts, "interval_stats"), path, "idle_time_breakdown_interval_stats");
    kt_tables_free(ts);
}

#define HTA_ORACLE(dir, trace)                                                \
    TEST(oracle_hta_timeline_##dir)                                           \
    {                                                                         \
        NEED_SHARED();                                                        \
        check_hta(#dir, "traces/hta/" trace);                                 \
    }

HTA_ORACLE(amd_trace, "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")
HTA_ORACLE(cp_alexnet, "critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz")
HTA_ORACLE(cp_cuda_event_sync, "critical_path/cuda_event_sync/event_sync_trace.json.gz")
HTA_ORACLE(cp_cuda_event_sync_multi_stream, "critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz")
HTA_ORACLE(cp_simple_add, "critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz")
HTA_ORACLE(cupti_profiler, "cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz")
HTA_ORACLE(df_index_resolver, "df_index_resolver/df_index_resolver.json.gz")
HTA_ORACLE(execution_trace, "execution_trace/benchmark_simple_add_trace.json.gz")
HTA_ORACLE(mtia_trace_single_rank, "mtia_trace_single_rank/mtia_rank_0.json.gz")
HTA_ORACLE(nccl_parser_config, "nccl_parser_config/nccl_data.json.gz")
HTA_ORACLE(negative_queue_length_values_check, "negative_queue_length_values_check/rank0.json.gz")
HTA_ORACLE(ns_resolution_trace, "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
HTA_ORACLE(timeline_analysis, "timeline_analysis/sampled_rank-0.json.gz")
HTA_ORACLE(trace_diff_control, "trace_diff/control/control.json.gz")
HTA_ORACLE(trace_diff_test, "trace_diff/test/test.json.gz")
HTA_ORACLE(trace_filter_2ranks, "trace_filter")
HTA_ORACLE(triton_example, "triton_example/triton_example.json.gz")

/* ---- TraceLens gpu_timeline --------------------------------------------- */

static void check_tracelens(const char *trace, const char *oracle)
{
    const kt_trace *t = fx_shared_trace(trace, false);
    char *text = read_file(kt_test_shared_path(oracle));
    csv want;
    if (!t || !text || !csv_parse(text, &want)) {
        kt_test_fail(__FILE__, __LINE__, "cannot load %s or read %s", trace, oracle);
        free(text);
        return;
    }
    kt_temporal_options o = { .tracelens = 1 };
    kt_tables *ts = NULL;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = kt_tables_find(ts, "gpu_timeline");
    CHECK_INT(kt_table_nrows(tb), want.rows - 1);
    double total_ms = kt_table_float(tb, 5, 1);
    for (size_t r = 1; r < want.rows && r - 1 < kt_table_nrows(tb); r++) {
        CHECK_STR(kt_table_str(tb, r - 1, 0), want.cell[r * 3]);
        CHECK_NEAR(kt_table_float(tb, r - 1, 1), atof(want.cell[r * 3 + 1]), 1e-3); /* 1 µs */
        CHECK_NEAR(kt_table_float(tb, r - 1, 2), atof(want.cell[r * 3 + 2]), 100 * 1e-3 / total_ms + 1e-9);
    }
    kt_tables_free(ts);
    csv_free(&want);
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
