/*
 * test_load_robust.c — the loader on small in-memory traces: exact times,
 * typed args, every kind of damage real traces carry (each reported once,
 * at the right byte offset, with the data recovered), and inputs that are
 * not Kineto traces.
 */
#include "fixture.h"
#include "test.h"
#include "load/load_internal.h"
#include "model/index.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* Load a JSON text; NULL (and the diagnostics in *fail) when it fails. */
static kt_trace *load(const char *name, const char *json, kt_status *st, kt_diags **fail)
{
    kt_trace *t = NULL;
    *st = kt_load_buffer(name, json, strlen(json), NULL, &t, fail);
    return t;
}

static kt_trace *load_ok(const char *json)
{
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load("mem.json", json, &st, &fail);
    CHECK_INT(st, KT_OK);
    kt_diags_free(fail);
    return t;
}

/* The one diagnostic containing text (a failed CHECK when not exactly one). */
static const kt_diag *diag_with(const kt_diags *d, const char *text)
{
    const kt_diag *found = NULL;
    size_t n = 0;
    for (size_t i = 0; i < kt_diags_count(d); i++)
        if (strstr(kt_diags_get(d, i)->message, text)) {
            found = kt_diags_get(d, i);
            n++;
        }
    if (n != 1) kt_test_fail(__FILE__, __LINE__, "%zu diagnostics contain \"%s\"", n, text);
    return found;
}

static int64_t offset_of(const char *json, const char *needle)
{
    const char *p = strstr(json, needle);
    return p ? p - json : -2;
}

static const char *name_of(const kt_trace *t, uint32_t ev)
{
    return kt_strtab_get(t->strs, t->ranks[0]->ev.name[ev]);
}

#define HEAD "{\"schemaVersion\": 1, \"traceEvents\": ["

TEST(load_times_exact_ns)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 4458676983543.183, \"dur\": 0.5},\n"
        "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"op\", \"pid\": 1, \"tid\": \"1890023232\", "
        "\"ts\": 1610366662254362, \"dur\": 4},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e\", \"pid\": 1, \"tid\": 1, \"ts\": 1.5e3, \"dur\": 25E-3},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"r\", \"pid\": 1, \"tid\": 1, \"ts\": 100.0006, \"dur\": -1.25}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_events *e = &t->ranks[0]->ev;
    CHECK_INT(e->n, 4);
    CHECK_INT(e->ts[0], 4458676983543183);
    CHECK_INT(e->dur[0], 500);
    CHECK_INT(e->ts[1], 1610366662254362000);
    CHECK_INT(e->dur[1], 4000);
    CHECK_INT(e->ts[2], 1500000);
    CHECK_INT(e->dur[2], 25);
    CHECK_INT(e->ts[3], 100001); /* 100000.6 ns rounded */
    CHECK_INT(e->dur[3], -1250);
    CHECK(t->ranks[0]->ns_resolution);
    const kt_diag *d = diag_with(kt_trace_diags(t), "sub-nanosecond");
    if (d) CHECK_INT(d->offset, offset_of(json, "100.0006"));
    /* legacy category normalized, raw category counted as written */
    CHECK_STR(kt_strtab_get(t->strs, e->cat[1]), "cpu_op");
    CHECK_INT(e->kind[1], KT_K_CPU_OP);
    CHECK(kt_id_is_str(kt_event_tid(t->ranks[0], 1)));
    CHECK_STR(kt_strtab_get(t->strs, kt_id_str(kt_event_tid(t->ranks[0], 1))), "1890023232");
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->nxcat, 3);
    for (size_t i = 0; i < r->nxcat; i++)
        if (!strcmp(kt_strtab_get(t->strs, r->xcat_id[i]), "Operator")) CHECK_INT(r->xcat_count[i], 1);
    kt_trace_free(t);
}

TEST(load_integer_times_are_not_ns_resolution)
{
    kt_trace *t = load_ok(HEAD "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 5, \"dur\": 1}]}");
    if (!t) return;
    CHECK(!t->ranks[0]->ns_resolution);
    CHECK_INT(t->ranks[0]->ev.ts[0], 5000);
    kt_trace_free(t);
}

