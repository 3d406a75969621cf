/*
 * test_read_rocprof_stream.c — rocprofv3 JSON streamed through the read
 * window gives the model the document held whole gives: in reads of a
 * few bytes (every value cut by a window's end somewhere), for every
 * prefix of a damaged file, and for a file larger than the window whose
 * kernel symbols are read back after the window has moved past them.
 */
#include "test.h"
#include "load/readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every section rocprofv3 writes, the tables first; records as written
 * (the dispatch fast path), spaced (read by key), sections and members
 * the reader skips (nested), a marker message, names to decode.        */
#define HEAD                                                                                                         \
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":77,\"node\":{\"hostname\":\"h1\"}},"                          \
    "\"agents\":[{\"id\":{\"handle\":500},\"type\":1,\"name\":\"cpu\"},"                                              \
    "{\"id\":{\"handle\":501},\"type\":2,\"gpu_index\":1,\"product_name\":\"AMD Instinct MI300X\"},"                  \
    "{\"id\":{\"handle\":502},\"type\":2,\"gpu_index\":0,\"product_name\":\"AMD Instinct MI300X\"}],"                 \
    "\"counters\":[{\"id\":1,\"dims\":[[1,2],{\"a\":[3]}]}],"                                                        \
    "\"strings\":{\"buffer_records\":[{\"kind\":\"NONE\",\"operations\":[]},"                                         \
    "{\"kind\":\"HIP_RUNTIME_API\",\"operations\":[\"hipNone\",\"hipLaunchKernel\",\"hipMemcpyAsync\"]},"             \
    "{\"kind\":\"KERNEL_DISPATCH\",\"operations\":[\"NONE\",\"ENQUEUE\",\"COMPLETE\"]},"                              \
    "{\"kind\":\"MEMORY_COPY\",\"operations\":[\"MEMORY_COPY_NONE\",\"MEMORY_COPY_HOST_TO_DEVICE\"]},"                \
    "{\"kind\":\"MARKER_CORE_API\",\"operations\":[\"roctxMarkA\",\"roctxRangePushA\"]}],"                            \
    "\"marker_api\":[{\"key\":9,\"value\":\"step \\\"1\\\"\"}]},"                                                    \
    "\"code_objects\":[{\"uri\":\"file:///a.so\",\"nested\":{\"x\":[[[]]]}}],"                                       \
    "\"kernel_symbols\":[{\"kernel_id\":0,\"formatted_kernel_name\":\"\"},"                                           \
    "{\"kernel_id\":1,\"kernel_name\":\"_Z4gemmv.kd\",\"formatted_kernel_name\":\"gemm()\"},"                         \
    "{\"kernel_id\":2,\"formatted_kernel_name\":\"void copy<\\\"t\\\">(float) caf\\u00e9\"},"                          \
    "{\"kernel_id\":3,\"kernel_address\":{\"handle\":5},\"demangled_kernel_name\":\"late_kernel(int)\"}],"            \
    "\"callback_records\":{\"hip_api\":[{\"a\":[1,2,{\"b\":\"}]\"}]}]},\"summary\":[],"                               \
    "\"buffer_records\":{\"memory_allocation\":[{\"x\":{\"y\":[1]}}],"                                               \
    "\"hip_api\":[{\"kind\":1,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":5},"                  \
    "\"start_timestamp\":999990000,\"end_timestamp\":999995000},"                                                     \
    "{\"kind\":1,\"operation\":2,\"thread_id\":78,\"correlation_id\":{\"internal\":6},"                               \
    "\"start_timestamp\":999996000,\"end_timestamp\":999997000}],"                                                    \
    "\"memory_copy\":[{\"kind\":3,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":6},"              \
    "\"start_timestamp\":1000003000,\"end_timestamp\":1000004000,\"src_agent_id\":{\"handle\":500},"                 \
    "\"dst_agent_id\":{\"handle\":502},\"bytes\":4096}],"                                                              \
    "\"marker_api\":[{\"kind\":4,\"operation\":1,\"thread_id\":78,\"correlation_id\":{\"internal\":9},"               \
    "\"start_timestamp\":999980000,\"end_timestamp\":1000010000}],"                                                   \
    "\"kernel_dispatch\":[{\"kind\": 2, \"correlation_id\": {\"internal\": 5}, \"start_timestamp\": 1000000123, "     \
    "\"end_timestamp\": 1000002123, \"dispatch_info\": {\"agent_id\": {\"handle\": 501}, \"queue_id\": {\"handle\": 3}, " \
    "\"kernel_id\": 2, \"workgroup_size\": {\"x\": 256, \"y\": 1, \"z\": 1}}, \"stream_id\": {\"handle\": 7}},"
