/*
 * test_replay.c — `kineta replay`'s IR (kt_replay_ir) on the shared h100
 * traces: the ops each selection picks, their recorded arguments as the
 * trace wrote them, their kernels and times (against the perf tables'
 * values), an op the IR cannot express, and the files -o writes.  The
 * scripts themselves are run by test_replay_torch.c.
 */
#include "fixture.h"
#include "oracle.h"
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BERT "traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"
#define FALCON "traces/tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz"

static const char *cell(const kt_table *t, size_t row, const char *col)
{
    for (size_t c = 0; c < kt_table_ncols(t); c++)
        if (!strcmp(kt_table_col_name(t, c), col)) return kt_table_str(t, row, c);
    return NULL;
}

/* The replay_args row of op id and argument index, or -1. */
static long arg_row(const kt_table *args, int64_t id, int64_t index)
{
    for (size_t r = 0; r < kt_table_nrows(args); r++)
        if (kt_table_int(args, r, 0) == id && kt_table_int(args, r, 1) == index) return (long)r;
    return -1;
}

TEST(replay_ir_top_is_headroom_first_rows)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(BERT, false);
    if (!t) return;
    kt_replay_options o = kt_replay_defaults();
    o.top = 2;
    kt_tables *ir = NULL, *perf = NULL;
    CHECK_INT(kt_replay_ir(t, NULL, &o, &ir, NULL), KT_OK);
    CHECK_INT(kt_perf(t, NULL, NULL, &perf, NULL), KT_OK);
    const kt_table *ops = fx_table(ir, "replay_ops"), *args = fx_table(ir, "replay_args");
    const kt_table *kernels = fx_table(ir, "replay_kernels"), *head = fx_table(perf, "headroom");
    if (!ops || !args || !kernels || !head) goto done;
    CHECK_INT(kt_table_nrows(ops), 2);
    for (size_t r = 0; r < 2 && r < kt_table_nrows(ops); r++) {
        CHECK_STR(cell(ops, r, "op"), cell(head, r, "op"));
        CHECK_STR(cell(ops, r, "params"), cell(head, r, "params"));
        CHECK_STR(cell(ops, r, "selected_by"), "headroom");
        CHECK(fx_num(ops, r, "lost_us") == fx_num(head, r, "lost_us"));
        CHECK(fx_num(ops, r, "calls") == fx_num(head, r, "calls"));
        CHECK_NEAR(fx_num(ops, r, "kernel_time_us_sum"), fx_num(head, r, "kernel_time_us"), 1e-9);
    }
    /* GEMM row 1 of TraceLens's sheet: addmm(bias[512], x[141,512], W^T[512,512] strided (1, 512), 1, 1) */
    CHECK_INT(fx_num(ops, 0, "first_event"), 48);
    CHECK_INT(fx_num(ops, 0, "replayable"), 1);
    CHECK_INT(fx_num(ops, 0, "calls"), 17);
    CHECK_NEAR(fx_num(ops, 0, "kernel_time_us_mean"), 98.718017578125 / 17, 1e-12);
    static const char *const want[5][5] = {
        { "tensor", "c10::BFloat16", "[512]", "[1]", "" },
        { "tensor", "c10::BFloat16", "[141,512]", "[512,1]", "" },
        { "tensor", "c10::BFloat16", "[512,512]", "[1,512]", "" },
        { "scalar", "Scalar", "", "", "1" },
        { "scalar", "Scalar", "", "", "1" },
    };
    for (int i = 0; i < 5; i++) {
        long r = arg_row(args, 1, i);
        CHECK(r >= 0);
        if (r < 0) continue;
        CHECK_STR(cell(args, (size_t)r, "kind"), want[i][0]);
        CHECK_STR(cell(args, (size_t)r, "type"), want[i][1]);
        CHECK_STR(cell(args, (size_t)r, "dims"), want[i][2]);
        CHECK_STR(cell(args, (size_t)r, "strides"), want[i][3]);
        CHECK_STR(cell(args, (size_t)r, "value"), want[i][4]);
    }
    CHECK(arg_row(args, 1, 5) < 0);
    /* one cutlass kernel per call, its mean the op's busy time */
    long k = -1;
    for (size_t r = 0; r < kt_table_nrows(kernels); r++)
        if (kt_table_int(kernels, r, 0) == 1) k = k < 0 ? (long)r : -2;
    CHECK(k >= 0);
    if (k >= 0) {
        CHECK(strstr(cell(kernels, (size_t)k, "kernel"), "cutlass_80_wmma_tensorop_bf16_s161616gemm") != NULL);
        CHECK_INT(fx_num(kernels, (size_t)k, "calls"), 17);
        CHECK_NEAR(fx_num(kernels, (size_t)k, "dur_us_mean"), 5.8069411764705885, 1e-9);
    }