TEST(load_typed_args_kernel_and_launch)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5,\n"
        " \"args\": {\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 42,\n"
        "  \"registers per thread\": 128, \"shared memory\": 4096, \"blocks per SM\": 0.5,\n"
        "  \"warps per SM\": 2, \"grid\": [3, 2, 1], \"block\": [128, 1, 1],\n"
        "  \"est. achieved occupancy %\": 25, \"External id\": 9, \"Unknown thing\": {\"a\": [1, 2]}}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"pid\": 5, \"tid\": 5,\n"
        " \"ts\": 8, \"dur\": 1, \"args\": {\"kernel\": \"gemm\", \"cid\": 107, \"correlation\": 42, \"stream\": \"0x0\"}},\n"
        "{\"args\": {\"Collective name\": \"allreduce\", \"In msg nelems\": 1024, \"dtype\": \"Float\",\n"
        "  \"Process Group Ranks\": [0, 1], \"In split size\": [], \"Group size\": 2, \"Rank\": 1},\n"
        " \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"nccl\", \"pid\": 0, \"tid\": 8, \"ts\": 20, \"dur\": 5}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    const kt_events *e = &r->ev;
    CHECK_INT(e->n, 3);
    CHECK_INT(kt_ev_stream(e, 0), 7);
    CHECK_INT(e->corr[0], 42);
    CHECK_INT(e->ext_id[0], 9);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_GRID_X, -1), 3);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_GRID_Y, -1), 2);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_BLOCK_X, -1), 128);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_REGISTERS_PER_THREAD, -1), 128);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_CONTEXT, -1), 1);
    CHECK_NEAR(kt_event_arg_float(r, 0, KT_ARG_BLOCKS_PER_SM, -1), 0.5, 1e-12);
    const kt_arg *occ = kt_event_arg(r, 0, KT_ARG_OCCUPANCY_PCT);
    CHECK(occ && occ->type == KT_ARGT_FLOAT && occ->v.f == 25.0);
    CHECK_INT(kt_ev_stream(e, 1), -1); /* ROCm "0x0" */
    CHECK_INT(e->corr[1], 42);
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 1, KT_ARG_KERNEL)), "gemm");
    CHECK_INT(kt_event_arg_int(r, 1, KT_ARG_CID, -1), 107);
    /* args before ph/cat: parsed after the event's end */
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 2, KT_ARG_COLLECTIVE_NAME)), "allreduce");
    CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_IN_MSG_NELEMS, -1), 1024);
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 2, KT_ARG_PG_RANKS)), "[0, 1]");
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 2, KT_ARG_IN_SPLIT_SIZE)), "[]");
    CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_RANK, -1), 1);
    CHECK_INT(e->kind[2], KT_K_KERNEL);
    /* raw args text range */
    CHECK_INT(kt_args_off(e, 0), offset_of(json, "{\"queued\""));
    CHECK_INT(kt_args_len(e, 0), offset_of(json, "}},\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\"") + 1 -
                                  offset_of(json, "{\"queued\""));
    CHECK_INT(kt_diags_count(kt_trace_diags(t)), 1); /* only: no rank */
    kt_trace_free(t);
}

/* The raw args' place is one word: offset and length at their limits
 * come back as they went in.                                            */
TEST(args_at_packs_offset_and_length)
{
    uint64_t at = kt_args_at(KT_ARGS_OFF_MAX, KT_ARGS_LEN_MAX);
    CHECK_INT(kt_args_at_off(at), KT_ARGS_OFF_MAX);
    CHECK_INT(kt_args_at_len(at), KT_ARGS_LEN_MAX);
    CHECK_INT(KT_ARGS_LEN_MAX, 16777215);
    CHECK_INT(KT_ARGS_OFF_MAX, 1099511627775LL);
    at = kt_args_at(123456789012, 2);
    CHECK_INT(kt_args_at_off(at), 123456789012);
    CHECK_INT(kt_args_at_len(at), 2);
}

/* An args object of 16 MiB or more does not fit the length's 24 bits: the
 * event keeps its typed args but no raw text, the loader says where, and
 * the next event's raw args are kept as usual.                          */