/* A dispatch as rocprofv3 writes it: its number, time, agent, kernel. */
#define AS_WRITTEN                                                                                                   \
    "{\"size\":184,\"kind\":11,\"operation\":2,\"thread_id\":908,\"correlation_id\":{\"internal\":%d,"               \
    "\"external\":0},\"start_timestamp\":%lld,\"end_timestamp\":%lld,\"dispatch_info\":{\"size\":72,\"agent_id\":"   \
    "{\"handle\":%d},\"queue_id\":{\"handle\":16},\"kernel_id\":%d,\"dispatch_id\":1,\"private_segment_size\":0,"    \
    "\"group_segment_size\":96,\"workgroup_size\":{\"x\":512,\"y\":2,\"z\":1},\"grid_size\":{\"x\":1024,\"y\":3,"    \
    "\"z\":1}},\"stream_id\":{\"handle\":%d}}"
#define TAIL "]}}]}"

/* The document with n dispatches as written, the last of kernel 3 (its
 * symbol first read then).  Freed by the caller.                      */
static char *doc_of(int n, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    fputs(HEAD, f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s" AS_WRITTEN, i ? "," : "", 100 + i, 2000000000LL + 1000LL * i, 2000000500LL + 1000LL * i,
                501 + i % 2, i == n - 1 ? 3 : 1 + i % 2, i % 5);
    fputs(TAIL, f);
    fclose(f);
    return text;
}

typedef struct read_out {
    kt_rank *r;
    kt_diags diags;
    kt_status st;
} read_out;

/* The document read held whole (read_max 0) or streamed from memory in
 * reads of at most read_max bytes, into a rank of strs.              */
static read_out read_doc(const char *text, size_t len, size_t read_max, kt_strtab *strs)
{
    read_out o = { .r = kt_rank_new() };
    char *held = malloc(len + KT_WIN_PAD);
    kt_src *src = NULL;
    kt_build b;
    if (!o.r || !held || kt_src_open_mem(text, len, &src) != KT_OK) {
        CHECK(false);
        free(held);
        o.st = KT_ENOMEM;
        return o;
    }
    memcpy(held, text, len);
    memset(held + len, 0, KT_WIN_PAD);
    kt_reader_in in = { .path = "s_results.json", .data = read_max ? NULL : held, .len = len,
                        .src = read_max ? src : NULL, .read_max = read_max, .diags = &o.diags };
    kt_build_init(&b, o.r, strs);
    o.st = kt_read_rocprof_json(&in, &b);
    if (o.st == KT_OK && !kt_build_finish(&b)) o.st = KT_ENOMEM;
    kt_build_free(&b);
    kt_src_close(src);
    free(held);
    return o;
}

static void out_free(read_out *o)
{
    kt_rank_free(o->r);
    kt_diags_clear(&o->diags);
}

/* Events differing between a and b (rows, columns, args), devices and
 * meta_json included; 0 when the same.                                */
static size_t differences(const kt_rank *a, const kt_rank *b)
{
    if (a->ev.n != b->ev.n || a->nargs != b->nargs || a->ndevices != b->ndevices) return SIZE_MAX;
    size_t bad = 0;
    for (uint32_t i = 0; i < a->ev.n; i++) {
        bool same = a->ev.ts[i] == b->ev.ts[i] && a->ev.dur[i] == b->ev.dur[i] && a->ev.name[i] == b->ev.name[i] &&
                    a->ev.cat[i] == b->ev.cat[i] && a->ev.ph[i] == b->ev.ph[i] && a->ev.kind[i] == b->ev.kind[i] &&
                    kt_event_pid(a, i) == kt_event_pid(b, i) && kt_event_tid(a, i) == kt_event_tid(b, i) &&
                    kt_ev_stream(&a->ev, i) == kt_ev_stream(&b->ev, i) && kt_event_corr(a, i) == kt_event_corr(b, i) &&
                    a->ev.nargs[i] == b->ev.nargs[i];
        for (uint32_t k = 0; same && k < a->ev.nargs[i]; k++) {
            const kt_arg *x = &a->args[a->ev.argi[i] + k], *y = &b->args[b->ev.argi[i] + k];
            same = x->key == y->key && x->type == y->type && x->v.i == y->v.i;
        }
        bad += !same;
    }
    for (size_t d = 0; d < a->ndevices; d++) bad += a->device_names[d] != b->device_names[d];
    return bad + (strcmp(a->meta_json ? a->meta_json : "", b->meta_json ? b->meta_json : "") != 0);
}