done:
    kt_tables_free(ir);
    kt_tables_free(perf);
}

/* With no selector: one op per roofline row, the sheets' rows in order. */
TEST(replay_ir_default_is_roofline_rows)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(BERT, false);
    if (!t) return;
    kt_tables *ir = NULL, *perf = NULL;
    CHECK_INT(kt_replay_ir(t, NULL, NULL, &ir, NULL), KT_OK);
    CHECK_INT(kt_perf(t, NULL, NULL, &perf, NULL), KT_OK);
    const kt_table *ops = fx_table(ir, "replay_ops");
    static const char *const sheets[] = { "GEMM", "SDPA_fwd", "BinaryElementwise", "Normalization" };
    size_t row = 0;
    for (size_t s = 0; s < 4 && ops; s++) {
        const kt_table *sheet = fx_table(perf, sheets[s]);
        for (size_t r = 0; sheet && r < kt_table_nrows(sheet); r++, row++) {
            CHECK(row < kt_table_nrows(ops));
            if (row >= kt_table_nrows(ops)) break;
            CHECK_STR(cell(ops, row, "family"), sheets[s]);
            CHECK_STR(cell(ops, row, "op"), cell(sheet, r, "op"));
            CHECK(fx_num(ops, row, "first_event") == fx_num(sheet, r, "first_event"));
            CHECK_INT(fx_num(ops, row, "replayable"), 1);
        }
    }
    CHECK_INT(ops ? kt_table_nrows(ops) : 0, 9);
    CHECK_INT(row, 9);
    kt_tables_free(ir);
    kt_tables_free(perf);
}

/* --group: the ops_unique_args row of _flash_attention_forward (first
 * event 86): its Nones, scalars and the launcher's own kernel.          */
TEST(replay_ir_group_unique_args_row)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(BERT, false);
    if (!t) return;
    kt_replay_options o = kt_replay_defaults();
    o.group = 86;
    kt_tables *ir = NULL;
    CHECK_INT(kt_replay_ir(t, NULL, &o, &ir, NULL), KT_OK);
    const kt_table *ops = fx_table(ir, "replay_ops"), *args = fx_table(ir, "replay_args");
    if (!ops || !args) goto done;
    CHECK_INT(kt_table_nrows(ops), 1);
    CHECK_STR(cell(ops, 0, "op"), "aten::_flash_attention_forward");
    CHECK_STR(cell(ops, 0, "selected_by"), "unique_args");
    CHECK_INT(fx_num(ops, 0, "calls"), 4);
    CHECK_INT(kt_table_nrows(args), 15);
    long r = arg_row(args, 1, 3);
    CHECK(r >= 0 && !strcmp(cell(args, (size_t)r, "kind"), "none"));
    r = arg_row(args, 1, 7);
    CHECK(r >= 0 && !strcmp(cell(args, (size_t)r, "value"), "0."));
    r = arg_row(args, 1, 0);
    CHECK(r >= 0 && !strcmp(cell(args, (size_t)r, "strides"), "[72192,512,64,1]"));
done:
    kt_tables_free(ir);
    kt_replay_options bad = kt_replay_defaults();
    bad.group = 87;
    kt_diags *why = NULL;
    CHECK_INT(kt_replay_ir(t, NULL, &bad, &ir, &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "no ops_unique_args row") != NULL);
}

/* aten::cat takes a tensor list the trace records no shapes of: listed,
 * not replayable, with the reason.                                       */