TEST(load_args_of_16_mib_keep_typed_args_and_say_so)
{
    const size_t big = (size_t)16 << 20;
    const char *head = HEAD "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
                            "\"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 42, \"note\": \"";
    const char *tail = "\"}},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
                       "\"ts\": 20, \"dur\": 5, \"args\": {\"stream\": 7}}\n]}";
    size_t nh = strlen(head), nt = strlen(tail);
    char *json = malloc(nh + big + nt + 1);
    CHECK(json != NULL);
    if (!json) return;
    memcpy(json, head, nh);
    memset(json + nh, 'a', big);
    memcpy(json + nh + big, tail, nt + 1);
    kt_trace *t = load_ok(json);
    if (t) {
        const kt_events *e = &t->ranks[0]->ev;
        CHECK_INT(e->n, 2);
        CHECK_INT(kt_ev_stream(e, 0), 7);
        CHECK_INT(e->corr[0], 42);
        CHECK_INT(e->args_at[0], 0);
        CHECK_INT(kt_args_off(e, 1), offset_of(json + nh + big, "{\"stream\": 7}}\n]}") + (int64_t)(nh + big));
        CHECK_INT(kt_args_len(e, 1), 13);
        const kt_diag *d = diag_with(kt_trace_diags(t), "args object of 16 MiB or more");
        if (d) CHECK_INT(d->offset, offset_of(json, "{\"stream\": 7, \"correlation\""));
        kt_trace_free(t);
    }
    free(json);
}

/* Identical typed args are stored once: the kernels of one shape share a
 * run (60 % of a real trace's arg bytes), each event still reads its own
 * values, and a run differing in one value (or one string) is its own. */
TEST(load_identical_arg_runs_are_shared)
{
#define KERNEL(ts, grid, ext) \
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": " ts \
    ", \"dur\": 1, \"args\": {\"External id\": " ext ", \"device\": 0, \"grid\": [" grid ", 1, 1], " \
    "\"block\": [128, 1, 1], \"registers per thread\": 32}},\n"
    const char *json = HEAD
        KERNEL("10", "4", "1")
        KERNEL("20", "4", "2")
        KERNEL("30", "8", "3")
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
        " \"ts\": 5, \"dur\": 1, \"args\": {\"kernel\": \"k\", \"cbid\": 211}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"pid\": 1, \"tid\": 1,"
        " \"ts\": 6, \"dur\": 1, \"args\": {\"kernel\": \"other\", \"cbid\": 211}},\n"
        KERNEL("40", "4", "4")
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
        " \"ts\": 7, \"dur\": 1, \"args\": {\"kernel\": \"k\", \"cbid\": 211}}\n"
        "]}";
#undef KERNEL
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    const kt_events *e = &r->ev;
    CHECK_INT(e->n, 7);
    CHECK_INT(e->nargs[0], 8); /* device, grid x3, block x3, registers */
    CHECK_INT(e->argi[1], e->argi[0]);
    CHECK_INT(e->argi[5], e->argi[0]);
    CHECK(e->argi[2] != e->argi[0]); /* grid 8 */
    CHECK_INT(e->argi[6], e->argi[3]);
    CHECK(e->argi[4] != e->argi[3]); /* another kernel name */
    CHECK_INT(r->nargs, 8 + 8 + 2 + 2);
    CHECK_INT(e->ext_id[1], 2); /* columns stay per event */
    CHECK_INT(kt_event_arg_int(r, 1, KT_ARG_GRID_X, -1), 4);
    CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_GRID_X, -1), 8);
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 4, KT_ARG_KERNEL)), "other");
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 6, KT_ARG_KERNEL)), "k");
    kt_trace_free(t);
}

/* Correlation, External id and flow ids past 32 bits (roctracer ids are
 * 64-bit) are kept exactly: the 32-bit columns refer to the rank's table of
 * big ids, equal ids stay equal (launch links, flow matching) and each
 * column value has its original's sign (corr >= 0 means "has one").       */
