/*
 * test_read_rocprof_json.c — rocprofv3 JSON into the model: a hand-written
 * file with every record kind (exact names, devices, times, correlation
 * and flows), damaged copies of it, and the shared MI350X sample against
 * counts Python computes from the same file.
 */
#include "test.h"
#include "read_check.h"
#include "fixture.h"
#include "cli_run.h"
#include "model/index.h"
#include "model/model_build.h"
#include "load/load_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char ROCPROF[] =
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77,\"node\":{\"hostname\":\"h1\"}},"
    "\"agents\":[{\"id\":{\"handle\":500},\"type\":1,\"name\":\"cpu\"},"
    "{\"id\":{\"handle\":501},\"type\":2,\"gpu_index\":1,\"product_name\":\"AMD Instinct MI300X\"},"
    "{\"id\":{\"handle\":502},\"type\":2,\"gpu_index\":0,\"product_name\":\"AMD Instinct MI300X\"}],"
    "\"strings\":{\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},"
    "{\"kind\":\"HIP_RUNTIME_API\",\"operations\":[\"hipNone\",\"hipLaunchKernel\",\"hipMemcpyAsync\"]},"
    "{\"kind\":\"KERNEL_DISPATCH\",\"operations\":[\"NONE\",\"ENQUEUE\",\"COMPLETE\"]},"
    "{\"kind\":\"MEMORY_COPY\",\"operations\":[\"MEMORY_COPY_NONE\",\"MEMORY_COPY_HOST_TO_DEVICE\"]},"
    "{\"kind\":\"MARKER_CORE_API\",\"operations\":[\"roctxMarkA\",\"roctxRangePushA\"]}],"
    "\"marker_api\":[{\"key\":9,\"value\":\"step \\\"1\\\"\"}]},"
    "\"kernel_symbols\":[{\"kernel_id\":0,\"formatted_kernel_name\":\"\"},"
    "{\"kernel_id\":1,\"kernel_name\":\"_Z4gemmv.kd\",\"formatted_kernel_name\":\"gemm()\"}],"
    "\"buffer_records\":{"
    "\"kernel_dispatch\":[{\"kind\":2,\"operation\":2,\"thread_id\":78,\"correlation_id\":{\"internal\":5,\"external\":0},"
    "\"start_timestamp\":1000000123,\"end_timestamp\":1000002123,\"dispatch_info\":{\"agent_id\":{\"handle\":501},"
    "\"queue_id\":{\"handle\":3},\"kernel_id\":1,\"group_segment_size\":64,\"workgroup_size\":{\"x\":256,\"y\":1,\"z\":1},"
    "\"grid_size\":{\"x\":1024,\"y\":2,\"z\":1}},\"stream_id\":{\"handle\":7}}],"
    "\"memory_copy\":[{\"kind\":3,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":6},"
    "\"start_timestamp\":1000003000,\"end_timestamp\":1000004000,\"src_agent_id\":{\"handle\":500},"
    "\"dst_agent_id\":{\"handle\":502},\"bytes\":4096}],"
    "\"hip_api\":[{\"kind\":1,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":5},"
    "\"start_timestamp\":999990000,\"end_timestamp\":999995000},"
    "{\"kind\":1,\"operation\":2,\"thread_id\":78,\"correlation_id\":{\"internal\":6},"
    "\"start_timestamp\":999996000,\"end_timestamp\":999997000}],"
    "\"marker_api\":[{\"kind\":4,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":9},"
    "\"start_timestamp\":999980000,\"end_timestamp\":1000010000}]}}]}";

static kt_trace *load_text(const char *name, const char *text, size_t len, kt_status *st, kt_diags **fail)
{
    kt_trace *t = NULL;
    *st = kt_load_buffer(name, text, len, NULL, &t, fail);
    return t;
}

