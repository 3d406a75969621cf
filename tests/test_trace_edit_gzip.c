/* test_trace_edit_gzip.c — the writer of trace copies on gzip inputs: a
 * copy that only appends events (counters -o, memory -o) or edits events
 * found from the loader's offsets (patterns -o, critical-path -o) is
 * written as the input is inflated, holding a few hundred KiB of a trace
 * of many MiB, and its inflated bytes are those of the same copy of the
 * plain input; a ']' no longer where the loader saw it, or an input cut
 * short or damaged, gives KT_EINPUT and no file; the gzip copies of the
 * shared traces keep the bytes (compressed, not only inflated) they had
 * where the text still reaches the deflater in the same pieces. */
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

/* An edited copy's input: big_trace's text with the loader's args
 * offsets (kt_args_at) of its events, every tenth marked.               */
typedef struct edited_input {
    char *text;
    size_t len, n;
    uint64_t *at, *marks, open, close;
    size_t nmarks;
    uint64_t lookups[4];
    double seen[4];       /* the numbers extra read, -1: none           */
    bool appended;
} edited_input;

static bool edited_input_make(edited_input *e, size_t bytes)
{
    size_t len = 0;
    *e = (edited_input){ .text = big_trace(bytes, &len) };
    e->len = len;
    size_t cap = e->text ? e->len / 40 : 0;
    e->at = calloc(cap + 1, sizeof *e->at);
    e->marks = calloc(cap + 1, sizeof *e->marks);
    if (!e->text || !e->at || !e->marks) return false;
    for (size_t i = 0; i + 9 <= e->len; i++) { /* no strstr: ASan's reads the whole rest each time */
        if (e->text[i] != '"' || memcmp(e->text + i, "\"args\": {", 9)) continue;
        uint64_t off = i + 8;
        if (e->n % 10 == 0) e->marks[e->nmarks++] = off;
        e->at[e->n++] = kt_args_at(off, 2);
    }
    e->open = (uint64_t)(strchr(e->text, '[') - e->text), e->close = (uint64_t)(strrchr(e->text, ']') - e->text);
    size_t pick[4] = { 5, 10, e->n / 2 + 3, e->n - 1 }; /* unmarked, marked, unmarked, the last */
    for (int k = 0; k < 4; k++) e->lookups[k] = kt_args_at_off(e->at[pick[k]]);
    return true;
}

static void edited_input_free(edited_input *e)
{
    free(e->text);
    free(e->at);
    free(e->marks);
}

static void add_x(void *user, uint64_t args_off, kt_event_edit *x)
{
    (void)user, (void)args_off;
    x->add_args = "\"x\": 1";
    x->add_args_len = 6;
}

/* Appended: an event per lookup, with the ts the file gives it. */
static size_t looked_up(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    edited_input *e = user;
    if (cap < 4 * 64 || e->appended) return 0;
    e->appended = true;
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        if (!kt_edit_event_number(d, e->lookups[k], "ts", &e->seen[k])) e->seen[k] = -1;
        n += (size_t)snprintf(buf + n, cap - n, ",\n{\"ph\": \"i\", \"name\": \"seen\", \"ts\": %.1f}", e->seen[k]);
    }
    return n;
}

static kt_status edited_copy(edited_input *e, const char *in, const char *out, kt_edit_result *res, char *err)
{
    static const char *const keys[] = { "ts", NULL };
    e->appended = false;
    kt_trace_edit c = { .in_path = in, .out_path = out, .events_open = e->open, .events_end = e->close,
                        .args_at = e->at, .nargs = e->n, .marks = e->marks, .nmarks = e->nmarks, .edit = add_x,
                        .extra = looked_up, .extra_looks_up = true, .lookups = e->lookups, .nlookups = 4,
                        .lookup_keys = keys, .user = e };
    return kt_write_trace_edit(&c, res, err, 256);
}

/* A gzip copy that edits events (patterns -o, critical-path -o) finds
 * them from the loader's offsets as the input is inflated: a few windows
 * of a trace of many MiB are held, never the whole (the input used to be
 * inflated whole first); the inflated copy is the plain input's copy, and
 * the numbers the appended events read are the file's; offsets that do
 * not fit the file make it walk the input held whole, to the same copy.   */