TEST(load_ids_beyond_32_bits_keep_value_sign_and_links)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 5, \"tid\": 5,"
        " \"ts\": 8, \"dur\": 1, \"args\": {\"correlation\": 4294967301, \"External id\": -5000000000}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5,"
        " \"args\": {\"stream\": 7, \"correlation\": 4294967301, \"External id\": 1073741824}},\n"
        "{\"ph\": \"s\", \"id\": 1099511627776, \"pid\": 5, \"tid\": 5, \"ts\": 8, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
        "{\"ph\": \"f\", \"id\": 1099511627776, \"pid\": 0, \"tid\": 7, \"ts\": 10, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemsetAsync\", \"pid\": 5, \"tid\": 5,"
        " \"ts\": 20, \"dur\": 1, \"args\": {\"correlation\": -1073741825}}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    const kt_events *e = &r->ev;
    CHECK_INT(kt_event_corr(r, 0), 4294967301);
    CHECK_INT(kt_event_corr(r, 1), 4294967301);
    CHECK_INT(kt_event_ext_id(r, 0), -5000000000);
    CHECK_INT(kt_event_ext_id(r, 1), 1073741824);
    CHECK_INT(kt_event_corr(r, 2), 1099511627776);
    CHECK_INT(kt_event_corr(r, 4), -1073741825);
    CHECK(e->corr[0] >= 0 && e->corr[0] == e->corr[1] && e->ext_id[1] >= 0);
    CHECK(e->ext_id[0] < 0 && e->ext_id[0] != -1 && e->corr[4] < 0 && e->corr[4] != -1);
    CHECK_INT(kt_gpu_launcher(r, 1), 0);
    CHECK_INT(kt_index_flows(r), KT_OK);
    CHECK_INT(r->idx->nflows, 1);
    if (r->idx->nflows) CHECK_INT(r->idx->flows[0].end, 3);
    kt_trace_free(t);
}

TEST(load_flows_counters_metadata_instants)
{
    const char *json = HEAD
        "{\"ph\": \"s\", \"id\": 42, \"pid\": 5, \"tid\": 5, \"ts\": 8, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
        "{\"ph\": \"f\", \"id\": \"0x2b\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"cat\": \"async\", \"name\": \"launch\", \"bp\": \"e\"},\n"
        "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 11, \"args\": {\"Allocated\": 12, \"Frac\": 0.25, \"Tag\": \"x\"}},\n"
        "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"main\"}},\n"
        "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 1, \"pid\": 1, \"tid\": 0, \"args\": {\"sort_index\": 5}},\n"
        "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1,"
        " \"ts\": 12, \"args\": {\"Total Allocated\": 4096, \"Bytes\": -512}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"k\", \"pid\": 1, \"tid\": 1, \"ts\": 13, \"dur\": 1,"
        " \"args\": {\"smsp__sass_inst_executed.sum\": 1234, \"dram__bytes.sum\": 7.5}}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    const kt_events *e = &r->ev;
    CHECK_INT(e->n, 7);
    CHECK_INT(r->total_events, 7);
    CHECK_INT(e->kind[0], KT_K_FLOW_START);
    CHECK_INT(e->corr[0], 42);
    CHECK_INT(e->kind[1], KT_K_FLOW_END);
    CHECK_INT(e->corr[1], 43);
    CHECK_STR(kt_strtab_get(t->strs, e->cat[1]), "ac2g");
    uint32_t alloc = kt_strtab_find(t->strs, "Allocated", 9), frac = kt_strtab_find(t->strs, "Frac", 4);
    CHECK_INT(kt_event_arg_int(r, 2, KT_ARG_DYNAMIC + alloc, -1), 12);
    CHECK_NEAR(kt_event_arg_float(r, 2, KT_ARG_DYNAMIC + frac, -1), 0.25, 0);
    CHECK_INT(e->kind[3], KT_K_METADATA);
    CHECK_INT(e->ts[3], 0);
    CHECK_STR(kt_strtab_get(t->strs, kt_event_arg_str(r, 3, KT_ARG_META_NAME)), "main");
    CHECK_INT(kt_event_arg_int(r, 4, KT_ARG_META_SORT_INDEX, -1), 5);
    uint32_t bytes = kt_strtab_find(t->strs, "Bytes", 5);
    CHECK_INT(kt_event_arg_int(r, 5, KT_ARG_DYNAMIC + bytes, 0), -512);
    uint32_t sass = kt_strtab_find(t->strs, "smsp__sass_inst_executed.sum", 28);
    CHECK_INT(kt_event_arg_int(r, 6, KT_ARG_DYNAMIC + sass, -1), 1234);
    CHECK_INT(r->by_ph['s'], 1);
    CHECK_INT(r->by_ph['M'], 2);
    CHECK_INT(r->by_ph['i'], 1);
    CHECK_INT(r->by_ph['C'], 1);
    CHECK_INT(r->device_type, KT_DEV_CPU_ONLY);
    kt_trace_free(t);
}

