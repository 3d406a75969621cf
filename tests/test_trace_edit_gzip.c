/* test_trace_edit_gzip.c — the writer of trace copies on gzip inputs: a
 * copy that only appends events (counters -o, memory -o) is written as
 * the input is inflated, holding a few hundred KiB of a trace of many MiB,
 * and its inflated bytes are those of the same copy of the plain input;
 * a ']' no longer where the loader saw it gives KT_EINPUT and no file;
 * the gzip copies of the shared traces keep the bytes (compressed, not
 * only inflated) the writers before the one writer made. */
#include "fixture.h"
#include "oracle.h"
#include "load/load_internal.h"
#include "output/trace_edit.h"
#include "output/trace_edit_gzip.h"
#include "output/trace_sink.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A trace of about `bytes` bytes: one array of complete events. */
static char *big_trace(size_t bytes, size_t *len)
{
    size_t cap = bytes + 4096, n = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    n += (size_t)snprintf(t, cap, "{\"traceEvents\": [\n");
    for (int i = 0; n + 200 < bytes; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s{\"ph\": \"X\", \"name\": \"e%d\", \"ts\": %d, \"dur\": 1, \"args\": {}}",
                              i ? ",\n" : "", i, i);
    n += (size_t)snprintf(t + n, cap - n, "\n], \"k\": 1}");
    *len = n;
    return t;
}

/* text written to path, gzip-compressed when gzip (by the sink the
 * copies are written with); false on failure.                            */
static bool write_input(const char *path, const char *text, size_t len, bool gzip)
{
    char err[256];
    kt_sink s;
    if (kt_sink_open(&s, path, gzip, NULL, err, sizeof err)) kt_sink_emit(&s, text, len);
    return kt_sink_close(&s);
}

/* A file's bytes, inflated when gzip. */
static char *inflated(const char *path, size_t *len)
{
    char err[256], *doc = NULL;
    kt_src *src;
    if (kt_src_open_file(path, &src, err, sizeof err) != KT_OK) return NULL;
    if (kt_edit_read_whole(src, path, &doc, len, err, sizeof err) != KT_OK) doc = NULL;
    kt_src_close(src);
    return doc;
}

/* Appended: `left` counter events, a few at a time. */
static size_t counter_events(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    (void)d;
    size_t *left = user, n = 0;
    while (*left && cap - n > 512) {
        n += (size_t)snprintf(buf + n, cap - n, ",\n  {\"ph\": \"C\", \"name\": \"c\", \"pid\": 1, \"ts\": %zu, "
                                                "\"args\": {\"v\": 1}}", *left);
        (*left)--;
    }
    return n;
}

/* The copy of in with the counter events appended before the ']'. */
static kt_status append_copy(const char *in, const char *out, uint64_t open, uint64_t close, kt_edit_result *res)
{
    size_t left = 3000;
    kt_trace_edit c = { .in_path = in, .out_path = out, .events_open = open, .events_end = close,
                        .extra = counter_events, .extra_at_close = true, .user = &left };
    char err[256];
    return kt_write_trace_edit(&c, res, err, sizeof err);
}

TEST(trace_edit_gzip_append_streams_the_input)
{
    size_t len = 0;
    char *text = big_trace((size_t)4 << 20, &len);
    char dir[] = "/tmp/kt_gzedit_XXXXXX", plain[64], gz[64], out_plain[64], out_gz[64];
    CHECK(text && mkdtemp(dir) != NULL);
    if (!text) return;
    /* both inputs named in.json: their copies name the same source */
    snprintf(plain, sizeof plain, "%s/in.json", dir);
    snprintf(out_plain, sizeof out_plain, "%s/out.json", dir);
    CHECK(mkdir(strcat(strcpy(gz, dir), "/z"), 0700) == 0);
    strcat(gz, "/in.json");
    snprintf(out_gz, sizeof out_gz, "%s/z/out.json.gz", dir);
    CHECK(write_input(plain, text, len, false) && write_input(gz, text, len, true));
    uint64_t open = (uint64_t)(strchr(text, '[') - text), close = (uint64_t)(strrchr(text, ']') - text);
    kt_edit_result rp, rz;
    CHECK_INT(append_copy(plain, out_plain, open, close, &rp), KT_OK);
    CHECK_INT(append_copy(gz, out_gz, open, close, &rz), KT_OK);
    /* the inflated trace is never held whole: one piece of it at a time */
    CHECK(rz.held <= KT_EDIT_STREAM_PIECE);
    CHECK(rz.held < len / 8);
    size_t np = 0, nz = 0;
    char *a = inflated(out_plain, &np), *b = inflated(out_gz, &nz);
    CHECK(a && b && np == nz && np > len && !memcmp(a, b, np));
    CHECK_INT(rz.json_bytes, np);
    free(a);
    free(b);
    /* the ']' elsewhere: the input changed since it was loaded */
    unlink(out_gz);
    char err[256];
    size_t left = 1;
    kt_trace_edit c = { .in_path = gz, .out_path = out_gz, .events_open = open, .events_end = close - 1,
                        .extra = counter_events, .extra_at_close = true, .user = &left };
    CHECK_INT(kt_write_trace_edit(&c, &rz, err, sizeof err), KT_EINPUT);
    CHECK(strstr(err, "damaged or changed since it was loaded") != NULL);
    CHECK(access(out_gz, F_OK) != 0);
    char part[80];
    snprintf(part, sizeof part, "%s.partial", out_gz);
    CHECK(access(part, F_OK) != 0);
    unlink(plain);
    unlink(gz);
    unlink(out_plain);
    rmdir(strcat(strcpy(part, dir), "/z"));
    rmdir(dir);
    free(text);
}

/* FNV-1a, 64 bits, of a file's bytes (0 when it cannot be read). */
static uint64_t file_hash(const char *path)
{
    size_t n = 0;
    char *b = fx_read_file(path, &n);
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; b && i < n; i++) h = (h ^ (unsigned char)b[i]) * 0x100000001b3u;
    free(b);
    return b ? h : 0;
}

