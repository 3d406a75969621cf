/* test_info.c — `kineta info`: the tables and the exact JSON shape on a
 * hand-built two-rank trace.                                              */
#include "test.h"
#include "fixture.h"
#include "table/table.h"
#include "../programs/cli.h"

#include <stdlib.h>

extern const cli_command cmd_info;

static kt_trace *info_fixture(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    r->world_size = 2;
    r->device_type = KT_DEV_CUDA;
    r->device_names = malloc(sizeof *r->device_names);
    r->device_names[r->ndevices++] = kt_strtab_intern(t->strs, "NVIDIA A100", 11);
    fx_event(t, r, 'M', "", "process_name", 0, -1, 100, 0, -1, -1);
    fx_event(t, r, 'X', "user_annotation", "ProfilerStep#1", 1000500, 100000, 100, 1, -1, -1);
    fx_event(t, r, 'X', "cpu_op", "aten::mm", 1001000, 5000, 100, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 1002000, 1000, 100, 1, -1, 7);
    fx_event(t, r, 'X', "kernel", "gemm", 1010000, 2500, 0, 7, 7, 7);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy HtoD", 1020000, 1000, 0, 7, 7, -1);
    fx_event(t, r, 's', "ac2g", "ac2g", 1002000, -1, 100, 1, -1, 7);
    fx_event(t, r, 'f', "ac2g", "ac2g", 1010000, -1, 0, 7, -1, 7);
    static const char *const cats[] = { "kernel", "cpu_op", "user_annotation", "gpu_memcpy", "cuda_runtime" };
    r->xcat_id = malloc(5 * sizeof *r->xcat_id);
    r->xcat_count = malloc(5 * sizeof *r->xcat_count);
    for (size_t i = 0; i < 5; i++) {
        r->xcat_id[i] = kt_strtab_intern(t->strs, cats[i], strlen(cats[i]));
        r->xcat_count[i] = 1;
    }
    r->nxcat = 5;
    kt_rank *r1 = fx_rank(t, 1);
    free(r1->file);
    r1->file = strdup("r1.json");
    fx_event(t, r1, 'X', "cpu_op", "aten::add", 3000, 1000, 100, 1, -1, -1);
    kt_diags_add(&t->diags, KT_DIAG_WARNING, "fixture.json", 10, "recovered");
    fx_finish(t);
    return t;
}

static char *print_info_table(const kt_tables *ts, out_format fmt, const char *table)
{
    cli_ctx ctx = { .format = fmt, .table = table };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(cmd_info.print(&ctx, ts, f), 0);
    fclose(f);
    return buf;
}

static char *print_info(const kt_tables *ts, out_format fmt) { return print_info_table(ts, fmt, NULL); }