TEST(load_metadata_before_and_after_events)
{
    const char *json =
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [ {\"id\": 0, \"name\": \"NVIDIA A100\"},"
        " {\"name\": \"NVIDIA H100\", \"id\": 1} ],\n"
        "  \"traceEvents\": [ {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 1},"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1} ],\n"
        "  \"distributedInfo\": {\"world_size\":4,\"rank\":3,\"backend\":\"nccl\"},\n"
        "  \"traceName\": \"t.json\", \"baseTimeNanoseconds\": 1711964646000000000, \"cuda_runtime_version\": 12010\n}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->rank, 3);
    CHECK_INT(r->world_size, 4);
    CHECK_STR(kt_strtab_get(t->strs, r->backend), "nccl");
    CHECK_INT(r->schema_version, 1);
    CHECK(r->has_base_time);
    CHECK_INT(r->base_time_ns, 1711964646000000000);
    CHECK_INT(r->ndevices, 2);
    CHECK_STR(kt_strtab_get(t->strs, r->device_names[1]), "NVIDIA H100");
    CHECK_INT(r->device_type, KT_DEV_CUDA);
    CHECK(r->meta_json[0] == '{' && r->meta_json[strlen(r->meta_json) - 1] == '}');
    CHECK(strstr(r->meta_json, "\"traceName\": \"t.json\""));
    CHECK(strstr(r->meta_json, "\"cuda_runtime_version\": 12010"));
    CHECK(strstr(r->meta_json, "\"schemaVersion\": 1, \"deviceProperties\": ["));
    CHECK(!strstr(r->meta_json, "traceEvents"));
    CHECK_INT(kt_diags_count(kt_trace_diags(t)), 0);
    kt_trace_free(t);
}

TEST(load_damage_bigint_utf8_control_quotes)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"big\", \"pid\": 18446744073709551616, \"tid\": 1, \"ts\": 1, \"dur\": 1,"
        " \"args\": {\"correlation\": 99999999999999999999, \"Sequence number\": 18446744073709551615}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"bad\xff\xfeutf8\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"tab\there\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to(\"x\") q\", \"pid\": 1, \"tid\": 1, \"ts\": 4, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"esc \\u00e9\\ud83d\\ude00\\\"\\n\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    const kt_diags *d = kt_trace_diags(t);
    CHECK_INT(r->ev.n, 5);
    /* pid beyond int64 kept as text; correlation beyond int64 ignored; arg stored as float */
    CHECK(kt_id_is_str(kt_event_pid(r, 0)));
    CHECK_STR(kt_strtab_get(t->strs, kt_id_str(kt_event_pid(r, 0))), "18446744073709551616");
    CHECK_INT(r->ev.corr[0], -1);
    CHECK_NEAR(kt_event_arg_float(r, 0, KT_ARG_SEQUENCE_NUMBER, 0), 18446744073709551615.0, 1e4);
    const kt_diag *g = diag_with(d, "beyond int64");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, "18446744073709551616"));
        CHECK(strstr(g->message, "3 times"));
    }
    CHECK_STR(name_of(t, 1), "bad\xEF\xBF\xBD\xEF\xBF\xBDutf8");
    g = diag_with(d, "invalid UTF-8");
    if (g) CHECK_INT(g->offset, offset_of(json, "bad\xff"));
    CHECK_STR(name_of(t, 2), "tab\there");
    g = diag_with(d, "control character");
    if (g) CHECK_INT(g->offset, offset_of(json, "tab\t"));
    CHECK_STR(name_of(t, 3), "aten::to(\"x\") q");
    g = diag_with(d, "unescaped quote");
    if (g) CHECK_INT(g->offset, offset_of(json, "aten::to("));
    CHECK_STR(name_of(t, 4), "esc \xC3\xA9\xF0\x9F\x98\x80\"\n");
    kt_trace_free(t);
}

