/* test_perf.c — `kineta perf` on hand-written traces: roofline numbers
 * checked by hand for one GEMM and one attention op (built-in H100 spec and
 * an arch JSON), headroom ranking, traces without shapes, hostile shapes,
 * bad --device-spec text, and the small JSON reader / Python reprs.      */
#include "analysis/perf/device_spec.h"
#include "analysis/perf/op_args.h"
#include "analysis/perf/perf.h"
#include "fixture.h"
#include "load/load_internal.h"
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One cpu_op (args given) launching one kernel named kernel (NULL:
 * kernel_<id>) of dur_us at kernel_ts_us.                                */
static void op_kernel_events(char *out, size_t cap, int id, const char *op, const char *args, double ts_us,
                             double kernel_dur_us, const char *kernel)
{
    char kname[32];
    snprintf(kname, sizeof kname, "kernel_%d", id);
    snprintf(out, cap,
             "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, "
             "\"dur\": 50, \"args\": {\"External id\": %d%s%s}},\n"
             "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
             "\"ts\": %.3f, \"dur\": 5, \"args\": {\"correlation\": %d, \"External id\": %d}},\n"
             "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
             "\"dur\": %.3f, \"args\": {\"correlation\": %d, \"stream\": 7, \"device\": 0}}",
             op, ts_us, id, args[0] ? ", " : "", args, ts_us + 10, 100 + id, id, kernel ? kernel : kname, ts_us + 20,
             kernel_dur_us, 100 + id);
}

static void op_events(char *out, size_t cap, int id, const char *op, const char *args, double ts_us,
                      double kernel_dur_us)
{
    op_kernel_events(out, cap, id, op, args, ts_us, kernel_dur_us, NULL);
}

static const char *const gemm_args =
    "\"Input Dims\": [[1024], [1024, 1024], [1024, 1024], [], []], "
    "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], "
    "\"Input Strides\": [[1], [1024, 1], [1, 1024], [], []], \"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]";
static const char *const sdpa_args =
    "\"Input Dims\": [[2, 8, 1024, 64], [2, 8, 1024, 64], [2, 8, 1024, 64], [], [], [], []], "
    "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\", \"Scalar\", "
    "\"Scalar\"], \"Input Strides\": [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [], [], [], []], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]";

/* Writes a trace of the given events (deviceProperties naming gpu) to a
 * temporary file and loads it; *path gets the file to remove.             */
static kt_trace *load_events(const char *gpu, const char *events, char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/kineta-test-perf-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"%s\", \"numSms\": 132}],\n"
               "\"traceEvents\": [\n%s\n]}\n", gpu, events);
    fclose(f);
    return fx_load_path(path, false);
}

static kt_tables *run_perf(const kt_trace *t, const char *spec, int tracelens)
{
    kt_perf_options o = kt_perf_defaults();
    o.device_spec = spec;
    o.tracelens = tracelens;
    kt_tables *ts = NULL;
    CHECK_INT(kt_perf(t, NULL, &o, &ts, NULL), KT_OK);
    return ts;
}

/* The GEMM of gemm_args found and modelled: 2·1024³ + 1024² FLOPs. */
static void check_gemm_modelled(const kt_trace *t)
{
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *g = fx_table(ts, "GEMM");
    if (g) CHECK_NEAR(fx_num(g, 0, "gflops"), 2.148532224, 1e-12);
    kt_tables_free(ts);
}

static kt_trace *gemm_and_sdpa(const char *gpu, char *path, size_t cap)
{
    char a[2048], b[2048], all[4200];
    op_events(a, sizeof a, 1, "aten::addmm", gemm_args, 1000, 10);
    op_events(b, sizeof b, 2, "aten::_scaled_dot_product_flash_attention", sdpa_args, 2000, 20);
    snprintf(all, sizeof all, "%s,\n%s", a, b);
    return load_events(gpu, all, path, cap);
}

/* GEMM 1024³ bf16 + bias in 10 µs on an H100 SXM (989.5 TFLOP/s bf16, 3.35 TB/s):
 * FLOPs 2·1024³ + 1024² = 2 148 532 224, bytes 3·1024²·2 + 1024·2 = 6 293 504;
 * compute 2.148532224e9 / 989.5e12 s = 2.171331 µs > memory 6293504 / 3.35e12 s =
 * 1.878658 µs: compute bound, 21.71 % of roofline, 214.853 TFLOP/s achieved.
 * Causal flash attention B 2, H 8, N 1024, d 64 in 20 µs: FLOPs
 * 16 · 4·1024²·64 / 2 = 2 147 483 648, bytes 4 · 2·8·1024·64 · 2 = 8 388 608;
 * memory 2.504062 µs > compute 2.170272 µs: memory bound, 12.52 %.         */