TEST(info_json_shape)
{
    kt_trace *t = info_fixture();
    kt_tables *ts = NULL;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    char *s = print_info(ts, FMT_JSON);
    CHECK_STR(s,
              "{\"ranks\":[{\"rank\":0,\"world_size\":2,\"file\":\"fixture.json\",\"device_type\":\"CUDA\","
              "\"devices\":[\"NVIDIA A100\"],\"format\":\"Kineto JSON\",\"profiler\":\"PyTorch profiler\",\"events\":{\"total\":8,\"loaded\":8,"
              "\"by_ph\":{\"M\":1,\"X\":5,\"f\":1,\"s\":1},"
              "\"complete_by_cat\":{\"cpu_op\":1,\"cuda_runtime\":1,\"gpu_memcpy\":1,\"kernel\":1,\"user_annotation\":1}},"
              "\"gpu_streams\":[{\"device\":0,\"stream\":7,\"events\":2,\"kernels\":1,\"memcpy\":1,\"memset\":0,"
              "\"sync\":0,\"span_us\":[1010,1021]}],"
              "\"steps\":[{\"side\":\"cpu\",\"step\":1,\"device\":null,\"ts_us\":1000.5,\"dur_us\":100}],"
              "\"launch_apis\":[{\"name\":\"cudaLaunchKernel\",\"calls\":1,\"gpu_events\":1}],"
              "\"span_us\":[1000.5,1100.5],\"warnings\":1},\n"
              "{\"rank\":1,\"world_size\":null,\"file\":\"r1.json\",\"device_type\":\"unknown\",\"devices\":[],"
              "\"format\":\"Kineto JSON\",\"profiler\":\"PyTorch profiler\","
              "\"events\":{\"total\":1,\"loaded\":1,\"by_ph\":{\"X\":1},\"complete_by_cat\":{}},"
              "\"gpu_streams\":[],\"steps\":[],\"launch_apis\":[],\"span_us\":[3,4],\"warnings\":0}]}\n");
    free(s);
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(info_tables_and_rank_selection)
{
    kt_trace *t = info_fixture();
    kt_tables *ts = NULL;
    int only1 = 1;
    kt_rank_sel sel = { &only1, 1 };
    CHECK_INT(kt_info(t, &sel, &ts), KT_OK);
    const kt_table *ranks = kt_tables_find(ts, "ranks");
    CHECK_INT(kt_table_nrows(ranks), 1);
    CHECK_INT(kt_table_int(ranks, 0, 0), 1);
    CHECK_INT(kt_table_nrows(kt_tables_find(ts, "streams")), 0);
    char *s = print_info(ts, FMT_TABLE);
    CHECK(strstr(s, "rank 1  r1.json") != NULL);
    CHECK(strstr(s, "span      1 us (3 .. 4 us)") != NULL);
    free(s);
    kt_tables_free(ts);

    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    const kt_table *steps = kt_tables_find(ts, "steps");
    CHECK_INT(kt_table_nrows(steps), 1);
    CHECK_INT(kt_table_int(steps, 0, (size_t)kt_table_col_index(steps, "ts_ns")), 1000500);
    s = print_info(ts, FMT_TABLE);
    CHECK(strstr(s, "streams device 0 stream 7: 1 kernels, 1 memcpy, 0 memset, 0 sync") != NULL);
    CHECK(strstr(s, "launches cudaLaunchKernel: 1 calls, 1 GPU events") != NULL);
    free(s);
    s = print_info_table(ts, FMT_CSV, "steps");
    CHECK_STR(s, "rank,side,step,ts_ns,dur_ns,device\n0,cpu,1,1000500,100000,\n");
    free(s);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Text output names a node's identical GPUs once, with a count. */
TEST(info_text_counts_identical_devices)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    static const char *const names[] = { "NVIDIA A100", "NVIDIA A100", "NVIDIA A100", "NVIDIA H100" };
    r->device_type = KT_DEV_CUDA;
    r->device_names = malloc(4 * sizeof *r->device_names);
    for (size_t i = 0; i < 4; i++)
        r->device_names[r->ndevices++] = kt_strtab_intern(t->strs, names[i], strlen(names[i]));
    fx_event(t, r, 'X', "cpu_op", "aten::add", 3000, 1000, 100, 1, -1, -1);
    fx_finish(t);
    kt_tables *ts = NULL;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    char *s = print_info(ts, FMT_TABLE);
    CHECK(s && strstr(s, "device    CUDA: 3 x NVIDIA A100, NVIDIA H100\n") != NULL);
    free(s);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* deviceProperties entries without a name (ROCm): the text says so
 * instead of printing "ROCm: 7 x " and nothing.                           */
TEST(info_text_unnamed_devices)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    r->device_type = KT_DEV_ROCM;
    r->device_names = malloc(7 * sizeof *r->device_names);
    for (size_t i = 0; i < 7; i++) r->device_names[r->ndevices++] = kt_strtab_intern(t->strs, "", 0);
    fx_event(t, r, 'X', "cpu_op", "aten::add", 3000, 1000, 100, 1, -1, -1);
    fx_finish(t);
    kt_tables *ts = NULL;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    char *s = ts ? print_info(ts, FMT_TABLE) : NULL;
    CHECK(s && strstr(s, "device    ROCm: 7 x (no name in deviceProperties)\n") != NULL);
    free(s);
    kt_tables_free(ts);
    kt_trace_free(t);
}
