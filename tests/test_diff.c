/* test_diff.c — kineta diff on hand-built runs: a run against itself, a
 * CUDA run against a HIP run of the same model, HTA's iteration and
 * rounding rules against ours, side-by-side order, labels, bad input
 * (empty runs, missing ranks and steps), the name normalisation and the
 * sibling alignment, and the command line.                                */
#include "analysis/compare/op_name_norm.h"
#include "analysis/compare/tree_align.h"
#include "fixture.h"
#include "cli_run.h"
#include "test.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define US 1000

/* One iteration of a tiny model (times in µs):
 *   ProfilerStep#<step> [0, 1000)
 *     aten::linear [10, 110) → aten::addmm [20, 100) → <api>LaunchKernel [30, 35) corr 1 → gemm (gemm_us)
 *     aten::<conv> [200, 260)                        → <api>LaunchKernel [210, 215) corr 2 → conv_k 10 us
 * and a kernel outside the step (no launch). api: "cuda" or "hip". */
static kt_trace *model_run(const char *api, const char *conv, int64_t gemm_us, int step, int32_t stream)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    char name[64], launch[64];
    snprintf(name, sizeof name, "ProfilerStep#%d", step);
    snprintf(launch, sizeof launch, "%sLaunchKernel", api);
    fx_event(t, r, 'X', "user_annotation", name, 0, 1000 * US, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cpu_op", "aten::linear", 10 * US, 100 * US, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cpu_op", "aten::addmm", 20 * US, 80 * US, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", launch, 30 * US, 5 * US, 1, 1, -1, 1);
    fx_event(t, r, 'X', "cpu_op", conv, 200 * US, 60 * US, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", launch, 210 * US, 5 * US, 1, 1, -1, 2);
    fx_event(t, r, 'X', "kernel", "gemm", 40 * US, gemm_us * US, 0, 7, stream, 1);
    fx_event(t, r, 'X', "kernel", "conv_k", 220 * US, 10 * US, 0, 7, stream, 2);
    fx_event(t, r, 'X', "kernel", "stray", 5000 * US, 3 * US, 0, 7, stream, -1);
    fx_finish(t);
    return t;
}

static long row_of(const kt_table *t, const char *col, const char *v)
{
    return fx_row(t, col, v, -1);
}

static const char *str_at(const kt_table *t, long row, const char *col)
{
    long c = kt_table_col_index(t, col);
    return row >= 0 && c >= 0 && !kt_table_is_null(t, (size_t)row, (size_t)c) ? kt_table_str(t, (size_t)row, (size_t)c)
                                                                               : "(null)";
}

TEST(diff_run_against_itself_is_unchanged)
{
    kt_trace *t = model_run("cuda", "aten::cudnn_convolution", 20, 3, 7);
    kt_tables *ts;
    CHECK_INT(kt_diff(t, t, NULL, &ts, NULL), KT_OK);
    const kt_table *ops = fx_table(ts, "ops"), *od = fx_table(ts, "ops_diff"), *tree = fx_table(ts, "tree");
    CHECK_INT(kt_table_nrows(ops), 7); /* step, 3 ops, launch, gemm, conv_k; not the stray kernel */
    for (size_t i = 0; i < kt_table_nrows(ops); i++) {
        CHECK_STR(str_at(ops, (long)i, "counts_change_categories"), "=");
        CHECK_INT(fx_num(ops, i, "diff_duration"), 0);
    }
    CHECK_INT(kt_table_nrows(od), 7);
    for (size_t i = 0; i < kt_table_nrows(od); i++) CHECK_STR(str_at(od, (long)i, "change"), "unchanged");
    CHECK_INT(kt_table_nrows(tree), 7); /* root, step, linear, addmm, launch, conv, launch */
    for (size_t i = 0; i < kt_table_nrows(tree); i++) {
        CHECK_STR(str_at(tree, (long)i, "status"), "matched");
        CHECK_INT(fx_num(tree, i, "delta_gpu_us"), 0);
    }
    CHECK_INT(fx_num(tree, 0, "Control_gpu_us"), 30); /* gemm 20 + conv_k 10 */
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(diff_cuda_run_against_hip_run)
{
    kt_trace *c = model_run("cuda", "aten::cudnn_convolution", 20, 3, 7);
    kt_trace *h = model_run("hip", "aten::miopen_convolution", 35, 9, 7);
    kt_tables *ts;
    CHECK_INT(kt_diff(c, h, NULL, &ts, NULL), KT_OK);
    const kt_table *tree = fx_table(ts, "tree"), *sbs = fx_table(ts, "side_by_side");
    CHECK_INT(kt_table_nrows(tree), 7); /* still one merged node per call path */
    long step = row_of(tree, "name", "ProfilerStep#3"), addmm = row_of(tree, "name", "aten::addmm");
    long conv = row_of(tree, "name", "aten::cudnn_convolution");
    CHECK_STR(str_at(tree, step, "test_name"), "ProfilerStep#9");
    CHECK_STR(str_at(tree, conv, "status"), "matched");
    CHECK_STR(str_at(tree, conv, "test_name"), "aten::miopen_convolution");
    CHECK_STR(str_at(tree, addmm + 1, "name"), "cudaLaunchKernel");
    CHECK_STR(str_at(tree, addmm + 1, "test_name"), "hipLaunchKernel");
    CHECK_INT(fx_num(tree, (size_t)addmm, "Control_gpu_us"), 20);
    CHECK_INT(fx_num(tree, (size_t)addmm, "Test_gpu_us"), 35);
    CHECK_INT(fx_num(tree, (size_t)addmm, "delta_gpu_us"), 15);
    CHECK_NEAR(fx_num(tree, (size_t)addmm, "delta_gpu_pct"), 75.0, 1e-9);
    CHECK_INT(fx_num(tree, 0, "delta_gpu_us"), 15); /* the root holds the total */
    /* side by side: gemm changed most, conv_k not at all */
    CHECK_STR(str_at(sbs, 0, "kernel"), "gemm");
    CHECK_INT(fx_num(sbs, 0, "delta_time_us"), 15);
    CHECK_STR(str_at(sbs, 1, "kernel"), "conv_k");
    /* the kernels table: each run's kernel of aten::addmm */
    const kt_table *k = fx_table(ts, "kernels");
    long kr = row_of(k, "side", "Test");
    CHECK(kr >= 0 && fx_num(k, (size_t)kr, "node") == (double)addmm);
    CHECK_STR(str_at(k, kr, "kernel"), "gemm");
    CHECK_INT(fx_num(k, (size_t)kr, "time_us"), 35);
    /* HTA's ops table: launch names differ, so one deleted and one added */
    const kt_table *od = fx_table(ts, "ops_diff");
    CHECK_STR(str_at(od, row_of(od, "name", "cudaLaunchKernel"), "change"), "deleted");
    CHECK_STR(str_at(od, row_of(od, "name", "hipLaunchKernel"), "change"), "added");
    kt_tables_free(ts);
    kt_trace_free(c);
    kt_trace_free(h);
}

TEST(diff_side_by_side_by_op_and_category)
{
    kt_trace *c = model_run("cuda", "aten::conv", 20, 1, 7), *h = model_run("cuda", "aten::conv", 50, 1, 7);
    kt_diff_options o = kt_diff_defaults();
    o.by = KT_DIFF_BY_OP;
    kt_tables *ts;
    CHECK_INT(kt_diff(c, h, &o, &ts, NULL), KT_OK);
    const kt_table *sbs = fx_table(ts, "side_by_side");
    CHECK_STR(str_at(sbs, 0, "op"), "aten::addmm");
    CHECK_INT(fx_num(sbs, 0, "delta_time_us"), 30);
    CHECK_NEAR(fx_num(sbs, 0, "delta_pct"), 150.0, 1e-9);
    kt_tables_free(ts);
    o.by = KT_DIFF_BY_CATEGORY;
    CHECK_INT(kt_diff(c, h, &o, &ts, NULL), KT_OK);
    sbs = fx_table(ts, "side_by_side");
    CHECK(kt_table_col_index(sbs, "category") == 0);
    double total = 0;
    for (size_t i = 0; i < kt_table_nrows(sbs); i++) total += fx_num(sbs, i, "delta_time_us");
    CHECK_INT(total, 30);
    kt_tables_free(ts);
    kt_trace_free(c);
    kt_trace_free(h);
}

/* ROCm puts kernels on stream 0: HTA gives them no iteration (NaN) and its
 * diff leaves them out; ours counts them in their launch's step.          */
TEST(diff_hta_rules_drop_stream0_kernels)
{
    kt_trace *t = model_run("hip", "aten::conv", 20, 1, 0);
    kt_diff_options o = kt_diff_defaults();
    kt_tables *ts;
    CHECK_INT(kt_diff(t, t, &o, &ts, NULL), KT_OK);
    CHECK(row_of(fx_table(ts, "ops"), "name", "gemm") >= 0);
    kt_tables_free(ts);
    o.hta_compat = 1;
    CHECK_INT(kt_diff(t, t, &o, &ts, NULL), KT_OK);
    CHECK(row_of(fx_table(ts, "ops"), "name", "gemm") < 0);
    CHECK(row_of(fx_table(ts, "ops"), "name", "aten::conv") >= 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* ns-resolution runs: HTA rounds ts up and the end down to whole µs. */
TEST(diff_hta_rounds_ns_times)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cpu_op", "aten::short", 100700, 200, 1, 1, -1, -1); /* 100.7 + 0.2 us */
    fx_event(t, r, 'X', "cpu_op", "aten::long", 200300, 2500, 1, 1, -1, -1); /* 200.3 + 2.5 us */
    fx_finish(t);
    r->ns_resolution = true;
    kt_diff_options o = kt_diff_defaults();
    o.hta_compat = 1;
    kt_tables *ts;
    CHECK_INT(kt_diff(t, t, &o, &ts, NULL), KT_OK); /* no ProfilerStep: the whole trace */
    const kt_table *ops = fx_table(ts, "ops");
    CHECK_INT(fx_num(ops, (size_t)row_of(ops, "name", "aten::short"), "Control_total_duration"), -1);
    CHECK_INT(fx_num(ops, (size_t)row_of(ops, "name", "aten::long"), "Control_total_duration"), 1);
    kt_tables_free(ts);
    o.hta_compat = 0;
    CHECK_INT(kt_diff(t, t, &o, &ts, NULL), KT_OK);
    ops = fx_table(ts, "ops");
    CHECK_NEAR(fx_num(ops, (size_t)row_of(ops, "name", "aten::short"), "Control_total_duration"), 0.2, 1e-12);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(diff_iterations_ranks_and_labels)
{
    kt_trace *c = model_run("cuda", "aten::conv", 20, 4, 7), *h = model_run("cuda", "aten::conv", 20, 4, 7);
    kt_diff_options o = kt_diff_defaults();
    kt_diags *why;
    o.test_iteration = 5;
    kt_tables *ts = NULL;
    CHECK_INT(kt_diff(c, h, &o, &ts, &why), KT_EUSAGE);
    CHECK(ts == NULL);
    CHECK(strstr(fx_why(why), "no ProfilerStep#5") != NULL);
    o.test_iteration = KT_DIFF_FIRST_STEP;
    o.control_rank = 3;
    CHECK_INT(kt_diff(c, h, &o, &ts, &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "no rank 3") != NULL);
    o.control_rank = -1;
    o.control_label = o.test_label = "run";
    o.control_iteration = KT_DIFF_WHOLE; /* the stray kernel too */
    CHECK_INT(kt_diff(c, h, &o, &ts, NULL), KT_OK);
    const kt_table *ops = fx_table(ts, "ops");
    CHECK(kt_table_col_index(ops, "run_counts") == 1);
    CHECK(kt_table_col_index(ops, "run_control_test_counts") == 3); /* HTA's renaming */
    CHECK_STR(str_at(ops, row_of(ops, "name", "stray"), "counts_change_categories"), "-");
    kt_tables_free(ts);
    kt_trace_free(c);
    kt_trace_free(h);
}

TEST(diff_empty_runs_are_input_errors)
{
    kt_trace *e = fx_trace(), *m = fx_trace(), *t = model_run("cuda", "aten::conv", 20, 1, 7);
    fx_rank(e, 0);
    fx_finish(e);
    kt_rank *r = fx_rank(m, 0);
    fx_event(m, r, 'M', "", "process_name", 0, -1, 1, 1, -1, -1);
    fx_finish(m);
    kt_diff_options o = kt_diff_defaults();
    kt_diags *why;
    kt_tables *ts = NULL;
    CHECK_INT(kt_diff(e, t, &o, &ts, &why), KT_EINPUT);
    CHECK(strstr(fx_why(why), "Control trace (rank 0, fixture.json) has no events") != NULL);
    CHECK_INT(kt_diff(t, m, &o, &ts, &why), KT_EINPUT);
    const char *err = fx_why(why);
    CHECK(strstr(err, "Test trace") && strstr(err, "no complete events"));
    kt_trace *none = fx_trace();
    CHECK_INT(kt_diff(none, t, &o, &ts, NULL), KT_EINPUT);
    CHECK(ts == NULL);
    kt_trace_free(none);
    kt_trace_free(e);
    kt_trace_free(m);
    kt_trace_free(t);
}

/* A call stack 100000 deep (a hostile or broken trace): no recursion
 * anywhere on the way, every node matched against itself.                */
TEST(diff_deep_call_stack)
{
    enum { DEPTH = 100000 };
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    char name[32];
    for (int i = 0; i < DEPTH; i++) {
        snprintf(name, sizeof name, "op%d", i % 7);
        fx_event(t, r, 'X', "cpu_op", name, i, 10 * DEPTH - 2 * i, 1, 1, -1, -1);
    }
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_diff(t, t, NULL, &ts, NULL), KT_OK);
    const kt_table *tree = fx_table(ts, "tree");
    CHECK_INT(kt_table_nrows(tree), DEPTH + 1);
    CHECK_INT(fx_num(tree, DEPTH, "depth"), DEPTH);
    CHECK_STR(str_at(tree, DEPTH, "status"), "matched");
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(diff_name_normalisation)
{
    char buf[64];
    CHECK_STR(kt_norm_op_name("ProfilerStep#12", false, buf, sizeof buf), "ProfilerStep#");
    CHECK_STR(kt_norm_op_name("cudaLaunchKernel", true, buf, sizeof buf), "LaunchKernel");
    CHECK_STR(kt_norm_op_name("hipLaunchKernel", true, buf, sizeof buf), "LaunchKernel");
    CHECK_STR(kt_norm_op_name("cuLaunchKernel", true, buf, sizeof buf), "LaunchKernel");
    CHECK_STR(kt_norm_op_name("cuMemcpyHtoDAsync_v2", true, buf, sizeof buf), "MemcpyHtoDAsync");
    CHECK_STR(kt_norm_op_name("hipMemcpyAsync", true, buf, sizeof buf), "MemcpyAsync");
    CHECK_STR(kt_norm_op_name("cudaLaunchKernelExC", true, buf, sizeof buf), "LaunchKernel");
    CHECK_STR(kt_norm_op_name("hipExtModuleLaunchKernel", true, buf, sizeof buf), "LaunchKernel");
    CHECK_STR(kt_norm_op_name("cudaLaunchKernel", false, buf, sizeof buf), "cudaLaunchKernel");
    CHECK_STR(kt_norm_op_name("aten::cudnn_convolution", false, buf, sizeof buf), "aten::dnn_convolution");
    CHECK_STR(kt_norm_op_name("aten::miopen_convolution", false, buf, sizeof buf), "aten::dnn_convolution");
    CHECK_STR(kt_norm_op_name("custom", true, buf, sizeof buf), "custom");
    CHECK_STR(kt_norm_op_name("aten::cudnn_convolution", false, buf, 8), "aten::d");
}

static size_t align(const char *a, const char *b, size_t cells, kt_align_step *out)
{
    uint32_t x[16], y[16];
    size_t na = strlen(a), nb = strlen(b);
    for (size_t i = 0; i < na; i++) x[i] = (uint32_t)a[i];
    for (size_t j = 0; j < nb; j++) y[j] = (uint32_t)b[j];
    return kt_align_names(x, na, y, nb, cells, out);
}

TEST(diff_sibling_alignment)
{
    kt_align_step s[32];
    /* abcd vs axcd: a, c, d match in order; b and x are each run's own */
    size_t n = align("abcd", "axcd", 1000, s);
    CHECK_INT(n, 5);
    CHECK(s[0].a == 0 && s[0].b == 0);
    CHECK(s[1].a == 1 && s[1].b == KT_ALIGN_GAP);
    CHECK(s[2].a == KT_ALIGN_GAP && s[2].b == 1);
    CHECK(s[3].a == 2 && s[3].b == 2 && s[4].a == 3 && s[4].b == 3);
    /* ab vs ba: the edit distance keeps one in order; the other is matched
     * as a leftover with the same name, not reported twice */
    n = align("ab", "ba", 1000, s);
    CHECK_INT(n, 2);
    for (size_t k = 0; k < n; k++) CHECK(s[k].a != KT_ALIGN_GAP && s[k].b != KT_ALIGN_GAP);
    /* too big for the table: equal names still match */
    n = align("abc", "cxa", 4, s);
    size_t matched = 0;
    for (size_t k = 0; k < n; k++) matched += s[k].a != KT_ALIGN_GAP && s[k].b != KT_ALIGN_GAP;
    CHECK_INT(matched, 2);
    CHECK_INT(n, 4);
    CHECK_INT(align("", "", 1000, s), 0);
}

/* ---- command line ---------------------------------------------------------- */

static char *write_run(const char *api, int64_t gemm_us)
{
    char *path = strdup("/tmp/kt_diff_XXXXXX.json");
    int fd = mkstemps(path, 5);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
               "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 50},\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%sLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": %lld, \"args\": {\"stream\": 7, \"correlation\": 7}}\n]}\n",
            api, (long long)gemm_us);
    fclose(f);
    return path;
}

static int run(char *out, size_t cap, const char *args, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s diff %s %s %s 2>&1", kt_cli_bin(), args, a, b);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(diff_cli)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not built"); return; }
    static char out[1 << 16];
    char *a = write_run("cuda", 40), *b = write_run("hip", 55);
    CHECK_INT(run(out, sizeof out, "-q --format csv --table side_by_side", a, b), 0);
    CHECK(strstr(out, "kernel,Control_count,Control_time_us,Test_count,Test_time_us") == out);
    CHECK(strstr(out, "gemm,1,40,1,55,0,15,37.5") != NULL);
    CHECK_INT(run(out, sizeof out, "-q --format table --labels before,after", a, b), 0);
    CHECK(strstr(out, "[=] cudaLaunchKernel | hipLaunchKernel") != NULL);
    CHECK(strstr(out, "before_counts") != NULL);
    CHECK_INT(run(out, sizeof out, "-q --format csv --hta-compat --device gpu --short-names", a, b), 0);
    CHECK(strstr(out, "short_name,Control_counts") == out);
    CHECK_INT(run(out, sizeof out, "-q --iteration 7", a, b), 2);
    CHECK(strstr(out, "no ProfilerStep#7") != NULL);
    CHECK_INT(run(out, sizeof out, "-q --labels onlyone", a, b), 2);
    CHECK_INT(run(out, sizeof out, "-q --device tpu", a, b), 2);
    CHECK_INT(run(out, sizeof out, "-q", a, ""), 2);
    CHECK(strstr(out, "expects two PATHs") != NULL);
    CHECK_INT(run(out, sizeof out, "-q", a, "/nonexistent.json"), 3);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}

/* ---- the synthesizer's CUDA and ROCm runs of one model --------------------- */
static kt_trace *synth_run(const char *dir, const char *name, const char *args)
{
    char cmd[1024], path[1100];
    snprintf(cmd, sizeof cmd, "%s %s -o %s/%s.json > /dev/null", getenv("KINETA_SYNTH"), args, dir, name);
    CHECK_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    const char *p = path;
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(&p, 1, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    return t;
}

/* Same seed, same model and timings, CUDA vs ROCm names and streams: every
 * merged node matches (hip* calls against cuda* calls, hipExtModuleLaunchKernel
 * against cudaLaunchKernelExC) and no node's GPU time changes, while HTA's
 * flat table sees every runtime call deleted and added.                   */
TEST(diff_synth_cuda_vs_rocm_tree_all_matched)
{
    const char *synth = getenv("KINETA_SYNTH");
    if (!synth || access(synth, X_OK) != 0) { kt_test_skip("kineta-synth not built (KINETA_SYNTH)"); return; }
    char dir[] = "/tmp/kineta-test-diff-XXXXXX", cmd[256];
    CHECK(mkdtemp(dir) != NULL);
    kt_trace *c = synth_run(dir, "cuda", "--steps 3 --seed 5"), *r = synth_run(dir, "rocm", "--steps 3 --seed 5 --vendor rocm");
    kt_tables *ts = NULL;
    CHECK_INT(c && r ? kt_diff(c, r, NULL, &ts, NULL) : KT_EINPUT, KT_OK);
    const kt_table *tree = ts ? fx_table(ts, "tree") : NULL;
    size_t renamed = 0;
    for (size_t i = 0; tree && i < kt_table_nrows(tree); i++) {
        CHECK_STR(str_at(tree, (long)i, "status"), "matched");
        CHECK_INT(fx_num(tree, i, "delta_gpu_us"), 0);
        renamed += strcmp(str_at(tree, (long)i, "name"), str_at(tree, (long)i, "test_name")) != 0;
    }
    CHECK(tree && kt_table_nrows(tree) > 50 && renamed > 5);
    long ext = tree ? row_of(tree, "test_name", "hipExtModuleLaunchKernel") : -1;
    CHECK_STR(str_at(tree, ext, "name"), "cudaLaunchKernelExC");
    const kt_table *od = ts ? fx_table(ts, "ops_diff") : NULL;
    CHECK_STR(str_at(od, od ? row_of(od, "name", "cudaLaunchKernel") : -1, "change"), "deleted");
    CHECK_STR(str_at(od, od ? row_of(od, "name", "hipLaunchKernel") : -1, "change"), "added");
    kt_tables_free(ts);
    kt_trace_free(c);
    kt_trace_free(r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}
