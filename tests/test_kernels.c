/* test_kernels.c — the per-kernel table and kernel categories by launcher on
 * a hand-built trace; every expected number is worked out below. */
#include "test.h"
#include "fixture.h"
#include "kineta.h"
#include "oracle.h"
#include "../programs/cli.h"

#include <stdlib.h>

#define US 1000
#define CPU(cat, name, ts, dur, corr) fx_event(t, r, 'X', cat, name, (ts) * US, (dur) * US, 100, 1, -1, corr)
#define GPU(cat, name, ts, dur, stream, corr) fx_event(t, r, 'X', cat, name, (ts) * US, (dur) * US, 0, stream, stream, corr)

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
#define CAT_F "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>(float*, int)"
#define CAT_B "void at::native::(anonymous namespace)::CatArrayBatchedCopy<c10::BFloat16, unsigned int, 2, 64, 64>(c10::BFloat16*, int)"
#define FLASH "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>, false>(Flash_fwd_params)"
#define VADD "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int)"
#define NCCL "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

/* Step 5 (CPU 0-50000 µs): aten::mm (inside a python_function) launches two
 * GEMMs (500, 300); aten::cat two CatArrayBatchedCopy variants (300, 100);
 * one cudaGraphLaunch three kernels (nvjet 200, flash 400, triton 50); a
 * cudaLaunchKernel outside any op an add (20); aten::copy_ a memcpy (100).
 * Step 6: a cudaLaunchKernel outside any op a third GEMM (1000).  An NCCL
 * kernel (1000) has no launching call.  GPU events span 10000..61000.     */
static kt_trace *launch_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    CPU("user_annotation", "ProfilerStep#5", 0, 50000, -1);
    CPU("python_function", "nn.Module: Linear_0", 900, 3000, -1);
    CPU("cpu_op", "aten::mm", 1000, 2000, -1);
    CPU("cuda_runtime", "cudaLaunchKernel", 1100, 100, 1);
    CPU("cuda_runtime", "cudaLaunchKernel", 1500, 100, 7);
    CPU("cpu_op", "aten::cat", 4000, 1000, -1);
    CPU("cuda_runtime", "cudaLaunchKernel", 4100, 100, 2);
    CPU("cuda_runtime", "cudaLaunchKernel", 4500, 100, 3);
    CPU("cuda_runtime", "cudaGraphLaunch", 5500, 100, 4);
    CPU("cuda_runtime", "cudaLaunchKernel", 6000, 100, 5);
    CPU("cpu_op", "aten::copy_", 7000, 500, -1);
    CPU("cuda_runtime", "cudaMemcpyAsync", 7100, 100, 6);
    CPU("user_annotation", "ProfilerStep#6", 50000, 20000, -1);
    CPU("cuda_runtime", "cudaLaunchKernel", 51000, 100, 8);
    GPU("kernel", GEMM, 10000, 500, 7, 1);
    GPU("kernel", GEMM, 10600, 300, 7, 7);
    GPU("kernel", CAT_F, 11000, 300, 7, 2);
    GPU("kernel", CAT_B, 11400, 100, 7, 3);
    GPU("kernel", "nvjet_tst_64x8_64x16_2x1_v_bz_TNT", 11600, 200, 7, 4);
    GPU("kernel", FLASH, 11900, 400, 7, 4);
    GPU("kernel", "triton_poi_fused_add_0", 12400, 50, 7, 4);
    GPU("kernel", VADD, 12500, 20, 7, 5);
    GPU("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 12600, 100, 7, 6);
    GPU("kernel", NCCL, 12000, 1000, 20, 99);
    GPU("kernel", GEMM, 60000, 1000, 7, 8);
    fx_finish(t);
    return t;
}

extern const cli_command cmd_kernels;

static double at(const kt_table *tb, const char *col, const char *value, const char *num)
{
    long row = fx_row(tb, col, value, -1);
    return row < 0 ? NAN : fx_num(tb, (size_t)row, num);
}