TEST(replay_ir_tensor_list_not_replayable)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(FALCON, false);
    if (!t) return;
    kt_replay_options o = kt_replay_defaults();
    o.op = "aten::ca?";
    kt_tables *ir = NULL;
    CHECK_INT(kt_replay_ir(t, NULL, &o, &ir, NULL), KT_OK);
    const kt_table *ops = fx_table(ir, "replay_ops"), *args = fx_table(ir, "replay_args");
    if (!ops || !args) goto done;
    CHECK_INT(kt_table_nrows(ops), 1);
    CHECK_STR(cell(ops, 0, "op"), "aten::cat");
    CHECK_INT(fx_num(ops, 0, "replayable"), 0);
    CHECK_STR(cell(ops, 0, "reason"),
              "argument 0 (TensorList) is a list of tensors whose shapes the trace does not record");
    long r = arg_row(args, 1, 0);
    CHECK(r >= 0 && !strcmp(cell(args, (size_t)r, "kind"), "tensor_list"));
done:
    kt_tables_free(ir);
}

TEST(replay_cli_writes_ir_and_scripts)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    char trace[1024], dir[64], path[128];
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path(BERT));
    snprintf(dir, sizeof dir, "/tmp/kineta-replay-%d", (int)getpid());
    static char out[1 << 14];
    CHECK_INT(kt_cli_run_out(out, sizeof out, "replay -q --op addmm --format csv %s -o %s", trace, dir), 0);
    CHECK(strncmp(out, "id,op,rank,first_event,", 23) == 0);
    snprintf(path, sizeof path, "%s/replay_ir.json", dir);
    char *json = fx_read_file(path, NULL);
    CHECK(json && strstr(json, "\"dims\": [141,512], \"strides\": [512,1]") != NULL);
    CHECK(json && strstr(json, "\"first_event\": 477") != NULL);
    free(json);
    static const char *const files[] = { "replay_ir.json", "replay_all.py", "replay_1_aten_addmm.py",
                                         "replay_4_aten_addmm.py" };
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        CHECK(access(path, R_OK) == 0);
        unlink(path);
    }
    for (int i = 2; i <= 3; i++) {
        snprintf(path, sizeof path, "%s/replay_%d_aten_addmm.py", dir, i);
        CHECK(access(path, R_OK) == 0);
        unlink(path);
    }
    CHECK_INT(rmdir(dir), 0); /* nothing else written: no partial files left */
    CHECK_INT(kt_cli_run_out(out, sizeof out, "replay -q --group 87 %s", trace), 2);
}

/* --device-spec: --top ranks by the headroom under that spec.  With the
 * H100's peaks bert's first row is a GEMM; with matrix units a million
 * times slower no GEMM can lose time against its roofline, and the first
 * row is perf's first headroom row under the same spec (layer_norm). */
TEST(replay_cli_top_follows_device_spec)
{
    if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; }
    NEED_SHARED();
    char trace[1024], spec[64];
    snprintf(trace, sizeof trace, "%s", kt_test_shared_path(BERT));
    snprintf(spec, sizeof spec, "/tmp/kineta-replay-spec-%d.json", (int)getpid());
    FILE *f = fopen(spec, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"name\": \"slow matrix units\", \"mem_bw_gbps\": 3350, \"max_achievable_tflops\": {\"matrix_fp16\": "
          "0.001, \"matrix_bf16\": 0.001, \"matrix_fp32\": 0.001, \"matrix_fp64\": 0.001, \"vector_fp16\": 134, "
          "\"vector_bf16\": 134, \"vector_fp32\": 67, \"vector_fp64\": 34}}\n", f);
    fclose(f);
    static char out[1 << 14], head[1 << 14];
    CHECK_INT(kt_cli_run_out(out, sizeof out, "replay -q --top 1 --format csv %s", trace), 0);
    CHECK(strstr(out, "\n1,aten::addmm,0,48,headroom,GEMM,") != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "replay -q --top 1 --format csv --device-spec %s %s", spec, trace), 0);
    CHECK(strstr(out, "\n1,aten::layer_norm,0,28,headroom,Normalization,") != NULL);
    CHECK_INT(kt_cli_run_out(head, sizeof head, "perf -q --table headroom --format csv --device-spec %s %s", spec,
                             trace), 0);
    CHECK(strstr(head, "\n1,aten::layer_norm,Normalization,") != NULL);
    /* a spec that cannot be used is a usage error, as for perf */
    CHECK_INT(kt_cli_run_out(out, sizeof out, "replay -q --top 1 --device-spec /nonexistent/spec.json %s", trace), 2);
    unlink(spec);
}