/* A command that wrote one copy, dir/name: it succeeded and the copy's
 * bytes hash to want (the copy and the command's tables removed).       */
static void check_copy(kt_status st, kt_tables **ts, const char *dir, const char *name, uint64_t want)
{
    CHECK_INT(st, KT_OK);
    kt_tables_free(*ts);
    *ts = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_INT(file_hash(path), want);
    unlink(path);
}

/* gzip copies keep the compressed bytes (not only the inflated text) the
 * writers made before one writer wrote them all: ISA-L level 1 writes
 * other bytes when the same text reaches it in other pieces, so the
 * pieces are kept (the counter tracks: the inflated input in 256 KiB
 * reads, the events appended in 256 KiB buffers filled while 512 bytes
 * remain; an overlay's arrows: in one piece).  The hashes are those of kineta before that change (with
 * Debian's libisal2 2.30), on shared traces where the copy of the whole
 * input made other bytes.                                                */
TEST(trace_edit_gzip_copies_keep_their_compressed_bytes)
{
    NEED_SHARED();
    static const struct {
        const char *trace, *name;
        uint64_t counters, memory;
    } cases[] = {
        { "traces/hta/timeline_analysis/sampled_rank-0.json.gz", "sampled_rank-0", 0x3999a01cd0c374c6u,
          0xdab871d0d3bb6f71u },
        { "traces/tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz", "gpu_only_trace", 0x71391e22eade1c98u,
          0x2b836a2be3802408u },
        { "traces/hta/negative_queue_length_values_check/rank0.json.gz", "rank0", 0x4612655a5ba28050u,
          0x1c90f7b34c253fa5u },
        /* counter events that fill many buffers, where filling them to
           2 kB short of full made other bytes */
        { "traces/hta/nccl_parser_config/nccl_data.json.gz", "nccl_data", 0xa2e2b36087f79672u, 0x4da8925c8001ca82u },
    };
    char dir[] = "/tmp/kt_gzbytes_XXXXXX", name[256];
    CHECK(mkdtemp(dir) != NULL);
    kt_tables *ts = NULL;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kt_trace *t = fx_load_shared(cases[i].trace, false);
        if (!t) continue;
        kt_counters_options co = kt_counters_defaults();
        co.out_dir = dir;
        snprintf(name, sizeof name, "%s_with_counters.json.gz", cases[i].name);
        check_copy(kt_counters(t, NULL, &co, &ts, NULL), &ts, dir, name, cases[i].counters);
        kt_memory_options mo = kt_memory_defaults();
        mo.out_dir = dir;
        snprintf(name, sizeof name, "%s_with_memory.json.gz", cases[i].name);
        check_copy(kt_memory(t, NULL, &mo, &ts, NULL), &ts, dir, name, cases[i].memory);
        kt_critical_path_options cp = kt_critical_path_defaults();
        cp.out_dir = dir;
        if (i == 2) /* 455 kB of arrows: more than one buffer */
            check_copy(kt_critical_path(t, NULL, &cp, &ts, NULL), &ts, dir, "overlaid_critical_path_rank0.json.gz",
                       0xdb59448da0e6f0e6u);
        kt_trace_free(t);
    }
    /* the overlays (the input held whole) on a trace whose arrows fit one buffer */
    kt_trace *t = fx_load_shared("traces/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                                 false);
    if (t) {
        kt_patterns_options po = kt_patterns_defaults();
        po.out_dir = dir;
        check_copy(kt_patterns(t, NULL, &po, &ts, NULL), &ts, dir,
                   "overlaid_benchmark_result_2869224_1695835535_trace.json.gz", 0xb8539096d63486c9u);
        kt_critical_path_options cp = kt_critical_path_defaults();
        cp.out_dir = dir;
        check_copy(kt_critical_path(t, NULL, &cp, &ts, NULL), &ts, dir,
                   "overlaid_critical_path_benchmark_result_2869224_1695835535_trace.json.gz", 0xd589c0da7c6095b1u);
        kt_trace_free(t);
    }
    rmdir(dir);
}