TEST(kernels_table_counts_gpu_work_only)
{
    kt_trace *t = launch_trace();
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    kt_tables *ts = NULL;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    const kt_table *k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 8); /* never cudaLaunchKernel; no memcpy without --memory */
    CHECK_INT(fx_row(k, "name", "cudaLaunchKernel", -1), -1);
    /* by count, ties by total: GEMM(3), NCCL 1000, flash 400, cat_f 300, nvjet 200, ... */
    CHECK_STR(kt_table_str(k, 0, 1), GEMM);
    CHECK_STR(kt_table_str(k, 1, 1), "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    CHECK_STR(kt_table_str(k, 2, 1), "flash_fwd_kernel");
    CHECK_INT(fx_num(k, 0, "#"), 1);
    CHECK_INT(fx_num(k, 0, "count"), 3);
    CHECK_NEAR(fx_num(k, 0, "total (us)"), 1800, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "avg (us)"), 600, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "median (us)"), 500, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "min (us)"), 300, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "max (us)"), 1000, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "std (us)"), 360.5551275463989, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "% launches"), 30, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "% kernel time"), 100.0 * 1800 / 3870, 1e-9);
    CHECK_NEAR(fx_num(k, 0, "% GPU wall time"), 100.0 * 1800 / 51000, 1e-9);
    CHECK_STR(kt_table_str(k, 0, 12), "GEMM");
    CHECK_STR(kt_table_str(k, 0, 13), "COMPUTATION");
    /* the two CatArrayBatchedCopy variants stay two distinct rows */
    CHECK_NEAR(at(k, "name", "CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>", "total (us)"), 300, 1e-9);
    CHECK_NEAR(at(k, "name", "CatArrayBatchedCopy<BFloat16, unsigned int, 2, 64, 64>", "total (us)"), 100, 1e-9);
    const kt_table *s = fx_table(ts, "summary");
    CHECK_INT(fx_num(s, 0, "kernels"), 8);
    CHECK_INT(fx_num(s, 0, "launches"), 10);
    CHECK_NEAR(fx_num(s, 0, "kernel time (us)"), 3870, 1e-9);
    CHECK_NEAR(fx_num(s, 0, "GPU wall time (us)"), 51000, 1e-9);
    CHECK_INT(fx_num(s, 0, "unlinked launches"), 1);
    CHECK_INT(fx_num(s, 0, "graph-launched kernels"), 3);
    kt_tables_free(ts);

    o.memory = 1;
    o.full_names = 1;
    o.top = 2;
    o.sort = KT_KSORT_DURATION;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 2);
    CHECK_STR(kt_table_str(k, 0, 1), NCCL); /* avg 1000 */
    CHECK_STR(kt_table_str(k, 1, 1), GEMM); /* avg 600 */
    CHECK_INT(fx_num(fx_table(ts, "summary"), 0, "launches"), 11);
    kt_tables_free(ts);
    o = kt_kernels_defaults();
    o.memory = 1;
    o.top = 0;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    k = fx_table(ts, "kernels");
    long m = fx_row(k, "name", "Memcpy HtoD (Pageable -> Device)", -1);
    CHECK(m >= 0);
    CHECK_STR(kt_table_str(k, (size_t)m, 12), "Memcpy");
    CHECK_STR(kt_table_str(k, (size_t)m, 13), "MEMORY");
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(kernels_by_launcher_category_and_step)
{
    kt_trace *t = launch_trace();
    kt_kernels_options o = kt_kernels_defaults();
    o.by = KT_KBY_LAUNCHER;
    kt_tables *ts = NULL;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    const kt_table *k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 5);
    /* by total time, the default */
    CHECK_STR(kt_table_str(k, 0, 1), "cudaLaunchKernel"); /* no enclosing op: add + GEMM */
    CHECK_NEAR(fx_num(k, 0, "total (us)"), 1020, 1e-9);
    CHECK_STR(kt_table_str(k, 1, 1), "(unlinked)");
    CHECK_NEAR(fx_num(k, 1, "total (us)"), 1000, 1e-9);
    CHECK_STR(kt_table_str(k, 2, 1), "aten::mm");       /* through the python_function */
    CHECK_NEAR(fx_num(k, 2, "total (us)"), 800, 1e-9);
    CHECK_STR(kt_table_str(k, 3, 1), "cudaGraphLaunch"); /* 3 kernels of one launch */
    CHECK_STR(kt_table_str(k, 3, 12), "mixed");
    CHECK_STR(kt_table_str(k, 4, 1), "aten::cat");
    kt_tables_free(ts);

    o.by = KT_KBY_CATEGORY;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    k = fx_table(ts, "kernels");
    CHECK_STR(kt_table_str(k, 0, 1), "GEMM");
    CHECK_INT(fx_num(k, 0, "count"), 4);
    CHECK_STR(kt_table_str(k, 0, 13), "COMPUTATION");
    kt_tables_free(ts);

    o.by = KT_KBY_SHORT;
    o.top = 0;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    k = fx_table(ts, "kernels"); /* both CatArrayBatchedCopy variants in one row */
    CHECK_INT(fx_num(k, (size_t)fx_row(k, "name", "CatArrayBatchedCopy", -1), "count"), 2);
    kt_tables_free(ts);

    o = kt_kernels_defaults();
    o.pstep = 5; /* the step-6 GEMM and the unlinked NCCL kernel drop out */
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    CHECK_INT(fx_num(fx_table(ts, "kernels"), 0, "count"), 2);
    CHECK_INT(fx_num(fx_table(ts, "summary"), 0, "launches"), 8);
    CHECK_NEAR(fx_num(fx_table(ts, "summary"), 0, "GPU wall time (us)"), 12700 - 10000, 1e-9);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(categories_by_launching_op)
{
    kt_trace *t = launch_trace();
    kt_tables *ts = NULL;
    CHECK_INT(kt_categories(t, NULL, NULL, &ts), KT_OK);
    const kt_table *k = fx_table(ts, "kernels");
    CHECK_INT(kt_table_nrows(k), 10);
    long row = fx_row(k, "kernel_name", "flash_fwd_kernel", -1);
    CHECK(row >= 0);
    CHECK_STR(kt_table_str(k, (size_t)row, 0), "cudaGraphLaunch");
    CHECK_STR(kt_table_str(k, (size_t)row, 1), "Attention fwd");
    CHECK_NEAR(at(k, "cpu_op", "aten::mm", "total_time_ms"), 0.8, 1e-12);
    CHECK_NEAR(at(k, "cpu_op", "aten::mm", "avg_time_us"), 400, 1e-9);
    CHECK_NEAR(at(k, "cpu_op", "aten::mm", "count"), 2, 0);
    CHECK_STR(kt_table_str(k, (size_t)fx_row(k, "cpu_op", "aten::copy_", -1), 1), "Memcpy");

    const kt_table *oc = fx_table(ts, "op_categories");
    /* ops by their kernel time: cudaLaunchKernel 1020, (unlinked) 1000, aten::mm 800, graph 650 */
    CHECK_STR(kt_table_str(oc, 0, 0), "cudaLaunchKernel");
    CHECK_STR(kt_table_str(oc, 0, 1), "GEMM");
    CHECK_NEAR(fx_num(oc, 0, "% of op time"), 100.0 * 1000 / 1020, 1e-9);
    CHECK_STR(kt_table_str(oc, 2, 0), "(unlinked)");
    CHECK_STR(kt_table_str(oc, 2, 1), "Communication");
    long g = fx_row(oc, "cpu_op", "cudaGraphLaunch", -1);
    CHECK(g >= 0);
    CHECK_STR(kt_table_str(oc, (size_t)g, 1), "Attention fwd");
    CHECK_NEAR(fx_num(oc, (size_t)g, "% of op time"), 100.0 * 400 / 650, 1e-9);
    CHECK_NEAR(fx_num(oc, (size_t)g + 1, "% of op time"), 100.0 * 200 / 650, 1e-9);

    const kt_table *c = fx_table(ts, "categories");
    CHECK_STR(kt_table_str(c, 0, 0), "GEMM");
    CHECK_INT(fx_num(c, 0, "count"), 4);
    CHECK_NEAR(fx_num(c, 0, "total_time_ms"), 2.0, 1e-12);
    CHECK_NEAR(fx_num(c, 0, "% of kernel time"), 100.0 * 2000 / 3970, 1e-9);
    kt_tables_free(ts);

    /* a user rule file changes the categories */
    kt_categorizer *cz = NULL;
    CHECK_INT(kt_categorizer_new(&cz), KT_OK);
    CHECK_INT(kt_categorizer_add_rules(cz, "200 token nvjet Tensor-core GEMM\n", NULL), KT_OK);
    kt_categories_options o = kt_categories_defaults();
    o.categorizer = cz;
    o.memory = 0;
    CHECK_INT(kt_categories(t, NULL, &o, &ts), KT_OK);
    c = fx_table(ts, "categories");
    CHECK(fx_row(c, "kernel_category", "Tensor-core GEMM", -1) >= 0);
    CHECK_INT(fx_row(c, "kernel_category", "Memcpy", -1), -1);
    kt_tables_free(ts);
    kt_categorizer_free(cz);
    kt_trace_free(t);
}