TEST(trace_edit_gzip_edits_stream_the_input)
{
    edited_input e;
    char dir[] = "/tmp/kt_gzedit_XXXXXX", plain[64], gz[64], out_plain[64], out_gz[64], err[256];
    CHECK(edited_input_make(&e, (size_t)6 << 20) && mkdtemp(dir) != NULL);
    snprintf(plain, sizeof plain, "%s/in.json", dir);
    snprintf(out_plain, sizeof out_plain, "%s/out.json", dir);
    CHECK(mkdir(strcat(strcpy(gz, dir), "/z"), 0700) == 0);
    strcat(gz, "/in.json");
    snprintf(out_gz, sizeof out_gz, "%s/z/out.json.gz", dir);
    CHECK(write_input(plain, e.text, e.len, false) && write_input(gz, e.text, e.len, true));
    kt_edit_result rp, rz;
    CHECK_INT(edited_copy(&e, plain, out_plain, &rp, err), KT_OK);
    CHECK_INT(edited_copy(&e, gz, out_gz, &rz, err), KT_OK);
    CHECK(e.seen[0] == 5 && e.seen[1] == 10 && e.seen[2] == (double)(e.n / 2 + 3) && e.seen[3] == (double)(e.n - 1));
    CHECK(rz.held <= 4 * KT_EDIT_STREAM_PIECE);
    CHECK(rz.held < e.len / 16);
    CHECK(!rz.walked);
    CHECK_INT((int)rz.edited, (int)e.nmarks);
    CHECK_INT((int)rp.edited, (int)e.nmarks);
    size_t np = 0, nz = 0;
    char *a = inflated(out_plain, &np), *b = inflated(out_gz, &nz);
    CHECK(a && b && np == nz && np > e.len + e.nmarks * 6 && !memcmp(a, b, np));
    CHECK(b && strstr(b, "\"ts\": 10, \"dur\": 1, \"args\": {\"x\": 1}}") != NULL);
    CHECK(b && strstr(b, "\"name\": \"seen\", \"ts\": 5.0}") != NULL);
    CHECK_INT(rz.json_bytes, np);
    /* an args offset that no longer fits the file (event 19's, read to find
     * the marked event 20): the input is held and walked after all, and the
     * copy is the one it was                                               */
    e.at[19] = kt_args_at(kt_args_at_off(e.at[19]) + 1, 2);
    CHECK_INT(edited_copy(&e, gz, out_gz, &rz, err), KT_OK);
    CHECK(rz.walked && rz.held == e.len);
    free(b);
    b = inflated(out_gz, &nz);
    CHECK(a && b && np == nz && !memcmp(a, b, np));
    free(a);
    free(b);
    unlink(plain);
    unlink(gz);
    unlink(out_plain);
    unlink(out_gz);
    rmdir(strcat(strcpy(plain, dir), "/z"));
    rmdir(dir);
    edited_input_free(&e);
}

/* A gzip input cut short, or damaged in its middle, after it was loaded:
 * the edited copy stops where inflating fails, says so with the input's
 * name and KT_EINPUT, and leaves no copy or .partial (an earlier copy at
 * the output stays as it was).                                          */
TEST(trace_edit_gzip_edit_of_a_damaged_input_writes_nothing)
{
    edited_input e;
    char dir[] = "/tmp/kt_gzedit_XXXXXX", gz[64], out_gz[64], part[80], err[256];
    CHECK(edited_input_make(&e, (size_t)2 << 20) && mkdtemp(dir) != NULL);
    snprintf(gz, sizeof gz, "%s/in.json.gz", dir);
    snprintf(out_gz, sizeof out_gz, "%s/out.json.gz", dir);
    snprintf(part, sizeof part, "%s.partial", out_gz);
    for (int damage = 0; damage < 2; damage++) {
        CHECK(write_input(gz, e.text, e.len, true));
        CHECK(write_input(out_gz, "earlier", 7, false));
        struct stat st;
        CHECK(stat(gz, &st) == 0);
        if (damage == 0) {
            CHECK(truncate(gz, st.st_size / 2) == 0);
        } else { /* bytes in the middle of the deflate stream */
            FILE *f = fopen(gz, "r+b");
            static const char junk[8] = { '\xff', 0, '\xff', 0, '\xff', 0, '\xff', 0 };
            CHECK(f && fseek(f, st.st_size / 2, SEEK_SET) == 0 && fwrite(junk, 1, 8, f) == 8);
            if (f) fclose(f);
        }
        kt_edit_result r;
        CHECK_INT(edited_copy(&e, gz, out_gz, &r, err), KT_EINPUT);
        CHECK(strstr(err, gz) != NULL);
        CHECK(access(part, F_OK) != 0);
        size_t n = 0;
        char *kept = fx_read_file(out_gz, &n);
        CHECK(kept && n == 7 && !memcmp(kept, "earlier", 7));
        free(kept);
    }
    unlink(gz);
    unlink(out_gz);
    rmdir(dir);
    edited_input_free(&e);
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
 * remain; the overlays of an input held whole, --only-critical's: the
 * arrows in one piece).  The hashes are those of kineta before that change (with
 * Debian's libisal2 2.30), on shared traces where the copy of the whole
 * input made other bytes; rank0's critical-path overlay is read through
 * the window as it is inflated (trace_edit_gzip_edits_stream_the_input),
 * its text reaching the deflater in the window's pieces: its hash is the
 * one of that copy, whose inflated text is the earlier one's.            */
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
                       0x3ffc2e615fd16cbbu);
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