TEST(perf_roofline_by_hand_h100)
{
    char path[64];
    kt_trace *t = gemm_and_sdpa("NVIDIA H100 80GB HBM3", path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *g = fx_table(ts, "GEMM"), *s = fx_table(ts, "SDPA_fwd"), *h = fx_table(ts, "headroom");
    if (g && s && h) {
        CHECK_NEAR(fx_num(g, 0, "gflops"), 2.148532224, 1e-12);
        CHECK_NEAR(fx_num(g, 0, "data_moved_mib"), 6293504.0 / 1048576, 1e-12);
        CHECK_NEAR(fx_num(g, 0, "roofline_time_us"), 2.148532224e9 / 989.5e6, 1e-9);
        CHECK_NEAR(fx_num(g, 0, "pct_roofline"), 2.148532224e9 / 989.5e6 / 10 * 100, 1e-9);
        CHECK_NEAR(fx_num(g, 0, "tflops_per_s_mean"), 214.8532224, 1e-9);
        CHECK_STR(kt_table_str(g, 0, (size_t)kt_table_col_index(g, "roofline_bound")), "COMPUTE_BOUND");
        CHECK_NEAR(fx_num(s, 0, "gflops"), 2.147483648, 1e-12);
        CHECK_NEAR(fx_num(s, 0, "roofline_time_us"), 8388608 / 3.35e6, 1e-9);
        CHECK_STR(kt_table_str(s, 0, (size_t)kt_table_col_index(s, "roofline_bound")), "MEMORY_BOUND");
        CHECK_NEAR(fx_num(s, 0, "pct_roofline"), 8388608 / 3.35e6 / 20 * 100, 1e-9);
        /* headroom: attention loses 20 − 2.504 µs, the GEMM 10 − 2.171 µs */
        CHECK_INT(kt_table_nrows(h), 2);
        CHECK_STR(kt_table_str(h, 0, 1), "aten::_scaled_dot_product_flash_attention");
        CHECK_NEAR(fx_num(h, 0, "lost_us"), 20 - 8388608 / 3.35e6, 1e-9);
        CHECK_NEAR(fx_num(h, 1, "lost_us"), 10 - 2.148532224e9 / 989.5e6, 1e-9);
        CHECK_STR(kt_table_str(h, 1, (size_t)kt_table_col_index(h, "bound")), "compute");
        CHECK_NEAR(fx_num(h, 0, "pct_of_lost") + fx_num(h, 1, "pct_of_lost"), 100, 1e-9);
    }
    const kt_table *f = fx_table(ts, "perf_by_family");
    if (f) CHECK_INT(kt_table_nrows(f), 2);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* kt_perf_overview: kt_perf's tables in its order, each the same, but the
 * four of ops by shapes (headroom among them: H100 has a spec).          */
TEST(perf_overview_is_perf_without_shape_tables)
{
    char path[64];
    kt_trace *t = gemm_and_sdpa("NVIDIA H100 80GB HBM3", path, sizeof path);
    if (!t) return;
    static const char *const left_out[] = { "ops_unique_args", "unified_perf_summary", "short_kernels_summary",
                                              "kernel_summary", "headroom" };
    for (int tracelens = 0; tracelens < 2; tracelens++) {
        kt_perf_options o = kt_perf_defaults();
        o.tracelens = tracelens;
        kt_tables *all = run_perf(t, NULL, tracelens), *some = NULL;
        CHECK_INT(kt_perf_overview(t, NULL, &o, &some), KT_OK);
        size_t k = 0, missing = 0;
        for (size_t i = 0; all && some && i < kt_tables_count(all); i++) {
            const kt_table *a = kt_tables_get(all, i);
            bool skipped = false;
            for (size_t j = 0; j < sizeof left_out / sizeof *left_out; j++)
                skipped |= !strcmp(kt_table_name(a), left_out[j]);
            if (skipped) {
                missing++;
                continue;
            }
            CHECK(k < kt_tables_count(some));
            if (k < kt_tables_count(some)) fx_check_same_table(kt_tables_get(some, k++), a);
        }
        CHECK_INT(missing, tracelens ? 4 : 5); /* --tracelens: no headroom without --device-spec */
        CHECK_INT(k, some ? kt_tables_count(some) : 0);
        kt_tables_free(all);
        kt_tables_free(some);
    }
    kt_trace_free(t);
    unlink(path);
}

/* The same ops against TraceLens's MI300X arch JSON (achievable rates):
 * GEMM compute 2.148532224e9 / 708e12 s = 3.0346 µs; attention compute
 * 2.147483648e9 / 708e12 s = 3.0332 µs now beats memory 8388608 / 5.3e12 s
 * = 1.5828 µs: compute bound on this device.                              */
TEST(perf_roofline_device_spec_file)
{
    static const char *const mi300x =
        "{\"name\": \"MI300X\", \"mem_bw_gbps\": 5300, \"memory_gb\": 192, \"max_achievable_tflops\": "
        "{\"matrix_fp16\": 654, \"matrix_bf16\": 708, \"matrix_fp32\": 163, \"matrix_fp64\": 81, "
        "\"matrix_fp8\": 1273, \"matrix_int8\": 2600, \"vector_fp16\": 163, \"vector_bf16\": 163, "
        "\"vector_fp32\": 81, \"vector_fp64\": 40}}";
    char path[64];
    kt_trace *t = gemm_and_sdpa("Some GPU we do not know", path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, mi300x, 1);
    const kt_table *g = fx_table(ts, "GEMM"), *s = fx_table(ts, "SDPA_fwd");
    if (g && s) {
        CHECK_NEAR(fx_num(g, 0, "Roofline Time (µs)"), 2.148532224e9 / 708e6, 1e-9);
        CHECK_NEAR(fx_num(s, 0, "Roofline Time (µs)"), 2.147483648e9 / 708e6, 1e-9);
        CHECK_NEAR(fx_num(s, 0, "Pct Roofline"), 2.147483648e9 / 708e6 / 20 * 100, 1e-9);
        CHECK_STR(kt_table_str(s, 0, (size_t)kt_table_col_index(s, "Roofline Bound")), "COMPUTE_BOUND");
    }
    kt_tables_free(ts);
    /* unknown GPU, no file: no roofline columns, no headroom, and a note why */
    ts = run_perf(t, NULL, 0);
    g = fx_table(ts, "GEMM");
    if (g) CHECK(kt_table_col_index(g, "roofline_time_us") < 0);
    CHECK(!kt_tables_find(ts, "headroom"));
    const kt_table *n = fx_table(ts, "notes");
    if (n) CHECK(strstr(kt_table_str(n, 0, 1), "--device-spec") != NULL);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* Every built-in GPU names its source, has a bandwidth and the precisions
 * the models ask for (bf16/fp16 matrix and vector, fp32), and its
 * deviceProperties name finds it.                                        */
TEST(perf_device_table_is_complete)
{
    static const char *const names[] = { "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe",
                                          "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200",
                                          "NVIDIA B200", "AMD Instinct MI250X", "AMD Instinct MI300X",
                                          "AMD Instinct MI325X" };
    size_t n;
    const kt_device_spec *t = kt_device_specs(&n);
    CHECK_INT(n, sizeof names / sizeof names[0]);
    for (size_t i = 0; i < n; i++) {
        CHECK(t[i].source && strlen(t[i].source) > 10);
        CHECK(t[i].mem_bw_gbps > 1000);
        CHECK(t[i].tflops[KT_SPEC_MATRIX_BF16] > 100 && t[i].tflops[KT_SPEC_MATRIX_FP16] > 100);
        CHECK(t[i].tflops[KT_SPEC_VECTOR_BF16] > 0 && t[i].tflops[KT_SPEC_VECTOR_FP32] > 0);
        kt_device_spec s;
        CHECK(kt_device_spec_for(names[i], &s) && !strcmp(s.name, t[i].name));
    }
}

TEST(perf_device_spec_rejects_bad_files)
{
    kt_device_spec s;
    char err[128];
    CHECK(!kt_device_spec_parse("{", 1, &s, err, sizeof err));
    CHECK(!kt_device_spec_parse("{\"max_achievable_tflops\": {}}", 29, &s, err, sizeof err));
    CHECK(strstr(err, "mem_bw_gbps") != NULL);
    const char *neg = "{\"mem_bw_gbps\": 1, \"max_achievable_tflops\": {\"matrix_bf16\": -1}}";
    CHECK(!kt_device_spec_parse(neg, strlen(neg), &s, err, sizeof err));
    CHECK(kt_device_spec_for("NVIDIA H100 PCIe", &s) && s.mem_bw_gbps == 2000);
    CHECK(kt_device_spec_for("AMD Instinct MI300X", &s) && s.tflops[KT_SPEC_MATRIX_BF16] == 1307.4);
    CHECK(!kt_device_spec_for("NVIDIA GeForce GTX 1080", &s));
    /* through the API: KT_EUSAGE and the reason */
    char path[64];
    kt_trace *t = gemm_and_sdpa("NVIDIA H100 80GB HBM3", path, sizeof path);
    if (!t) return;
    kt_perf_options o = kt_perf_defaults();
    o.device_spec = "[1, 2]";
    kt_tables *ts = NULL;
    kt_diags *why;
    CHECK_INT(kt_perf(t, NULL, &o, &ts, &why), KT_EUSAGE);
    CHECK(ts == NULL && fx_why(why)[0]);
    kt_trace_free(t);
    unlink(path);
}

/* Shapes are read only from args that can hold them (kineta skips the
 * parse when no key can be a shape list): keys written with JSON escapes
 * are still found.                                                      */
TEST(perf_shapes_under_escaped_keys)
{
    static const char *const escaped =
        "\"\\u0049nput Dims\": [[1024], [1024, 1024], [1024, 1024], [], []], "
        "\"\\u0049nput type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], "
        "\"\\u0049nput Strides\": [[1], [1024, 1], [1, 1024], [], []], "
        "\"Concrete \\u0049nputs\": [\"\", \"\", \"\", \"1\", \"1\"]";
    char a[2048], path[64];
    op_events(a, sizeof a, 1, "aten::addmm", escaped, 1000, 10);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", a, path, sizeof path);
    if (t) check_gemm_modelled(t);
    kt_trace_free(t);
    unlink(path);
}

/* The loader notes whether any args key can name a shape list (model.h,
 * shape_args); perf reads args text back from the file only then.  A
 * value saying "Input Dims" is no such key; the key is found in the last
 * of many loader ranges too.                                              */
TEST(perf_args_read_back_only_when_a_key_names_shapes)
{
    char a[2048], b[2048], all[4 * 2048 + 16], path[64];
    op_events(a, sizeof a, 1, "aten::addmm", "\"note\": \"Input Dims\"", 1000, 10);
    op_events(b, sizeof b, 2, "aten::addmm", gemm_args, 2000, 10);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", a, path, sizeof path);
    if (t) CHECK(!t->ranks[0]->shape_args);
    kt_trace_free(t);
    unlink(path);
    snprintf(all, sizeof all, "%s,\n%s,\n%s,\n%s", a, a, a, b);
    kt_load_options two = { .size = sizeof two, .jobs = 2 };
    const char *paths[] = { path };
    for (uint64_t range = 256; range <= 4096; range *= 4) {
        kt_diags *fail = NULL;
        t = load_events("NVIDIA H100 80GB HBM3", all, path, sizeof path);
        kt_trace *ranged = NULL;
        CHECK_INT(kt_load_ranges(paths, 1, &two, range, &ranged, &fail), KT_OK);
        if (t && ranged) {
            CHECK(t->ranks[0]->shape_args && ranged->ranks[0]->shape_args);
            check_gemm_modelled(ranged);
        }
        kt_trace_free(t);
        kt_trace_free(ranged);
        kt_diags_free(fail);
        unlink(path);
    }
}

/* No record_shapes: timing columns only, has_perf_model False, the op
 * listed, one note saying how to record shapes.                          */
TEST(perf_without_shapes)
{
    char a[2048], path[64];
    op_events(a, sizeof a, 1, "aten::addmm", "", 1000, 10);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", a, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 1);
    CHECK(!kt_tables_find(ts, "GEMM"));
    const kt_table *u = fx_table(ts, "unified_perf_summary"), *m = fx_table(ts, "unmodelled_ops"),
                   *n = fx_table(ts, "notes"), *o = fx_table(ts, "ops_summary");
    if (u && m && n && o) {
        CHECK_INT(kt_table_nrows(u), 1);
        CHECK_STR(kt_table_str(u, 0, (size_t)kt_table_col_index(u, "has_perf_model")), "False");
        CHECK_NEAR(fx_num(u, 0, "Kernel Time (µs)_sum"), 10, 1e-9);
        CHECK(kt_table_is_null(u, 0, (size_t)kt_table_col_index(u, "GFLOPS")));
        CHECK_INT(kt_table_nrows(m), 1);
        CHECK(strstr(kt_table_str(m, 0, 1), "record_shapes") != NULL);
        long warn = fx_row(n, "level", "warning", -1);
        CHECK(warn >= 0 && strstr(kt_table_str(n, (size_t)warn, 1), "record_shapes=True") != NULL);
        CHECK_NEAR(fx_num(o, 0, "total_direct_kernel_time_sum"), 10, 1e-9);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* An op's category depends on its first kernel when its name is in no
 * list: the same op name launching an ATen elementwise kernel and an ATen
 * reduce kernel has both categories in its ops_summary row (kineta
 * remembers categories per name and kernel, not per name).               */
TEST(perf_category_by_name_and_first_kernel)
{
    char a[2048], b[2048], c[2048], all[6400], path[64];
    op_kernel_events(a, sizeof a, 1, "aten::index", "", 1000, 10, "void at::native::elementwise_kernel<128, 2>()");
    op_kernel_events(b, sizeof b, 2, "aten::index", "", 2000, 20, "void at::native::reduce_kernel<512, 1>()");
    op_kernel_events(c, sizeof c, 3, "aten::index", "", 3000, 30, "void at::native::elementwise_kernel<128, 2>()");
    snprintf(all, sizeof all, "%s,\n%s,\n%s", a, b, c);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", all, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 1);
    const kt_table *o = fx_table(ts, "ops_summary");
    if (o) {
        CHECK_INT(kt_table_nrows(o), 1);
        CHECK_STR(kt_table_str(o, 0, (size_t)kt_table_col_index(o, "Categories")), "['elementwise', 'reduce']");
        CHECK_NEAR(fx_num(o, 0, "total_direct_kernel_time_sum"), 60, 1e-9);
        CHECK_NEAR(fx_num(o, 0, "Count"), 3, 1e-9);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* Shapes a model cannot use: each op listed with its reason, nothing
 * overflows, the rest of the report is intact.                           */
TEST(perf_bad_shapes)
{
    static const char *const bad[] = {
        "\"Input Dims\": [], \"Input type\": []",                                          /* empty */
        "\"Input Dims\": [[-4, 8], [8, 2]], \"Input type\": [\"float\", \"float\"]",       /* negative */
        "\"Input Dims\": [[4, 8], [5, 8, 2]], \"Input type\": [\"float\", \"float\"]",     /* ranks differ */
        "\"Input Dims\": [[4, 8], [9, 2]], \"Input type\": [\"float\", \"float\"]",        /* K differs */
        ("\"Input Dims\": [[1099511627776, 1099511627776], [1099511627776, 1099511627776]], "
         "\"Input type\": [\"float\", \"float\"]"),                                        /* 2^40 each */
        "\"Input Dims\": [[9223372036854775807, 2], [2, 2]], \"Input type\": [\"float\", \"float\"]",
        "\"Input Dims\": [[4, 8], [8, 2]], \"Input type\": [\"c10::Weird\", \"float\"]",   /* unknown dtype */
        "\"Input Dims\": [[[4], [8]], [8, 2]], \"Input type\": [\"float\", \"float\"]",    /* nested */
    };
    size_t n = sizeof bad / sizeof bad[0];
    char *all = calloc(n, 2048), path[64];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char one[2048];
        op_events(one, sizeof one, (int)i + 1, "aten::mm", bad[i], 1000.0 + 100.0 * (double)i, 5);
        len += (size_t)sprintf(all + len, "%s%s", i ? ",\n" : "", one);
    }
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", all, path, sizeof path);
    free(all);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *m = fx_table(ts, "unmodelled_ops"), *g = fx_table(ts, "GEMM"), *o = fx_table(ts, "ops_summary");
    if (m && g && o) {
        /* one row per op and reason: empty, negative, ranks differing, 2^63
         * and nested lists are not matrices; K differs; 2^40 · 2^40 · 2^40
         * is out of range */
        CHECK_INT(kt_table_nrows(m), 3);
        long sane = fx_row(m, "reason", "operand shapes are not matrices of sane size", -1);
        CHECK(sane >= 0 && fx_num(m, (size_t)sane, "calls") == 5);
        CHECK(fx_row(m, "reason", "FLOPs out of range", -1) >= 0);
        CHECK(fx_row(m, "reason", "operand shapes do not match (inner or batch dimensions differ)", -1) >= 0);
        /* the unknown dtype is modelled: FLOPs known, bytes unknown */
        CHECK_INT(kt_table_nrows(g), 1);
        CHECK_NEAR(fx_num(g, 0, "gflops"), 2 * 4 * 8 * 2 / 1e9, 1e-15);
        CHECK(kt_table_is_null(g, 0, (size_t)kt_table_col_index(g, "data_moved_mib")));
        CHECK_INT(fx_num(o, 0, "calls"), 8);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

TEST(perf_python_reprs)
{
    kt_op_args a = { 0 };
    const char *text = "{\"Input Dims\": [[512], [141, 512], [], []], \"Input type\": [\"c10::BFloat16\", "
                       "\"it's\", \"\", \"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"0.\", \"True\"]}";
    CHECK(kt_op_args_parse(&a, text, strlen(text)));
    char *l = kt_py_repr(&a.tree, a.dims, false), *tu = kt_py_repr(&a.tree, a.dims, true),
         *ty = kt_py_repr(&a.tree, a.types, true), *none = kt_py_repr(&a.tree, a.strides, true);
    CHECK_STR(l, "[[512], [141, 512], [], []]");
    CHECK_STR(tu, "((512,), (141, 512), (), ())");
    CHECK_STR(ty, "('c10::BFloat16', \"it's\", '', 'Scalar')");
    CHECK_STR(none, "None");
    CHECK_INT(a.n, 4);
    CHECK_INT(a.in[1].ndims, 2);
    CHECK_INT(a.in[1].dims[1], 512);
    CHECK_STR(a.in[3].concrete, "True");
    free(l);
    free(tu);
    free(ty);
    free(none);
    char f[40];
    kt_py_float(0.0, f, sizeof f);
    CHECK_STR(f, "0.0");
    kt_py_float(1e-5, f, sizeof f);
    CHECK_STR(f, "1e-05");
    kt_py_float(0.1, f, sizeof f);
    CHECK_STR(f, "0.1");
    CHECK(!kt_op_args_parse(&a, "{\"a\": [1, 2", 11));
    char deep[160]; /* nested past the reader's depth limit of 64 */
    memset(deep, '[', 70);
    memset(deep + 70, ']', 70);
    CHECK(!kt_op_args_parse(&a, deep, 140));
    kt_op_args_free(&a);
}

/* The bytes an op's class is found by: calls that differ only in their
 * integer ids share them; a list-valued id, a changed shape or a member
 * order does not; escapes and odd text give none (each call on its own). */
/* Python's repr of strings: escapes put between runs of plain bytes. */
TEST(perf_python_string_reprs_escape)
{
    const char *in[] = { "a\\b'c\"d\ne", "x\ny\\", "it's", "plain", "" };
    const char *want[] = { "'a\\\\b\\'c\"d\\ne'", "'x\\ny\\\\'", "\"it's\"", "'plain'", "''" };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char *r = kt_py_str_repr(in[i], strlen(in[i]));
        CHECK_STR(r, want[i]);
        free(r);
    }
}

static bool shape_bytes_of(const char *text, char *out, size_t *n)
{
    return kt_op_args_shape_bytes(text, strlen(text), out, n);
}

TEST(perf_shape_bytes_ignore_only_integer_ids)
{
    char a[256], b[256];
    size_t na = 0, nb = 0;
    CHECK(shape_bytes_of("{\"External id\": 7, \"Input Dims\": [[2, 3]], \"Ev Idx\": 12}", a, &na));
    CHECK(shape_bytes_of(" {\"External id\":-31,\n\"Input Dims\": [[2, 3]] ,\"Ev Idx\": 9 } ", b, &nb));
    CHECK(na == nb && !memcmp(a, b, na));
    CHECK(shape_bytes_of("{\"External id\": 7, \"Input Dims\": [[2, 4]], \"Ev Idx\": 12}", b, &nb));
    CHECK(na != nb || memcmp(a, b, na));
    CHECK(shape_bytes_of("{\"External id\": \"7\", \"Input Dims\": [[2, 3]]}", b, &nb));
    CHECK(na != nb || memcmp(a, b, na));
    CHECK(shape_bytes_of("{\"Input Dims\": 3}", a, &na) && shape_bytes_of("{\"Input Dims\": 4}", b, &nb));
    CHECK(na == nb && memcmp(a, b, na));
    CHECK(shape_bytes_of("{}", a, &na) && na == 0);
    static const char *const odd[] = { "{\"\\u0049nput Dims\": [[1]]}", "{\"a\": 1,}", "{\"a\": 1} x", "[1]",
                                       "{\"a\" 1}", "{\"a\": [1, 2}", "{\"a\": }", "{\"a\": \"x}" };
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) CHECK(!shape_bytes_of(odd[i], a, &na));
}

/* Triton kernels without an inductor cache: the fused ops in the name
 * (add, mul; views free) times the largest argument's elements, every
 * tensor argument moved once; TraceLens mode leaves them unmodelled.     */
TEST(perf_triton_estimate)
{
    char a[2048], path[64];
    op_events(a, sizeof a, 1, "triton_poi_fused__unsafe_view_add_mul_0",
              "\"Input Dims\": [[4, 8], [4, 8], [4, 8], []], \"Input type\": [\"c10::BFloat16\", "
              "\"c10::BFloat16\", \"float\", \"Scalar\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"32\"]",
              1000, 2);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", a, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *tr = fx_table(ts, "Triton");
    if (tr) {
        CHECK_NEAR(fx_num(tr, 0, "fused_ops"), 2, 0);
        CHECK_NEAR(fx_num(tr, 0, "elements"), 32, 0);
        CHECK_NEAR(fx_num(tr, 0, "gflops"), 64e-9, 1e-18);
        CHECK_NEAR(fx_num(tr, 0, "data_moved_mib"), (32 * 2 + 32 * 2 + 32 * 4) / 1048576.0, 1e-15);
    }
    kt_tables_free(ts);
    ts = run_perf(t, NULL, 1);
    CHECK(!kt_tables_find(ts, "Triton"));
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* aten::layer_norm around aten::native_layer_norm: both get their sheet
 * rows (as TraceLens), but the FLOPs per family and headroom count the
 * outer op only — the same kernel is not lost twice.                      */
TEST(perf_nested_models_count_once)
{
    static const char *const ln = "\"Input Dims\": [[4, 1024], [], [1024], [1024], []], \"Input type\": "
                                  "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\"]";
    char inner[2048], all[4096], path[64];
    op_events(inner, sizeof inner, 1, "aten::native_layer_norm", ln, 1001, 8);
    snprintf(all, sizeof all,
             "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::layer_norm\", \"pid\": 1, \"tid\": 1, "
             "\"ts\": 1000, \"dur\": 60, \"args\": {\"External id\": 9, %s}},\n%s",
             ln, inner);
    kt_trace *t = load_events("NVIDIA H100 80GB HBM3", all, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *n = fx_table(ts, "Normalization"), *f = fx_table(ts, "perf_by_family"),
                   *h = fx_table(ts, "headroom");
    if (n && f && h) {
        CHECK_INT(kt_table_nrows(n), 2);
        CHECK_INT(fx_num(f, 0, "calls"), 1);
        /* 5 · 4096 + 6 · 1024 FLOPs */
        CHECK_NEAR(fx_num(f, 0, "gflops"), (5 * 4096 + 6 * 1024) / 1e9, 1e-15);
        CHECK_INT(kt_table_nrows(h), 1);
        CHECK_STR(kt_table_str(h, 0, 1), "aten::layer_norm");
        CHECK_NEAR(fx_num(h, 0, "kernel_time_us"), 8, 1e-9);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* Every shared trace (AMD, Triton, MTIA, CUPTI-only, multi-rank, legacy
 * layouts, with and without shapes): perf succeeds, every launcher call is
 * in ops_summary once, and the category percentages add up to 100.      */
TEST(perf_on_every_shared_trace)
{
    NEED_SHARED();
    size_t n;
    char **files = fx_shared_trace_files(&n);
    size_t done = 0;
    kt_load_options two = { .size = sizeof two, .jobs = 2 };
    for (size_t i = 0; i < n; i++) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        const char *path[] = { files[i] };
        kt_status ls = kt_load(path, 1, &two, &t, &fail); /* not every file there is a trace */
        kt_diags_free(fail);
        if (ls != KT_OK) continue;
        done++;
        kt_tables *ts = NULL;
        CHECK_INT(kt_perf(t, NULL, NULL, &ts, NULL), KT_OK);
        const kt_table *o = ts ? kt_tables_find(ts, "ops_summary") : NULL,
                       *c = ts ? kt_tables_find(ts, "ops_summary_by_category") : NULL;
        CHECK(o && c);
        double calls = 0, by_cat = 0, pct = 0;
        for (size_t r = 0; o && r < kt_table_nrows(o); r++) calls += fx_num(o, r, "calls");
        for (size_t r = 0; c && r < kt_table_nrows(c); r++) {
            by_cat += fx_num(c, r, "calls");
            pct += fx_num(c, r, "pct");
        }
        CHECK_NEAR(calls, by_cat, 0);
        if (c && kt_table_nrows(c)) CHECK_NEAR(pct, 100, 0.01 * (double)kt_table_nrows(c) + 1e-9);
        kt_tables_free(ts);
        kt_trace_free(t);
    }
    CHECK(done >= 28);
    fx_free_paths(files, n);
}

/* A vLLM-like B200 trace: an addmm that a model covers, vllm::moe_forward
 * and a multimem all-reduce that none does.  Every run says how much it
 * models (10 of 80 µs) and names the rest, largest first.               */
TEST(perf_coverage_names_what_it_does_not_model)
{
    char a[2048], b[2048], c[2048], all[6400], path[64];
    op_events(a, sizeof a, 1, "aten::addmm", gemm_args, 1000, 10);
    op_kernel_events(b, sizeof b, 2, "vllm::moe_forward", "", 2000, 52, "fused_moe_kernel");
    op_kernel_events(c, sizeof c, 3, "symm_mem::multimem_all_reduce_", "", 3000, 18, "multimem_all_reduce_kernel");
    snprintf(all, sizeof all, "%s,\n%s,\n%s", a, b, c);
    kt_trace *t = load_events("NVIDIA B200", all, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *cv = fx_table(ts, "coverage"), *u = fx_table(ts, "unmodelled");
    if (cv && u) {
        CHECK_NEAR(fx_num(cv, 0, "gpu_time_us"), 80, 1e-9);
        CHECK_NEAR(fx_num(cv, 0, "modelled_us"), 10, 1e-9);
        CHECK_NEAR(fx_num(cv, 0, "pct_modelled"), 12.5, 1e-9);
        CHECK_STR(kt_table_str(cv, 0, (size_t)kt_table_col_index(cv, "device")), "NVIDIA B200");
        CHECK_STR(kt_table_str(cv, 0, (size_t)kt_table_col_index(cv, "peaks")), "datasheet");
        CHECK(kt_table_nnotes(cv) == 2 && strstr(kt_table_note(cv, 1), "achievable") != NULL);
        CHECK_INT(kt_table_nrows(u), 2);
        CHECK_STR(kt_table_str(u, 0, 0), "vllm::moe_forward");
        CHECK_NEAR(fx_num(u, 0, "gpu_time_us"), 52, 1e-9);
        CHECK_NEAR(fx_num(u, 0, "pct_of_gpu_time"), 65, 1e-9);
        CHECK_STR(kt_table_str(u, 1, 0), "symm_mem::multimem_all_reduce_");
        CHECK_NEAR(fx_num(u, 1, "pct_of_gpu_time"), 22.5, 1e-9);
    }
    kt_tables_free(ts);
    /* with a spec file the peaks are the file's, named so */
    ts = run_perf(t, "{\"name\": \"b200-achievable\", \"mem_bw_gbps\": 6000, "
                     "\"max_achievable_tflops\": {\"matrix_bf16\": 1500}}", 0);
    cv = fx_table(ts, "coverage");
    if (cv) CHECK_STR(kt_table_str(cv, 0, (size_t)kt_table_col_index(cv, "peaks")), "device spec file");
    if (cv) CHECK_INT(kt_table_nnotes(cv), 1);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}

/* A GPU the table lacks: the note names it and the known ones. */
TEST(perf_unknown_gpu_is_named)
{
    char a[2048], path[64];
    op_events(a, sizeof a, 1, "aten::addmm", gemm_args, 1000, 10);
    kt_trace *t = load_events("NVIDIA GB300", a, path, sizeof path);
    if (!t) return;
    kt_tables *ts = run_perf(t, NULL, 0);
    const kt_table *n = fx_table(ts, "notes");
    long row = n ? fx_row(n, "level", "info", -1) : -1;
    CHECK(row >= 0);
    if (row >= 0) {
        const char *msg = kt_table_str(n, (size_t)row, 1);
        CHECK(strstr(msg, "\"NVIDIA GB300\"") != NULL);
        CHECK(strstr(msg, "known GPUs: A100 SXM4 80GB,") != NULL);
        CHECK(strstr(msg, "MI325X; give --device-spec FILE") != NULL);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(path);
}