/* ---- against TraceLens's kernel_summary.csv (../shared/oracle/tracelens) ---- */

typedef struct tally {
    char key[2][4096]; /* launcher ("" when compared by kernel only), kernel name */
    int64_t count;
    double sum_us;
} tally;

typedef struct tallies {
    tally *t;
    size_t n;
} tallies;

static void tally_add(tallies *ts, const char *launcher, const char *kernel, int64_t count, double sum_us)
{
    for (size_t i = 0; i < ts->n; i++)
        if (!strcmp(ts->t[i].key[0], launcher) && !strcmp(ts->t[i].key[1], kernel)) {
            ts->t[i].count += count;
            ts->t[i].sum_us += sum_us;
            return;
        }
    ts->t = realloc(ts->t, (ts->n + 1) * sizeof *ts->t);
    tally *x = &ts->t[ts->n++];
    snprintf(x->key[0], sizeof x->key[0], "%s", launcher);
    snprintf(x->key[1], sizeof x->key[1], "%s", kernel);
    x->count = count;
    x->sum_us = sum_us;
}

/* Every tally of a equals the one with the same key in b, and vice versa. */
static void same_tallies(const char *what, const tallies *a, const tallies *b)
{
    CHECK_INT(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const tally *x = &a->t[i], *y = NULL;
        for (size_t j = 0; j < b->n && !y; j++)
            if (!strcmp(b->t[j].key[0], x->key[0]) && !strcmp(b->t[j].key[1], x->key[1])) y = &b->t[j];
        if (!y || y->count != x->count || fabs(y->sum_us - x->sum_us) > 1e-6 * fmax(1, x->sum_us))
            kt_test_fail(__FILE__, __LINE__, "%s: [%s] %.80s: TraceLens %lld / %.3f us, ours %lld / %.3f us", what,
                         x->key[0], x->key[1], (long long)x->count, x->sum_us, y ? (long long)y->count : -1LL,
                         y ? y->sum_us : -1.0);
    }
}