static size_t diag_differences(const kt_diags *a, const kt_diags *b)
{
    if (a->n != b->n) return SIZE_MAX;
    size_t bad = 0;
    for (size_t i = 0; i < a->n; i++) bad += strcmp(a->d[i].message, b->d[i].message) != 0 || a->d[i].offset != b->d[i].offset;
    return bad;
}

/* Reads of 1 to 250 bytes: every value (keys, numbers, records, the
 * dispatch fast path's text) is cut by a window's end somewhere, and
 * each is read as when the document is held whole.                   */
TEST(rocprof_json_streamed_in_small_reads_same_as_held)
{
    size_t len;
    char *text = doc_of(40, &len);
    kt_strtab *strs = kt_strtab_new();
    CHECK(text && strs);
    if (!text || !strs) return;
    read_out held = read_doc(text, len, 0, strs);
    CHECK_INT(held.st, KT_OK);
    CHECK_INT(held.r->ev.n, 1 + 2 + 1 + 1 + 1 + 40 + 2 * 2); /* M, hip, copy, marker, dispatches, 2 flows */
    static const size_t reads[] = { 1, 2, 3, 7, 64, 250 };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
        read_out s = read_doc(text, len, reads[k], strs);
        CHECK_INT(s.st, KT_OK);
        CHECK_INT(differences(held.r, s.r), 0);
        CHECK_INT(diag_differences(&held.diags, &s.diags), 0);
        out_free(&s);
    }
    out_free(&held);
    kt_strtab_free(strs);
    free(text);
}

/* Every prefix (a file cut short): the streamed read keeps what the held
 * read keeps and says the same (cut short, records skipped).         */
TEST(rocprof_json_every_prefix_streamed_same_as_held)
{
    size_t len;
    char *text = doc_of(3, &len);
    kt_strtab *strs = kt_strtab_new();
    CHECK(text && strs);
    if (!text || !strs) return;
    size_t bad = 0;
    for (size_t cut = 1; cut <= len; cut += 3) {
        read_out held = read_doc(text, cut, 0, strs), s = read_doc(text, cut, 5, strs);
        bool same = held.st == s.st && (held.st != KT_OK || differences(held.r, s.r) == 0) &&
                    diag_differences(&held.diags, &s.diags) == 0;
        if (!same && !bad) fprintf(stderr, "    first difference at a cut of %zu bytes\n", cut);
        bad += !same;
        out_free(&held);
        out_free(&s);
    }
    CHECK_INT(bad, 0);
    kt_strtab_free(strs);
    free(text);
}

/* A file of several windows loaded from its path (streamed, the kernel
 * symbols read back from the file once the window has moved on) gives
 * the trace its bytes loaded from memory (held) give.               */
TEST(rocprof_json_file_larger_than_the_window)
{
    size_t len;
    char *text = doc_of(6000, &len); /* 2.6 MB: five windows */
    char path[] = "/tmp/kt_stream_results_XXXXXX";
    int fd = mkstemp(path);
    CHECK(text && fd >= 0 && write(fd, text, len) == (ssize_t)len);
    if (fd >= 0) close(fd);
    const char *paths[] = { path };
    kt_trace *file = NULL, *mem = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, NULL, &file, &fail), KT_OK);
    kt_diags_free(fail);
    fail = NULL;
    CHECK_INT(kt_load_buffer(path, text, len, NULL, &mem, &fail), KT_OK);
    kt_diags_free(fail);
    if (file && mem) {
        const kt_rank *a = file->ranks[0], *b = mem->ranks[0];
        CHECK_INT(a->ev.n, 1 + 2 + 1 + 1 + 1 + 6000 + 2 * 2);
        CHECK_INT(a->ev.n, b->ev.n);
        size_t bad = 0;
        for (uint32_t i = 0; i < a->ev.n && a->ev.n == b->ev.n; i++) {
            const char *x = a->ev.name[i] == KT_NONE ? "" : kt_strtab_get(file->strs, a->ev.name[i]);
            const char *y = b->ev.name[i] == KT_NONE ? "" : kt_strtab_get(mem->strs, b->ev.name[i]);
            bad += a->ev.ts[i] != b->ev.ts[i] || a->ev.dur[i] != b->ev.dur[i] || strcmp(x, y) ||
                   kt_event_pid(a, i) != kt_event_pid(b, i) || kt_ev_stream(&a->ev, i) != kt_ev_stream(&b->ev, i);
        }
        CHECK_INT(bad, 0);
        bool late = false; /* the last dispatch's kernel, named from its symbol read back */
        for (uint32_t i = 0; i < a->ev.n; i++)
            late |= a->ev.name[i] != KT_NONE && !strcmp(kt_strtab_get(file->strs, a->ev.name[i]), "late_kernel(int)");
        CHECK(late);
    }
    kt_trace_free(file);
    kt_trace_free(mem);
    unlink(path);
    free(text);
}