TEST(load_damage_trailing_commas_and_syntax_error)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1,},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"ts\": 2, \"dur\": 1 BROKEN},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c\", \"ts\": 3, \"dur\": 1}\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d\", \"ts\": 4, \"dur\": 1},\n"
        "],}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_diags *d = kt_trace_diags(t);
    CHECK_INT(t->ranks[0]->ev.n, 3);
    CHECK_STR(name_of(t, 0), "a");
    CHECK_STR(name_of(t, 1), "c");
    CHECK_STR(name_of(t, 2), "d");
    const kt_diag *g = diag_with(d, "trailing comma");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, ",},") );
        CHECK(strstr(g->message, "3 times"));
    }
    g = diag_with(d, "invalid JSON in traceEvents");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, "BROKEN"));
        char want[128];
        snprintf(want, sizeof want, "skipped bytes %lld-%lld", (long long)offset_of(json, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\""),
                 (long long)offset_of(json, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"c\""));
        CHECK(strstr(g->message, want));
    }
    g = diag_with(d, "missing ','");
    if (g) CHECK_INT(g->offset, offset_of(json, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d\""));
    kt_trace_free(t);
}

TEST(load_truncated_file_keeps_complete_events)
{
    const char *full = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"cut here";
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load("rank-2.json", full, &st, &fail);
    CHECK_INT(st, KT_OK);
    if (!t) {
        kt_diags_free(fail);
        return;
    }
    CHECK_INT(t->ranks[0]->ev.n, 2);
    CHECK_INT(t->ranks[0]->rank, 2);
    const kt_diag *g = diag_with(kt_trace_diags(t), "file ends inside traceEvents");
    if (g) {
        CHECK_INT(g->offset, offset_of(full, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"cut"));
        CHECK_STR(g->file, "rank-2.json");
        CHECK_INT(g->level, KT_DIAG_WARNING);
    }
    kt_trace_free(t);
    /* cut between events and after the list */
    const char *cuts[] = { HEAD "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},",
                           HEAD "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}],\n\"traceName\": \"x" };
    for (size_t i = 0; i < 2; i++) {
        t = load("x.json", cuts[i], &st, &fail);
        CHECK_INT(st, KT_OK);
        if (t) CHECK_INT(t->ranks[0]->ev.n, 1);
        if (t) diag_with(kt_trace_diags(t), "file ends");
        kt_trace_free(t);
    }
}

TEST(load_not_a_kineto_trace)
{
    const char *inputs[] = { "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1}]}", "[[1, 2, 3, \"x\"]]", "{}", "",
                             "{\"a\": 1", "garbage", "{\"traceEvents\": {}}" };
    const char *why[] = { "execution trace", "list", "no traceEvents", "empty", "traceEvents", "not JSON",
                          "not a list" };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load("bad.json", inputs[i], &st, &fail);
        CHECK_INT(st, KT_EINPUT);
        CHECK(t == NULL);
        CHECK_INT(kt_diags_count(fail), 1);
        const kt_diag *d = kt_diags_get(fail, 0);
        if (d && (!strstr(d->message, "not a Kineto trace") || !strstr(d->message, why[i])))
            kt_test_fail(__FILE__, __LINE__, "input %zu: '%s'", i, d->message);
        if (d) CHECK_INT(d->level, KT_DIAG_ERROR);
        kt_diags_free(fail);
    }
}