/* Our categories tables (full names, kernels only) tallied like TraceLens's
 * kernel_summary: per (launching op, kernel) and per kernel, linked kernels;
 * unlinked ones separately.                                               */
static void our_tallies(const kt_table *k, tallies *pairs, tallies *kernels, tallies *unlinked)
{
    for (size_t r = 0; r < kt_table_nrows(k); r++) {
        const char *op = kt_table_str(k, r, 0), *name = kt_table_str(k, r, 2);
        int64_t count = (int64_t)fx_num(k, r, "count");
        double us = fx_num(k, r, "total_time_ms") * 1e3;
        if (!strcmp(op, "(unlinked)")) {
            tally_add(unlinked, "", name, count, us);
            continue;
        }
        tally_add(pairs, op, name, count, us);
        tally_add(kernels, "", name, count, us);
    }
}

/* Sums and counts per kernel equal TraceLens's kernel_summary for linked
 * kernels (per launching op too where TraceLens has one) and for unlinked
 * ones, on every TraceLens trace.                                         */
TEST(categories_equal_tracelens_kernel_summary)
{
    NEED_SHARED();
    static const char *const runs[][2] = {
        { "h100/Falconsai_nsfw_image_detection__1016002", "h100/Falconsai_nsfw_image_detection__1016002.json.gz" },
        { "h100/Qwen_Qwen1.5-0.5B-Chat__1016005", "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" },
        { "h100/facebook_timesformer-base-finetuned-k400__1016002", "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz" },
        { "h100/gaunernst_bert-small-uncased__1016001", "h100/gaunernst_bert-small-uncased__1016001.json.gz" },
        { "h100/google_owlv2-large-patch14-ensemble__1016001", "h100/google_owlv2-large-patch14-ensemble__1016001.json.gz" },
        { "mi210/gpu_only_trace/gpu_only_trace", "mi210/gpu_only_trace/gpu_only_trace.json.gz" },
        { "perf_model/normalization/normalization_layer_test", "perf_model/normalization/normalization_layer_test.json.gz" },
        { "torch_compile_triton/trace", "torch_compile_triton/trace.json.gz" },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char csv_path[256], trace[256];
        snprintf(csv_path, sizeof csv_path, "oracle/tracelens/%s/kernel_summary.csv", runs[i][0]);
        snprintf(trace, sizeof trace, "traces/tracelens/%s", runs[i][1]);
        fx_csv *c = fx_csv_read(csv_path);
        const kt_trace *t = fx_shared_trace(trace, false);
        CHECK(c != NULL);
        kt_categories_options o = kt_categories_defaults();
        o.memory = 0; /* kernel_summary has cat == kernel only */
        o.full_names = 1;
        kt_tables *ts = NULL;
        if (!c || !t || kt_categories(t, NULL, &o, &ts) != KT_OK) {
            CHECK(false);
            fx_csv_free(c);
            continue;
        }
        tallies tp = { 0 }, tk = { 0 }, tu = { 0 }, op = { 0 }, ok = { 0 }, ou = { 0 };
        bool has_op = fx_csv_col(c, "Parent cpu_op") >= 0;
        for (size_t r = 1; r < c->nrows; r++) {
            const char *name = fx_csv_get(c, r, "Kernel name");
            int64_t count = strtoll(fx_csv_get(c, r, "Kernel duration (\xc2\xb5s)_count"), NULL, 10);
            double us = strtod(fx_csv_get(c, r, "Kernel duration (\xc2\xb5s)_sum"), NULL);
            if (!*fx_csv_get(c, r, "Parent op category")) {
                tally_add(&tu, "", name, count, us);
                continue;
            }
            if (has_op) tally_add(&tp, fx_csv_get(c, r, "Parent cpu_op"), name, count, us);
            tally_add(&tk, "", name, count, us);
        }
        our_tallies(fx_table(ts, "kernels"), &op, &ok, &ou);
        CHECK(tk.n > 0);
        same_tallies(runs[i][0], &tk, &ok);
        same_tallies(runs[i][0], &tu, &ou);
        if (has_op) same_tallies(runs[i][0], &tp, &op);
        free(tp.t), free(tk.t), free(tu.t), free(op.t), free(ok.t), free(ou.t);
        kt_tables_free(ts);
        fx_csv_free(c);
    }
}