/* The first event of kind k named name (KT_NONE if none). */
static uint32_t find(const kt_trace *t, uint8_t k, const char *name)
{
    const kt_rank *r = t->ranks[0];
    for (uint32_t i = 0; i < r->ev.n; i++)
        if (r->ev.kind[i] == k && (!name || (r->ev.name[i] != KT_NONE && !strcmp(kt_strtab_get(t->strs, r->ev.name[i]), name))))
            return i;
    return KT_NONE;
}

TEST(rocprof_json_records_as_kineto_events)
{
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("77_results.json", ROCPROF, sizeof ROCPROF - 1, &st, &fail);
    CHECK_INT(st, KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    char buf[64];
    CHECK_STR(kt_rank_source(r, "kineta_format", buf, sizeof buf), "rocprofv3 JSON");
    CHECK_INT(r->device_type, KT_DEV_ROCM);
    CHECK_INT(r->ndevices, 2);
    uint32_t k = find(t, KT_K_KERNEL, "gemm()");
    CHECK(k != KT_NONE);
    if (k != KT_NONE) {
        CHECK_INT(r->ev.ts[k], 1000000123);
        CHECK_INT(r->ev.dur[k], 2000);
        CHECK_INT(kt_event_pid(r, k), 1); /* agent 501 is gpu_index 1 */
        CHECK_INT(kt_event_tid(r, k), 7);
        CHECK_INT(kt_ev_stream(&r->ev, k), 7);
        CHECK_INT(kt_event_corr(r, k), 5);
        CHECK_INT(kt_event_arg_int(r, k, KT_ARG_GRID_Y, -1), 2);
        CHECK_INT(kt_event_arg_int(r, k, KT_ARG_BLOCK_X, -1), 256);
        CHECK_STR(kt_strtab_get(t->strs, r->ev.cat[k]), "kernel");
    }
    uint32_t m = find(t, KT_K_MEMCPY, "Memcpy HtoD (Host -> Device)");
    CHECK(m != KT_NONE);
    if (m != KT_NONE) {
        CHECK_INT(kt_event_pid(r, m), 0);
        CHECK_INT(kt_event_arg_int(r, m, KT_ARG_BYTES, -1), 4096);
    }
    uint32_t call = find(t, KT_K_RUNTIME, "hipLaunchKernel");
    CHECK(call != KT_NONE);
    if (call != KT_NONE) {
        CHECK_INT(kt_event_pid(r, call), 77);
        CHECK_INT(kt_event_tid(r, call), 78);
        CHECK_INT(kt_event_corr(r, call), 5);
    }
    CHECK(find(t, KT_K_USER_ANNOTATION, "step \"1\"") != KT_NONE);
    CHECK_INT(r->by_ph['s'], 2); /* a flow pair per launched GPU event */
    CHECK_INT(r->by_ph['f'], 2);
    kt_trace_free(t);
}

TEST(rocprof_json_launch_table_links_calls)
{
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("77_results.json", ROCPROF, sizeof ROCPROF - 1, &st, &fail);
    kt_diags_free(fail);
    if (!t) return;
    kt_tables *ts = NULL;
    kt_launch_options o = { .size = sizeof o, .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    CHECK_INT(kt_launch(t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = ts ? kt_tables_get(ts, 0) : NULL;
    CHECK(tb && kt_table_nrows(tb) == 2);
    if (tb && kt_table_nrows(tb) == 2) {
        CHECK_INT(fx_num(tb, 0, "correlation"), 5);
        CHECK_NEAR(fx_num(tb, 0, "launch_delay"), 1000000.123 - 999995.0, 1e-6); /* GPU start - call end */
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Every prefix of the file loads or fails cleanly, naming the file. */
TEST(rocprof_json_truncated_never_crashes)
{
    size_t n = sizeof ROCPROF - 1;
    for (size_t cut = 30; cut < n; cut += 7) {
        kt_status st;
        kt_diags *fail = NULL;
        char *copy = malloc(cut);
        memcpy(copy, ROCPROF, cut);
        kt_trace *t = load_text("cut_results.json", copy, cut, &st, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        if (st == KT_OK) {
            const kt_diags *d = kt_trace_diags(t);
            bool said = false;
            for (size_t i = 0; i < kt_diags_count(d); i++)
                said |= strstr(kt_diags_get(d, i)->message, "cut short") != NULL;
            CHECK(said);
        } else {
            CHECK(kt_diags_count(fail) > 0 && kt_diags_get(fail, 0)->file && strstr(kt_diags_get(fail, 0)->file, "cut_results"));
        }
        kt_trace_free(t);
        kt_diags_free(fail);
        free(copy);
    }
}

/* A file of three dispatches cut at every byte: the records before the cut
 * are kept, and nothing after the break is read as a record of its own
 * (kept + skipped never exceeds the records there).                     */
#define DISPATCH(i)                                                                                                  \
    "{\"kind\":2,\"correlation_id\":{\"internal\":" #i "},\"start_timestamp\":100" #i ",\"end_timestamp\":200" #i \
    ",\"dispatch_info\":{\"agent_id\":{\"handle\":501},\"kernel_id\":1,\"grid_size\":{\"x\":4,\"y\":1,\"z\":1}},"   \
    "\"stream_id\":{\"handle\":7}}"
static const char THREE[] = "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77},\"buffer_records\":{\"kernel_dispatch\":["
                            DISPATCH(1) "," DISPATCH(2) "," DISPATCH(3) "]}}]}";

static long long skipped_records(const kt_diags *d)
{
    long long n = 0;
    for (size_t i = 0; i < kt_diags_count(d); i++) sscanf(kt_diags_get(d, i)->message, "%lld records without", &n);
    return n;
}

TEST(rocprof_json_cut_keeps_records_before_it)
{
    size_t n = sizeof THREE - 1, one = sizeof DISPATCH(1) - 1, first = strstr(THREE, DISPATCH(1)) - THREE;
    for (size_t cut = first; cut < n; cut += 3) {
        kt_status st;
        kt_diags *fail = NULL;
        char *copy = malloc(cut);
        memcpy(copy, THREE, cut);
        kt_trace *t = load_text("cut_results.json", copy, cut, &st, &fail);
        long long whole = 0;
        for (int k = 0; k < 3; k++) whole += first + (size_t)(k + 1) * one + (size_t)k <= cut;
        if (st == KT_OK) {
            int64_t total;
            long long kernels = (long long)rd_count_kind(t->ranks[0], KT_K_KERNEL, &total);
            CHECK(kernels >= whole);
            CHECK(kernels + skipped_records(kt_trace_diags(t)) <= 3);
        } else {
            CHECK(whole == 0);
        }
        kt_trace_free(t);
        kt_diags_free(fail);
        free(copy);
    }
}

/* rocprofv3 writes its tables before buffer_records; records that come
 * first are read once the tables are known (names, devices resolved). */
TEST(rocprof_json_records_before_tables)
{
    static const char doc[] =
        "{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[" DISPATCH(1) "]},"
        "\"metadata\":{\"pid\":77},\"agents\":[{\"id\":{\"handle\":501},\"type\":2,\"gpu_index\":1}],"
        "\"kernel_symbols\":[{\"kernel_id\":1,\"formatted_kernel_name\":\"gemm()\"}]}]}";
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("order_results.json", doc, sizeof doc - 1, &st, &fail);
    CHECK_INT(st, KT_OK);
    uint32_t k = t ? find(t, KT_K_KERNEL, "gemm()") : KT_NONE;
    CHECK(k != KT_NONE);
    if (k != KT_NONE) {
        CHECK_INT(kt_event_pid(t->ranks[0], k), 1);
        CHECK_INT(kt_ev_stream(&t->ranks[0]->ev, k), 7);
        CHECK_INT(t->ranks[0]->ev.ts[k], 1001);
        CHECK_INT(kt_event_arg_int(t->ranks[0], k, KT_ARG_GRID_X, -1), 4);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
}

/* Wrong types everywhere a number or object is expected: loads, no crash. */
TEST(rocprof_json_wrong_types)
{
    static const char *const docs[] = {
        "{\"rocprofiler-sdk-tool\":7}",
        "{\"rocprofiler-sdk-tool\":[1,\"x\",{\"buffer_records\":[]}]}",
        ("{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"start_timestamp\":\"a\","
         "\"end_timestamp\":{}},{\"start_timestamp\":5,\"end_timestamp\":9,\"dispatch_info\":3}]},"
         "\"kernel_symbols\":{\"a\":1},\"agents\":\"none\",\"strings\":[]}]}"),
        ("{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"start_timestamp\":99999999999999999999,"
         "\"end_timestamp\":-1}]},\"kernel_symbols\":[{\"kernel_id\":99999999999}]}]}"),
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load_text("bad_results.json", docs[i], strlen(docs[i]), &st, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        kt_trace_free(t);
        kt_diags_free(fail);
    }
}

/* Kernel symbols read in one walk: a name with escapes or bytes past
 * ASCII is decoded, a plain one used as written, an empty formatted name
 * gives way to the demangled one, and an object member before the name
 * is stepped over.                                                     */
#define DISPATCH_OF(i, k)                                                                                            \
    "{\"kind\":2,\"correlation_id\":{\"internal\":" #i "},\"start_timestamp\":100" #i ",\"end_timestamp\":200" #i \
    ",\"dispatch_info\":{\"agent_id\":{\"handle\":501},\"kernel_id\":" #k "},\"stream_id\":{\"handle\":7}}"
/* A process with these kernel symbols and dispatches. */
#define SYMBOLS_DOC(symbols, dispatches)                                                                             \
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77},\"kernel_symbols\":[" symbols "],"                      \
    "\"buffer_records\":{\"kernel_dispatch\":[" dispatches "]}}]}"
TEST(rocprof_json_kernel_names_decoded_only_when_escaped)
{
    static const char doc[] = SYMBOLS_DOC(
        "{\"kernel_id\":1,\"formatted_kernel_name\":\"void gemm<\\\"t\\\">(float) caf\\u00e9, the long tail\"},"
        "{\"kernel_id\":2,\"formatted_kernel_name\":\"\",\"demangled_kernel_name\":\"void copy<float>(float*, int) plain\"},"
        "{\"kernel_id\":3,\"kernel_name\":\"raw_utf8_\xc3\xb1_kernel_name_that_is_long.kd\"},"
        "{\"kernel_id\":4,\"kernel_address\":{\"handle\":5},\"formatted_kernel_name\":\"short\"}",
        DISPATCH_OF(1, 1) "," DISPATCH_OF(2, 2) "," DISPATCH_OF(3, 3) "," DISPATCH_OF(4, 4));
    static const char *const names[] = { "void gemm<\"t\">(float) caf\xc3\xa9, the long tail",
                                          "void copy<float>(float*, int) plain",
                                          "raw_utf8_\xc3\xb1_kernel_name_that_is_long.kd", "short" };
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("names_results.json", doc, sizeof doc - 1, &st, &fail);
    CHECK_INT(st, KT_OK);
    for (size_t i = 0; t && i < 4; i++) {
        uint32_t k = find(t, KT_K_KERNEL, names[i]);
        CHECK(k != KT_NONE);
        if (k != KT_NONE) CHECK_INT(t->ranks[0]->ev.ts[k], (int64_t)(1001 + i));
    }
    kt_trace_free(t);
    kt_diags_free(fail);
}

/* A kernel's name is read from its symbol when a dispatch first names
 * it: the last symbol of an id wins, kernel_id may follow the names, a
 * kernel never dispatched is not read, one dispatched twice keeps its
 * name, an id without a symbol has no name.                           */
TEST(rocprof_json_kernel_names_read_when_dispatched)
{
    static const char doc[] = SYMBOLS_DOC(
        "{\"kernel_id\":1,\"formatted_kernel_name\":\"first()\"},"
        "{\"formatted_kernel_name\":\"second()\",\"kernel_id\":1},"
        "{\"kernel_id\":2,\"formatted_kernel_name\":\"unused()\"},"
        "{\"kernel_name\":\"after_id()\",\"kernel_id\":3}",
        DISPATCH_OF(1, 1) "," DISPATCH_OF(2, 3) "," DISPATCH_OF(3, 1) "," DISPATCH_OF(4, 9));
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("lazy_results.json", doc, sizeof doc - 1, &st, &fail);
    CHECK_INT(st, KT_OK);
    if (t) {
        const kt_rank *r = t->ranks[0];
        size_t second = 0, after = 0, nameless = 0;
        for (uint32_t i = 0; i < r->ev.n; i++) {
            if (r->ev.kind[i] != KT_K_KERNEL) continue;
            const char *n = r->ev.name[i] == KT_NONE ? NULL : kt_strtab_get(t->strs, r->ev.name[i]);
            second += n && !strcmp(n, "second()");
            after += n && !strcmp(n, "after_id()");
            nameless += !n;
            CHECK(!n || (strcmp(n, "first()") && strcmp(n, "unused()")));
        }
        CHECK_INT(second, 2);
        CHECK_INT(after, 1);
        CHECK_INT(nameless, 1);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
}

/* A document of records text: head, n copies of rec (its %d the record's
 * number), tail.  Freed by the caller.                                  */
static char *records_doc(const char *head, const char *rec, int from, int n, const char *tail, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    fputs(head, f);
    for (int i = from; i < from + n; i++) {
        if (i > from) fputc(',', f);
        fprintf(f, rec, i);
    }
    fputs(tail, f);
    fclose(f);
    return text;
}

/* The rows reserved from the first records' size are a hint: records
 * smaller than those (more than estimated) are all kept, in order.    */
TEST(rocprof_json_rows_past_the_estimate)
{
    char pad[1024];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    char big[2048];
    snprintf(big, sizeof big, "{\"pad\":\"%s\",\"start_timestamp\":%%d,\"end_timestamp\":5000000}", pad);
    size_t n1, n2;
    char *a = records_doc("", big, 0, 64, "", &n1);
    char *b = records_doc("", "{\"start_timestamp\":%d,\"end_timestamp\":5000000}", 64, 1000, "", &n2);
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    CHECK(a && b && f);
    if (!a || !b || !f) return;
    fprintf(f, "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77},\"buffer_records\":{\"kernel_dispatch\":[%s,%s]}}]}", a, b);
    fclose(f);
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("many_results.json", doc, len, &st, &fail);
    CHECK_INT(st, KT_OK);
    if (t) {
        int64_t total;
        CHECK_INT(rd_count_kind(t->ranks[0], KT_K_KERNEL, &total), 1064);
        CHECK_INT(total, 1064 * 5000000LL - 1063 * 1064 / 2); /* sum of 5000000 - i */
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    free(a);
    free(b);
    free(doc);
}

/* Records too small to be events (a hostile run of empty objects) before
 * a large section the reader skips reserve rows for no more records than
 * the rest of the file holds at a real record's least size.           */
TEST(rocprof_json_reserve_bounded_by_record_size)
{
    size_t big = (size_t)1 << 20, n;
    char *empties = records_doc("", "{}", 0, 100, "", &n);
    char *doc = malloc(big + 512);
    CHECK(empties && doc);
    if (!empties || !doc) {
        free(empties);
        free(doc);
        return;
    }
    int k = snprintf(doc, 512, "{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[%s],\"pc_sample_host_trap\":[\"",
                     empties);
    memset(doc + k, 'y', big);
    size_t len = (size_t)k + big;
    len += (size_t)sprintf(doc + len, "\"]}}]}");
    kt_status st;
    kt_diags *fail = NULL;
    kt_trace *t = load_text("empty_results.json", doc, len, &st, &fail);
    CHECK_INT(st, KT_OK);
    if (t) {
        CHECK_INT(skipped_records(kt_trace_diags(t)), 100);
        CHECK(t->ranks[0]->ev.cap <= 16384); /* 1 MiB / 128 bytes, doubled from 1024 */
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    free(empties);
    free(doc);
}

/* Python's count of kernel dispatches and their summed ns in the file. */
static bool python_counts(const char *path, long long *n, long long *total)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); "
             "k=[r for t in d['rocprofiler-sdk-tool'] for r in t['buffer_records']['kernel_dispatch']]; "
             "print(len(k), sum(r['end_timestamp']-r['start_timestamp'] for r in k))\" '%s'",
             path);
    long long v[2];
    if (!rd_command_ints(cmd, v, 2)) return false;
    *n = v[0], *total = v[1];
    return true;
}

TEST(rocprof_json_sample_matches_python_counts)
{
    const char *path = kt_test_shared_path("traces/other/rocprofv3/908_results.json.gz");
    if (!path) {
        kt_test_skip("../shared/traces/other/rocprofv3 absent");
        return;
    }
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    long long n = 0, total = 0;
    if (!python_counts(p, &n, &total)) {
        kt_test_skip("python3 could not count the sample");
        return;
    }
    CHECK_INT(n, 43915);
    kt_status st;
    kt_trace *t = rd_load_path(p, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int64_t kt_ns;
    CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &kt_ns), n);
    CHECK_INT(kt_ns, total);
    kt_tables *ts = NULL;
    kt_kernels_options ko = kt_kernels_defaults();
    ko.top = 0;
    CHECK_INT(kt_kernels(t, NULL, &ko, &ts), KT_OK);
    const kt_table *tb = ts ? kt_tables_get(ts, 0) : NULL;
    double count = 0, sum_us = 0;
    for (size_t i = 0; tb && i < kt_table_nrows(tb); i++) {
        count += fx_num(tb, i, "count");
        sum_us += fx_num(tb, i, "total (us)");
    }
    CHECK_INT((long long)count, n);
    CHECK_NEAR(sum_us, (double)total / 1000.0, 1e-3 * (double)kt_table_nrows(tb));
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* One dispatch as rocprofv3 writes it (compact, its keys in its order:
 * the reader's whole-record match), then with blanks and a member more
 * (read by key): the same kernel, args included.                      */
#define TABLES                                                                                                      \
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77},\"agents\":[{\"id\":{\"handle\":501},\"type\":2,"         \
    "\"gpu_index\":1}],\"strings\":{},\"kernel_symbols\":[{\"kernel_id\":8,\"formatted_kernel_name\":\"gemm()\"}],"   \
    "\"buffer_records\":{\"kernel_dispatch\":["
static const char AS_WRITTEN[] =
    TABLES "{\"size\":184,\"kind\":11,\"operation\":2,\"thread_id\":908,\"correlation_id\":{\"internal\":12,"
           "\"external\":0},\"start_timestamp\":63857982592000,\"end_timestamp\":63857982594840,\"dispatch_info\":"
           "{\"size\":72,\"agent_id\":{\"handle\":501},\"queue_id\":{\"handle\":16},\"kernel_id\":8,\"dispatch_id\":1,"
           "\"private_segment_size\":0,\"group_segment_size\":96,\"workgroup_size\":{\"x\":512,\"y\":2,\"z\":1},"
           "\"grid_size\":{\"x\":1024,\"y\":3,\"z\":1}},\"stream_id\":{\"handle\":-1}}]}}]}";
static const char SPACED[] =
    TABLES "{\"size\": 184, \"kind\": 11, \"operation\": 2, \"thread_id\": 908, \"correlation_id\": {\"internal\": 12, "
           "\"external\": 0}, \"start_timestamp\": 63857982592000, \"end_timestamp\": 63857982594840, \"dispatch_info\": "
           "{\"size\": 72, \"agent_id\": {\"handle\": 501}, \"queue_id\": {\"handle\": 16}, \"kernel_id\": 8, "
           "\"dispatch_id\": 1, \"private_segment_size\": 0, \"group_segment_size\": 96, \"workgroup_size\": {\"x\": 512, "
           "\"y\": 2, \"z\": 1}, \"grid_size\": {\"x\": 1024, \"y\": 3, \"z\": 1}}, \"stream_id\": {\"handle\": -1}, "
           "\"extra\": [1]}]}}]}";

TEST(rocprof_json_dispatch_as_written_and_spaced_alike)
{
    const char *docs[] = { AS_WRITTEN, SPACED };
    for (size_t d = 0; d < 2; d++) {
        kt_status st;
        kt_diags *fail = NULL;
        kt_trace *t = load_text("77_results.json", docs[d], strlen(docs[d]), &st, &fail);
        CHECK_INT(st, KT_OK);
        kt_diags_free(fail);
        uint32_t k = t ? find(t, KT_K_KERNEL, "gemm()") : KT_NONE;
        CHECK(k != KT_NONE);
        if (k == KT_NONE) {
            kt_trace_free(t);
            continue;
        }
        const kt_rank *r = t->ranks[0];
        CHECK_INT(r->ev.ts[k], 63857982592000);
        CHECK_INT(r->ev.dur[k], 2840);
        CHECK_INT(kt_event_pid(r, k), 1);       /* agent 501: gpu_index 1 */
        CHECK_INT(kt_ev_stream(&r->ev, k), 16); /* no stream: the queue */
        CHECK_INT(kt_event_corr(r, k), 12);
        static const uint32_t keys[] = { KT_ARG_DEVICE, KT_ARG_SHARED_MEMORY, KT_ARG_GRID_X, KT_ARG_GRID_Y, KT_ARG_GRID_Z,
                                         KT_ARG_BLOCK_X, KT_ARG_BLOCK_Y, KT_ARG_BLOCK_Z };
        static const int64_t want[] = { 1, 96, 1024, 3, 1, 512, 2, 1 };
        CHECK_INT(r->ev.nargs[k], 8);
        for (size_t i = 0; i < 8; i++) CHECK_INT(kt_event_arg_int(r, k, keys[i], -1), want[i]);
        kt_trace_free(t);
    }
}

/* The reader's bytes stay readable when the file is cut short while it
 * loads (another process truncating it): they are read, not mapped
 * (a mapping faults, SIGBUS, past the file's new end).               */
TEST(rocprof_json_file_cut_short_while_held)
{
    char path[] = "/tmp/kt_cut_results_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    size_t n = 1 << 20; /* many pages: the text repeated, then cut to 0 */
    char *text = malloc(n);
    for (size_t i = 0; text && i < n; i++) text[i] = AS_WRITTEN[i % (sizeof AS_WRITTEN - 1)];
    CHECK(text && write(fd, text, n) == (ssize_t)n);
    size_t len = 0, held_len = 0;
    const char *data = kt_read_whole(path, &len, &held_len);
    CHECK(data && len == n);
    CHECK_INT(ftruncate(fd, 0), 0);
    if (data && text) {
        CHECK(memcmp(data, text, n) == 0);
        bool zeros = true;
        for (size_t i = 0; i < KT_WIN_PAD; i++) zeros &= data[n + i] == 0;
        CHECK(zeros);
    }
    kt_free_whole(data, held_len);
    free(text);
    close(fd);
    unlink(path);
}