TEST(load_rank_from_distributed_info_any_spacing_and_order)
{
    const char *inputs[] = {
        "{\"distributedInfo\":{\"rank\":5},\"traceEvents\":[]}",
        "{\"distributedInfo\" : { \"backend\" : \"nccl\" , \"rank\" :\n 5 }, \"traceEvents\": []}",
        "{\"traceEvents\": [], \"distributedInfo\": {\"world_size\": 8, \"rank\": 5}}",
    };
    for (size_t i = 0; i < 3; i++) {
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load("rank-1.json", inputs[i], &st, &fail); /* JSON beats the name */
        CHECK_INT(st, KT_OK);
        if (t) CHECK_INT(t->ranks[0]->rank, 5);
        if (t) CHECK_INT(kt_diags_count(kt_trace_diags(t)), 0);
        kt_trace_free(t);
        kt_diags_free(fail);
    }
}

TEST(load_rank_from_file_name)
{
    const char *names[] = { "dir/rank-3.json", "rank_3.pt.trace.json", "job.rank3.json", "worker3.json.gz",
                            "Rank-3.Apr_03.json", "rank_non_gpu3.json" };
    const int want[] = { 3, 3, 3, 3, 3, 0 };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_INT(kt_rank_from_filename(names[i]) < 0 ? 0 : kt_rank_from_filename(names[i]), want[i]);
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load(names[i], "{\"traceEvents\": []}", &st, &fail);
        if (t) CHECK_INT(t->ranks[0]->rank, want[i]);
        if (t && want[i] == 0) diag_with(kt_trace_diags(t), "assuming rank 0");
        kt_trace_free(t);
        kt_diags_free(fail);
    }
}

TEST(load_non_object_entries_are_counted_and_reported)
{
    const char *json = HEAD "42, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}, [1], \"s\"]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->ev.n, 1);
    CHECK_INT(r->total_events, 4);
    CHECK_INT(r->by_ph[0], 3); /* count_events.py's "-" */
    CHECK_INT(r->by_ph['X'], 1);
    const kt_diag *g = diag_with(kt_trace_diags(t), "not an object");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, "42"));
        CHECK(strstr(g->message, "3 times"));
    }
    kt_trace_free(t);
}

TEST(load_huge_float_args_do_not_overflow)
{
    const char *json = HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1,"
                       " \"args\": {\"correlation\": 1e300, \"device\": 1e999, \"context\": -1e19}}]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->ev.corr[0], -1);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_DEVICE, -7), -7);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_CONTEXT, -7), -7);
    CHECK(kt_event_arg_float(r, 0, KT_ARG_CONTEXT, 0) == -1e19);
    kt_trace_free(t);
}

/* Long float args are rounded once, exactly as Python's float(), and the
 * process locale's radix character (',' under de_DE) does not matter.    */
static void check_long_floats(void)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5,\n"
        " \"args\": {\"memory bandwidth (GB/s)\": 123.45678901234567891, \"blocks per SM\": 1.2345678901234567e-5,\n"
        "  \"warps per SM\": 98765432109876543.21e-10}}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK(kt_event_arg_float(r, 0, KT_ARG_MEMORY_BW_GBPS, -1) == 123.45678901234567891);
    CHECK(kt_event_arg_float(r, 0, KT_ARG_BLOCKS_PER_SM, -1) == 1.2345678901234567e-5);
    CHECK(kt_event_arg_float(r, 0, KT_ARG_WARPS_PER_SM, -1) == 98765432109876543.21e-10);
    kt_trace_free(t);
}

TEST(load_long_floats_exact_in_any_locale)
{
    check_long_floats();
    if (!fx_comma_locale(LC_NUMERIC)) {
        kt_test_skip("no locale with a decimal comma installed");
        return;
    }
    check_long_floats();
    setlocale(LC_NUMERIC, "C");
}

/* Negative durations: kept as written, one warning per file with the
 * count (3) and the first one's byte offset (its dur value).             */