/* -o FILE without --format: the detailed text report, one block per kernel
 * with its full name; with --format the generic table.                    */
TEST(kernels_cli_report_and_rules)
{
    kt_trace *t = launch_trace();
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    o.full_names = 1;
    kt_tables *ts = NULL;
    CHECK_INT(kt_kernels(t, NULL, &o, &ts), KT_OK);
    cli_ctx ctx = { .format = FMT_TABLE, .out_path = "report.txt" };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(cmd_kernels.print(&ctx, ts, f), 0);
    fclose(f);
    CHECK(strstr(buf, "#1: " GEMM "\n  Count: 3 (30.00% of launches)") != NULL);
    CHECK(strstr(buf, "#4: " CAT_F "\n") != NULL);
    CHECK(strstr(buf, "Launches: 10") != NULL);
    free(buf);
    ctx.format = FMT_CSV;
    ctx.format_given = true;
    f = open_memstream(&buf, &len);
    CHECK_INT(cmd_kernels.print(&ctx, ts, f), 0);
    fclose(f);
    CHECK(!strncmp(buf, "#,name,count,total (us)", 23));
    free(buf);
    kt_tables_free(ts);
    kt_trace_free(t);

    kt_categorizer *c = NULL;
    CHECK_INT(cli_load_categorizer(NULL, &c), KT_OK);
    CHECK(c == NULL);
    CHECK_INT(cli_load_categorizer("/nonexistent/rules.txt", &c), KT_EUSAGE);
    CHECK(c == NULL);
}