/* A file cut short by another process while it is streamed (and its
 * kernel symbols read back): the reads come up short, never fault; the
 * records before the cut are kept and the file is said to be cut short. */
TEST(rocprof_json_streamed_file_cut_short_while_read)
{
    size_t len;
    char *text = doc_of(6000, &len);
    char path[] = "/tmp/kt_cut_stream_results_XXXXXX";
    int fd = mkstemp(path);
    CHECK(text && fd >= 0 && write(fd, text, len) == (ssize_t)len);
    kt_src *src = NULL;
    char err[256];
    CHECK_INT(kt_src_open_file(path, &src, err, sizeof err), KT_OK);
    CHECK_INT(ftruncate(fd, (off_t)(len / 2)), 0);
    kt_strtab *strs = kt_strtab_new();
    kt_rank *r = kt_rank_new();
    kt_diags diags = { 0 };
    if (src && strs && r) {
        kt_build b;
        kt_reader_in in = { .path = path, .len = len, .src = src, .diags = &diags };
        kt_build_init(&b, r, strs);
        CHECK_INT(kt_read_rocprof_json(&in, &b), KT_OK);
        kt_build_free(&b);
        CHECK(r->ev.n > 1000 && r->ev.n < 6000); /* half the dispatches */
        bool said = false;
        for (size_t i = 0; i < diags.n; i++) said |= strstr(diags.d[i].message, "cut short") != NULL;
        CHECK(said);
    }
    kt_src_close(src);
    kt_diags_clear(&diags);
    kt_rank_free(r);
    kt_strtab_free(strs);
    if (fd >= 0) close(fd);
    unlink(path);
    free(text);
}

/* Records met before all four tables (metadata, agents, strings, kernel
 * symbols) are read once they are, held or streamed (they used to be
 * read last only when a table was missing: with all four after them,
 * the records were dropped).                                          */
TEST(rocprof_json_records_before_all_four_tables)
{
    static const char doc[] =
        "{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"kind\":2,\"correlation_id\":"
        "{\"internal\":1},\"start_timestamp\":1001,\"end_timestamp\":2001,\"dispatch_info\":{\"agent_id\":"
        "{\"handle\":501},\"kernel_id\":1},\"stream_id\":{\"handle\":7}}]},\"metadata\":{\"pid\":77},"
        "\"agents\":[{\"id\":{\"handle\":501},\"type\":2,\"gpu_index\":1}],\"strings\":{\"buffer_records\":[]},"
        "\"kernel_symbols\":[{\"kernel_id\":1,\"formatted_kernel_name\":\"gemm()\"}]}]}";
    kt_strtab *strs = kt_strtab_new();
    CHECK(strs != NULL);
    if (!strs) return;
    for (size_t read_max = 0; read_max <= 3; read_max += 3) {
        read_out o = read_doc(doc, sizeof doc - 1, read_max, strs);
        CHECK_INT(o.st, KT_OK);
        uint32_t k = KT_NONE;
        for (uint32_t i = 0; i < o.r->ev.n; i++)
            if (o.r->ev.kind[i] == KT_K_KERNEL) k = i;
        CHECK(k != KT_NONE);
        if (k != KT_NONE) {
            CHECK(!strcmp(kt_strtab_get(strs, o.r->ev.name[k]), "gemm()"));
            CHECK_INT(kt_event_pid(o.r, k), 1);
            CHECK_INT(o.r->ev.ts[k], 1001);
        }
        out_free(&o);
    }
    kt_strtab_free(strs);
}