TEST(load_negative_durations_warned_once)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"fine\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 0},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"back\", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": -2},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b2\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": -0.001},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b3\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": -7.5}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_events *e = &t->ranks[0]->ev;
    CHECK_INT(e->dur[1], -2000);
    CHECK_INT(e->dur[2], -1);
    CHECK_INT(e->dur[3], -7500);
    const kt_diag *g = diag_with(kt_trace_diags(t), "negative dur");
    if (g) {
        CHECK_INT(g->level, KT_DIAG_WARNING);
        CHECK_INT(g->offset, offset_of(json, "-2}"));
        CHECK(strstr(g->message, "\"back\""));
        CHECK(strstr(g->message, "dur -2:"));
        CHECK(strstr(g->message, "3 times"));
    }
    kt_trace_free(t);
}

static int64_t info_warnings(const kt_trace *t)
{
    kt_tables *ts = NULL;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    const kt_table *r = ts ? kt_tables_find(ts, "ranks") : NULL;
    long c = r ? kt_table_col_index(r, "warnings") : -1;
    int64_t n = c >= 0 ? kt_table_int(r, 0, (size_t)c) : -1;
    kt_tables_free(ts);
    return n;
}

/* pid 4242 holds 3 CPU ops and 2 kernels: the kernels are misplaced (GPU
 * events on a CPU pid, first "k1"); pid 0 holds 3 GPU events and 1 CPU
 * op: the op is.  Runtime calls and Python functions on pid 0 are not
 * CPU ops (real traces put them there).  info counts the two warnings.  */
TEST(load_gpu_events_on_cpu_pid_and_back_warned)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op1\", \"pid\": 4242, \"tid\": 1, \"ts\": 1, \"dur\": 9},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 4242, \"tid\": 7, \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a\", \"pid\": 4242, \"tid\": 1, \"ts\": 3, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"m\", \"pid\": 4242, \"tid\": 7, \"ts\": 4, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op2\", \"pid\": 4242, \"tid\": 1, \"ts\": 5, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 6, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"s\", \"pid\": 0, \"tid\": 7, \"ts\": 7, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"lost\", \"pid\": 0, \"tid\": 7, \"ts\": 8, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\", \"pid\": 0, \"tid\": 7, \"ts\": 9, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"threading.py\", \"pid\": 0, \"tid\": 0, \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 0, \"ts\": 1, \"dur\": 1}\n"
        "]}";
    kt_trace *t = load_ok(json);
    if (!t) return;
    const kt_diags *d = kt_trace_diags(t);
    const kt_diag *g = diag_with(d, "GPU event \"");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, "2, \"dur\": 1},\n{\"ph\": \"X\", \"cat\": \"user_annotation\""));
        CHECK(strstr(g->message, "\"k1\""));
        CHECK(strstr(g->message, "pid 4242, which holds CPU ops: taken as the work of device 4242"));
        CHECK(strstr(g->message, "2 times"));
    }
    g = diag_with(d, "CPU op \"");
    if (g) {
        CHECK_INT(g->offset, offset_of(json, "8, \"dur\": 1},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\""));
        CHECK(strstr(g->message, "\"lost\""));
        CHECK(strstr(g->message, "pid 0, which holds GPU events: kept as CPU work of pid 0"));
        CHECK(!strstr(g->message, "times"));
    }
    CHECK_INT(info_warnings(t), 2); /* the two; no rank in a lone file is a note, not a warning */
    kt_trace_free(t);
}

/* A string pid is named as written; a trace that keeps CPU and GPU pids
 * apart has no such warning.                                             */
TEST(load_pid_roles_string_pid_and_clean_trace)
{
    const char *mixed = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": \"Spans\", \"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": \"Spans\", \"tid\": 1, \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": \"Spans\", \"tid\": 7, \"ts\": 3, \"dur\": 1}\n"
        "]}";
    kt_trace *t = load_ok(mixed);
    if (t) {
        const kt_diag *g = diag_with(kt_trace_diags(t), "GPU event \"");
        if (g) CHECK(strstr(g->message, "pid \"Spans\""));
        kt_trace_free(t);
    }
    const char *clean = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 10, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 3, \"dur\": 1}\n"
        "]}";
    t = load_ok(clean);
    if (t) {
        for (size_t i = 0; i < kt_diags_count(kt_trace_diags(t)); i++)
            CHECK(!strstr(kt_diags_get(kt_trace_diags(t), i)->message, "is on pid"));
        kt_trace_free(t);
    }
}
