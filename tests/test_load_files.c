/*
 * test_load_files.c — the loader on files: directory discovery, gzip by
 * magic bytes (not by name), multi-member gzip, rank clashes, explicit
 * ranks, unreadable inputs, raw args re-reading, events across window
 * refills, progress reports, --hta-compat's rows read by the range workers.
 */
#include "model_compare.h"
#include "oracle.h"
#include "test.h"
#include "load/load_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/kineta-test-load-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static const char *path_of(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_plain(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

/* mode "wb" starts the file, "ab" appends another gzip member. */
static void write_gzip(const char *name, const char *text, const char *mode)
{
    gzFile g = gzopen(path_of(name), mode);
    CHECK(g != NULL);
    if (!g) return;
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
}

static char *trace_text(int rank, const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k],
             "{\"distributedInfo\": {\"rank\": %d}, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\","
             " \"name\": \"%s\", \"ts\": 1, \"dur\": 1, \"args\": {\"External id\": 7, \"Input Dims\": [[1, 2]]}}]}",
             rank, name);
    return buf[k];
}

static kt_status load_paths(const char **paths, size_t n, const int *ranks, kt_trace **t, kt_diags **fail)
{
    kt_load_options opt = { .size = sizeof opt, .jobs = 2, .ranks = ranks };
    return kt_load(paths, n, &opt, t, fail);
}

static const char *event_name(const kt_trace *t, size_t rank, uint32_t ev)
{
    return kt_strtab_get(t->strs, t->ranks[rank]->ev.name[ev]);
}

TEST(load_directory_sorted_gzip_by_magic)
{
    make_dir();
    write_gzip("b.json", trace_text(1, "gz-named-json"), "wb"); /* gzip named .json */
    write_plain("a.json.gz", trace_text(0, "plain-named-gz"));    /* plain named .gz */
    write_plain("c.pt.trace.json", trace_text(2, "c"));
    write_plain("notes.txt", "not a trace");
    write_plain(".hidden.json", "{}");
    mkdir(path_of("sub.json"), 0700); /* directories are not traces */
    const char *paths[] = { dir };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(load_paths(paths, 1, NULL, &t, &fail), KT_OK);
    if (t) {
        CHECK_INT(t->nranks, 3);
        CHECK_STR(event_name(t, 0, 0), "plain-named-gz");
        CHECK(!t->ranks[0]->gzip);
        CHECK_STR(event_name(t, 1, 0), "gz-named-json");
        CHECK(t->ranks[1]->gzip);
        CHECK_STR(event_name(t, 2, 0), "c");
        CHECK_STR(t->ranks[2]->file, path_of("c.pt.trace.json"));
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    remove_dir();
}

/* Other JSON beside the rank files is skipped with a note in directory
 * mode; named explicitly, it stays an error; a damaged file is no excuse. */
TEST(load_directory_skips_non_trace_json)
{
    make_dir();
    write_plain("rank0.json", trace_text(0, "r0"));
    write_plain("truth.json", "{\"ranks\": 1, \"events\": [1, 2]}");
    write_plain("timeline.json", "[1, 2, 3]");
    const char *paths[] = { dir };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(load_paths(paths, 1, NULL, &t, &fail), KT_OK);
    if (t) {
        CHECK_INT(t->nranks, 1);
        CHECK_STR(event_name(t, 0, 0), "r0");
        size_t notes = 0;
        for (size_t i = 0; i < kt_diags_count(kt_trace_diags(t)); i++) {
            const kt_diag *d = kt_diags_get(kt_trace_diags(t), i);
            bool named = d->file && (strcmp(d->file, path_of("truth.json")) == 0 ||
                                       strcmp(d->file, path_of("timeline.json")) == 0);
            notes += d->level == KT_DIAG_INFO && named && strstr(d->message, "not a Kineto trace");
        }
        CHECK_INT(notes, 2);
    }
    kt_trace_free(t);
    const char *named[] = { path_of("truth.json") };
    CHECK_INT(load_paths(named, 1, NULL, &t, &fail), KT_EINPUT);
    kt_diags_free(fail);
    remove(path_of("rank0.json"));
    CHECK_INT(load_paths(paths, 1, NULL, &t, &fail), KT_EINPUT); /* nothing left to load */
    CHECK(fail && strstr(kt_diags_get(fail, kt_diags_count(fail) - 1)->message, "no Kineto trace"));
    kt_diags_free(fail);
    write_plain("rank0.json", "{\"traceEvents\": [{\"ph\": ");
    write_plain("rank1.json", "{\"distributedInfo\": ");         /* cut off: not skipped */
    CHECK_INT(load_paths(paths, 1, NULL, &t, &fail), KT_EINPUT);
    kt_diags_free(fail);
    remove_dir();
}

TEST(load_multi_member_gzip)
{
    make_dir();
    const char *text = trace_text(0, "split-across-members");
    size_t half = strlen(text) / 2;
    char first[512];
    memcpy(first, text, half);
    first[half] = '\0';
    write_gzip("m.json.gz", first, "wb");
    write_gzip("m.json.gz", text + half, "ab");
    const char *paths[] = { path_of("m.json.gz") };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(load_paths(paths, 1, NULL, &t, &fail), KT_OK);
    if (t) {
        CHECK_STR(event_name(t, 0, 0), "split-across-members");
        CHECK_INT(t->ranks[0]->json_bytes, strlen(text));
        CHECK_INT(kt_diags_count(kt_trace_diags(t)), 0);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    remove_dir();
}

TEST(load_duplicate_ranks_fail_unless_explicit)
{
    make_dir();
    write_plain("x.json", trace_text(4, "x"));
    write_gzip("y.json.gz", trace_text(4, "y"), "wb");
    const char *paths[] = { path_of("x.json"), path_of("y.json.gz") };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(load_paths(paths, 2, NULL, &t, &fail), KT_EINPUT);
    CHECK(t == NULL);
    bool named = false;
    for (size_t i = 0; i < kt_diags_count(fail); i++) {
        const kt_diag *d = kt_diags_get(fail, i);
        named |= d->level == KT_DIAG_ERROR && strstr(d->message, "rank 4") && strstr(d->message, "x.json") &&
                 strstr(d->file, "y.json.gz");
    }
    CHECK(named);
    kt_diags_free(fail);
    fail = NULL;
    const int ranks[] = { 7, 2 };
    CHECK_INT(load_paths(paths, 2, ranks, &t, &fail), KT_OK);
    if (t) {
        CHECK_INT(t->nranks, 2);
        CHECK_INT(t->ranks[0]->rank, 2);
        CHECK_STR(event_name(t, 0, 0), "y");
        CHECK_INT(t->ranks[1]->rank, 7);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    remove_dir();
}

TEST(load_missing_and_unreadable_inputs)
{
    make_dir();
    const char *missing[] = { path_of("nope.json") };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(load_paths(missing, 1, NULL, &t, &fail), KT_EINPUT);
    CHECK(kt_diags_count(fail) == 1 && strstr(kt_diags_get(fail, 0)->message, "cannot open"));
    kt_diags_free(fail);
    const char *empty_dir[] = { dir };
    CHECK_INT(load_paths(empty_dir, 1, NULL, &t, &fail), KT_EINPUT);
    CHECK(kt_diags_count(fail) == 1 && strstr(kt_diags_get(fail, 0)->message, "no trace files"));
    kt_diags_free(fail);
    write_gzip("corrupt.json.gz", trace_text(0, "x"), "wb");
    FILE *f = fopen(path_of("corrupt.json.gz"), "r+b"); /* damage the deflate data */
    if (f) {
        fseek(f, 12, SEEK_SET);
        fputs("\xff\xff\xff\xff\xff\xff", f);
        fclose(f);
    }
    const char *corrupt[] = { path_of("corrupt.json.gz") };
    kt_status st = load_paths(corrupt, 1, NULL, &t, &fail);
    CHECK(st == KT_EINPUT || st == KT_OK); /* whatever decoded, never a crash */
    const kt_diags *d = st == KT_OK ? kt_trace_diags(t) : fail;
    bool reported = false;
    for (size_t i = 0; i < kt_diags_count(d); i++) reported |= strstr(kt_diags_get(d, i)->message, "gzip") != NULL;
    CHECK(reported);
    kt_trace_free(t);
    kt_diags_free(fail);
    remove_dir();
}

/* A trace with n events, one with a huge args string, written to name. */
static char *big_trace(size_t n, size_t huge_at, size_t huge_len)
{
    size_t cap = n * 200 + huge_len + 1024, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "{\"traceEvents\": [\n");
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(s + len, cap - len,
                                "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%zu\", \"pid\": 0, \"tid\": 7, "
                                "\"ts\": %zu.%03zu, \"dur\": 1.5, \"args\": {\"correlation\": %zu, \"note\": \"",
                                i % 50, i, i % 1000, i);
        if (i == huge_at) {
            memset(s + len, 'x', huge_len);
            len += huge_len;
        }
        len += (size_t)snprintf(s + len, cap - len, "\"}}%s\n", i + 1 < n ? "," : "");
    }
    snprintf(s + len, cap - len, "]}\n");
    return s;
}

static void check_big(const kt_trace *t, size_t n, size_t huge_at, size_t huge_len)
{
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->ev.n, n);
    bool ok = true;
    for (size_t i = 0; i < r->ev.n && ok; i++)
        ok = r->ev.corr[i] == (int64_t)i && r->ev.ts[i] == (int64_t)(i * 1000 + i % 1000) && r->ev.dur[i] == 1500;
    CHECK(ok);
    kt_args_reader *rd;
    CHECK_INT(kt_args_reader_open(r, &rd), KT_OK);
    const char *text;
    size_t len;
    for (size_t i = 0; rd && i < n; i += n / 7) { /* in file order */
        CHECK_INT(kt_args_reader_get(rd, (uint32_t)i, &text, &len), KT_OK);
        char want[64];
        snprintf(want, sizeof want, "{\"correlation\": %zu, \"note\": \"", i);
        if (text && strncmp(text, want, strlen(want)) != 0)
            kt_test_fail(__FILE__, __LINE__, "args of %zu: %.60s", i, text);
    }
    CHECK_INT(kt_args_reader_get(rd, (uint32_t)huge_at, &text, &len), KT_OK);
    CHECK_INT(len, huge_len + strlen("{\"correlation\": , \"note\": \"\"}") + 5);
    CHECK_INT(kt_args_reader_get(rd, 3, &text, &len), KT_OK); /* backwards */
    CHECK(text && !strncmp(text, "{\"correlation\": 3,", 18));
    kt_args_reader_close(rd);
    char *one;
    CHECK_INT(kt_event_args_json(r, 5, &one, &len), KT_OK);
    CHECK(one && !strncmp(one, "{\"correlation\": 5,", 18));
    free(one);
}

static void count_progress(void *user, uint64_t done, uint64_t total)
{
    atomic_uint_fast64_t *last = user;
    CHECK(done <= total);
    atomic_store(last, done);
}

TEST(load_events_across_window_refills_and_raw_args)
{
    make_dir();
    const size_t n = 20000, huge_at = 12345, huge_len = 3 << 20; /* a 3 MiB arg */
    char *text = big_trace(n, huge_at, huge_len);
    write_plain("big.json", text);
    write_gzip("big.json.gz", text, "wb");
    for (int gz = 0; gz < 2; gz++) {
        const char *paths[] = { path_of(gz ? "big.json.gz" : "big.json") };
        atomic_uint_fast64_t last = 0;
        kt_load_options opt = { .size = sizeof opt, .jobs = 2, .progress = count_progress, .progress_user = &last };
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        CHECK_INT(kt_load(paths, 1, &opt, &t, &fail), KT_OK);
        if (t) {
            check_big(t, n, huge_at, huge_len);
            CHECK_INT(atomic_load(&last), t->ranks[0]->file_bytes);
        }
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    /* from memory: same events; raw args unavailable (no such file) */
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("mem", text, strlen(text), NULL, &t, &fail), KT_OK);
    if (t) {
        CHECK_INT(t->ranks[0]->ev.n, n);
        char *one;
        size_t len;
        CHECK_INT(kt_event_args_json(t->ranks[0], 5, &one, &len), KT_EINPUT);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    free(text);
    remove_dir();
}

/* Events whose args hold objects after commas (", {\"" inside an event:
 * false range starts), damage, and list-valued metadata after the events. */
static char *tricky_trace(size_t n)
{
    size_t cap = n * 320 + 4096, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2},\n \"traceEvents\": [\n");
    for (size_t i = 0; i < n; i++) {
        const char *tail = i + 1 < n ? "," : "";
        if (i % 97 == 50) {
            len += (size_t)snprintf(s + len, cap - len, "  {\"ph\": \"X\", \"name\": \"broken\" \"ts\": 1}%s\n", tail);
        } else if (i % 1000 == 999) { /* longer than many ranges */
            len += (size_t)snprintf(s + len, cap - len, "  {\"ph\": \"i\", \"name\": \"long\", \"ts\": 1, \"args\": {\"t\": \"");
            memset(s + len, 'y', 20000);
            len += 20000;
            len += (size_t)snprintf(s + len, cap - len, "\"}}%s\n", tail);
        } else if (i % 3) { /* pid/tid/corr of every kind the 32-bit columns hold */
            static const char *const pids[] = { "1", "-2000000000", "4294967296" };
            static const char *const tids[] = { "2", "139873452345", "\"stream 7\"", "-5", "0" };
            len += (size_t)snprintf(s + len, cap - len,
                                    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%zu\", \"pid\": %s, \"tid\": %s, "
                                    "\"ts\": %zu.5, \"dur\": 2, \"args\": {\"External id\": %zu, \"correlation\": %zu, \"l\": [1, {\"a\": 1}, {\"b\": [2, {\"c\": 3}]}]}}%s\n",
                                    i % 7, pids[i % 3], tids[i % 5], i, i, (size_t)5000000000u + i % 11, tail);
        } else {
            len += (size_t)snprintf(s + len, cap - len,
                                    "{\"ph\":\"s\",\"id\":%zu,\"pid\":1,\"tid\":2,\"ts\":%zu,\"cat\":\"ac2g\",\"name\":\"ac2g\"}%s", i, i, tail);
        }
    }
    snprintf(s + len, cap - len, "],\n \"INFO\": [{\"x\": 1},\n {\"y\": 2},\n {\"z\": [3]}],\n \"traceName\": \"t\"}\n");
    return s;
}

TEST(load_split_ranges_equal_sequential_plain_and_gzip)
{
    make_dir();
    char *text = tricky_trace(6000);
    write_plain("split.json", text);
    write_gzip("split.json.gz", text, "wb");
    const char *paths[] = { path_of("split.json") }, *gz[] = { path_of("split.json.gz") };
    kt_load_options one = { .size = sizeof one, .jobs = 1 }, two = { .size = sizeof two, .jobs = 2 }, three = { .size = sizeof three, .jobs = 3 };
    kt_trace *seq = NULL, *par = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, &one, &seq, &fail), KT_OK);
    uint64_t sizes[] = { 4096, 1000, 65536, 333333 };
    for (size_t i = 0; seq && i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int z = 0; z < 2; z++) {
            CHECK_INT(kt_load_ranges(z ? gz : paths, 1, i % 2 ? &three : &two, sizes[i], &par, &fail), KT_OK);
            if (par) kt_check_same_model(seq, par, true);
            if (par) kt_check_summary_rescanned(par);
            if (par && z) CHECK_INT(par->ranks[0]->json_bytes, strlen(text));
            kt_trace_free(par);
            par = NULL;
        }
    }
    if (seq) {
        kt_check_summary_rescanned(seq);
        CHECK_INT(seq->ranks[0]->rank, 1);
        CHECK(strstr(seq->ranks[0]->meta_json, "\"traceName\": \"t\""));
    }
    kt_trace_free(seq);
    kt_diags_free(fail);
    free(text);
    remove_dir();
}

/* Ranges of a large plain file are mapped, not read (read_input.c,
 * map_range), with zeros after the file's end.  A file of several MB whose
 * length is a whole number of pages (no zero tail in its last page) parses
 * in ranges as in one go; so does one cut off inside an event there (it
 * used to fail: "cannot read the file", the last range's parser taking the
 * cut for a file without traceEvents).                                   */
static void check_split_equals_whole(const char *text, bool complete)
{
    write_plain("mapped.json", text);
    const char *paths[] = { path_of("mapped.json") };
    atomic_uint_fast64_t last = 0; /* progress: all bytes, mapped ones too */
    kt_load_options one = { .size = sizeof one, .jobs = 1 }, two = { .size = sizeof two, .jobs = 2, .progress = count_progress, .progress_user = &last };
    kt_trace *seq = NULL, *par = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, &one, &seq, &fail), KT_OK);
    CHECK_INT(kt_load_ranges(paths, 1, &two, (uint64_t)1 << 20, &par, &fail), KT_OK);
    CHECK_INT(atomic_load(&last), strlen(text));
    if (seq && par && complete) kt_check_same_model(seq, par, true);
    if (seq && par && !complete) {
        CHECK_INT(par->ranks[0]->ev.n, seq->ranks[0]->ev.n);
        const kt_diag *d = kt_diags_count(kt_trace_diags(par)) ? kt_diags_get(kt_trace_diags(par), 0) : NULL;
        CHECK(d && strstr(d->message, "file ends inside traceEvents"));
        CHECK_INT(d ? d->offset : -1, kt_diags_get(kt_trace_diags(seq), 0)->offset);
    }
    if (seq) CHECK(seq->ranks[0]->ev.n > 20000);
    kt_trace_free(seq);
    kt_trace_free(par);
    kt_diags_free(fail);
}

TEST(load_split_ranges_equal_sequential)
{
    make_dir();
    char *text = tricky_trace(40000);
    size_t len = strlen(text), pages = (len + 4095) & ~(size_t)4095;
    CHECK(len > ((size_t)3 << 20));
    char *padded = malloc(pages + 1);
    if (padded) { /* blanks after the top-level object up to a page multiple */
        memcpy(padded, text, len);
        memset(padded + len, ' ', pages - len);
        padded[pages] = '\0';
        check_split_equals_whole(padded, true);
        padded[pages - 4096] = '\0'; /* cut inside an event */
        check_split_equals_whole(padded, false);
    }
    free(padded);
    free(text);
    remove_dir();
}

/* A parallel range of a plain file is read (never mapped, never lent)
 * from its start to its end, in the window's reads of up to 1 MiB: every
 * byte once, in order, then 0.  Starts: at 0, inside the first page, past
 * the first 2 MiB; ends: the file's end and one byte before a read's end. */
TEST(load_range_reads_the_file_from_its_start)
{
    make_dir();
    size_t len = ((size_t)5 << 20) + 123;
    char *text = malloc(len + 1), *got = malloc(len + ((size_t)1 << 20));
    CHECK(text != NULL && got != NULL);
    if (!text || !got) {
        free(text);
        free(got);
        return;
    }
    for (size_t i = 0; i < len; i++) text[i] = (char)('a' + (i * 7 + i / 4096) % 26);
    text[len] = '\0';
    write_plain("range.txt", text);
    const uint64_t starts[] = { 0, 7, ((uint64_t)2 << 20) + 4096 * 3 + 11 };
    const uint64_t ends[] = { len, ((uint64_t)3 << 20) - 1 };
    for (size_t k = 0; k < sizeof starts / sizeof *starts; k++)
        for (size_t e = 0; e < sizeof ends / sizeof *ends; e++) {
            kt_src *s = NULL;
            char err[256] = "";
            CHECK_INT(kt_src_open_range(path_of("range.txt"), starts[k], ends[e], &s, err, sizeof err), KT_OK);
            const char *at = NULL;
            CHECK_INT(s ? kt_src_lend(s, &at) : 0, -1);
            size_t n = 0;
            ptrdiff_t r = 0;
            while (s && n <= len && (r = kt_src_read(s, got + n, (size_t)1 << 20)) > 0) n += (size_t)r;
            CHECK_INT(r, 0);
            CHECK_INT(n, (long long)(ends[e] - starts[k]));
            CHECK(memcmp(got, text + starts[k], n) == 0);
            kt_src_close(s);
        }
    free(text);
    free(got);
    remove_dir();
}

/* Damage reports of a file parsed in ranges equal the sequential parse's
 * (kt_check_same_model compares messages and offsets): n events, CPU ops
 * on pid 100 with a kernel every 500th, kernels on pid 0 with a CPU op
 * every 700th, a negative dur every 400th (by hand, n = 6000: 12 kernels
 * on pid 100, 8 ops on pid 0 (i = 699 + 700k) and 15 negative durations). */
static char *misplaced_trace(size_t n)
{
    size_t cap = n * 120 + 64, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "{\"traceEvents\": [\n");
    for (size_t i = 0; i < n; i++) {
        bool even = i % 2 == 0, odd_one = even ? i % 500 == 0 : i % 700 == 699;
        bool kernel = even == odd_one; /* pid 100: ops; pid 0: kernels */
        len += (size_t)snprintf(s + len, cap - len,
                                "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"e%zu\", \"pid\": %d, \"tid\": 7, "
                                "\"ts\": %zu, \"dur\": %d}%s\n",
                                kernel ? "kernel" : "cpu_op", i, even ? 100 : 0, i, i % 400 == 3 ? -1 : 2,
                                i + 1 < n ? "," : "");
    }
    snprintf(s + len, cap - len, "]}\n");
    return s;
}

/* The file path[0] loaded in ranges of range bytes with opt: the model
 * seq holds, and under --hta-compat the same HTA facts.                  */
static void check_ranges_same(const char *const *path, const kt_load_options *opt, uint64_t range,
                              const kt_trace *seq)
{
    kt_trace *par = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_ranges(path, 1, opt, range, &par, &fail), KT_OK);
    if (par) kt_check_same_model(seq, par, true);
    if (par && opt->hta_compat) {
        CHECK_INT(par->min_ts, seq->min_ts);
        CHECK_INT(par->ranks[0]->hta_row0_kept, seq->ranks[0]->hta_row0_kept);
    }
    kt_trace_free(par);
    kt_diags_free(fail);
}

TEST(load_split_ranges_same_damage_reports)
{
    make_dir();
    char *text = misplaced_trace(6000);
    write_plain("misplaced.json", text);
    write_gzip("misplaced.json.gz", text, "wb");
    const char *paths[] = { path_of("misplaced.json") }, *gz[] = { path_of("misplaced.json.gz") };
    kt_load_options one = { .size = sizeof one, .jobs = 1 }, two = { .size = sizeof two, .jobs = 2 };
    kt_trace *seq = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, &one, &seq, &fail), KT_OK);
    static const char *const want[] = { "negative dur -1: kept as written, taken as 0 long by the analyses (15 times",
                                        "GPU event \"e0\"", "on pid 100, which holds CPU ops", "(12 times",
                                        "CPU op \"e699\"", "on pid 0, which holds GPU events", "(8 times" };
    for (size_t i = 0; seq && i < sizeof want / sizeof want[0]; i++) {
        bool found = false;
        for (size_t k = 0; k < kt_diags_count(kt_trace_diags(seq)); k++)
            found |= strstr(kt_diags_get(kt_trace_diags(seq), k)->message, want[i]) != NULL;
        if (!found) kt_test_fail(__FILE__, __LINE__, "no report contains \"%s\"", want[i]);
    }
    for (int z = 0; seq && z < 2; z++) check_ranges_same(z ? gz : paths, &two, 4096, seq);
    kt_trace_free(seq);
    kt_diags_free(fail);
    free(text);
    remove_dir();
}

/* A range parser reads a gzip block in place; when the block ends inside
 * an event longer than the read window, the window grows to keep the
 * event's lent bytes (read_input.c: window_own).                          */
TEST(load_gzip_block_ending_inside_an_event_longer_than_the_window)
{
    enum { BLOCK = 333333, HUGE = 700000 };
    size_t cap = 3 * BLOCK + HUGE, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "{\"traceEvents\": [\n");
    for (int i = 0; len < BLOCK + 1000; i++) /* the huge event starts just after the first block */
        len += (size_t)snprintf(s + len, cap - len,
                                "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"f\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1},\n",
                                i);
    len += (size_t)snprintf(s + len, cap - len, "  {\"ph\": \"i\", \"name\": \"long\", \"ts\": 1, \"args\": {\"t\": \"");
    for (uint32_t i = 0, x = 1; i < HUGE; i++) { /* letters that barely compress: the .gz is split */
        x = x * 1103515245u + 12345u;
        s[len++] = (char)('a' + (x >> 16) % 26);
    }
    snprintf(s + len, cap - len, "\"}},\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", \"ts\": 2, \"dur\": 1}\n]}\n");
    make_dir();
    write_plain("huge.json", s);
    write_gzip("huge.json.gz", s, "wb");
    const char *paths[] = { path_of("huge.json") }, *gz[] = { path_of("huge.json.gz") };
    kt_load_options one = { .size = sizeof one, .jobs = 1 }, two = { .size = sizeof two, .jobs = 2 };
    kt_trace *seq = NULL, *par = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, &one, &seq, &fail), KT_OK);
    CHECK_INT(kt_load_ranges(gz, 1, &two, BLOCK, &par, &fail), KT_OK);
    if (seq && par) kt_check_same_model(seq, par, true);
    if (par) CHECK_INT(par->ranks[0]->ev.n, seq ? seq->ranks[0]->ev.n : 0);
    kt_trace_free(seq);
    kt_trace_free(par);
    kt_diags_free(fail);
    free(s);
    remove_dir();
}

/* The loader's event summary, by hand: metadata has no time, the "Trace"
 * span and events without a category are not HTA's origin, a negative
 * dur ends where it starts; calls named cu* with GPU work make it CUDA.  */
TEST(load_event_summary_by_hand)
{
    static const char text[] =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"ts\": 5, \"args\": {\"name\": \"x\"}},\n"
        " {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 1000},\n"
        " {\"ph\": \"i\", \"name\": \"mark\", \"pid\": 1, \"tid\": 1, \"ts\": 20, \"s\": \"t\"},\n"
        " {\"ph\": \"X\", \"name\": \"no category\", \"pid\": 1, \"tid\": 1, \"ts\": 30, \"dur\": 5},\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": 40.5, \"dur\": 2000},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 2100, \"dur\": -3, \"args\": {\"correlation\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 60, \"dur\": 4, \"args\": {\"correlation\": 1, \"stream\": 7}}\n"
        "]}\n";
    kt_load_options one = { .size = sizeof one, .jobs = 1 };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("summary.json", text, sizeof text - 1, &one, &t, &fail), KT_OK);
    if (t) {
        const kt_event_summary *s = &t->ranks[0]->summary;
        CHECK_INT(s->first_ts, 10000);
        CHECK_INT(s->last_end, 2100000);
        CHECK_INT(s->origin, 40500);
        CHECK_INT(t->min_ts, 40500);
        CHECK(s->gpu_work && s->cuda_calls && !s->hip_calls && !s->mtia_calls);
        CHECK_INT(t->ranks[0]->device_type, KT_DEV_CUDA);
        kt_check_summary_rescanned(t);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
}

/* Every shared trace, loaded in small ranges on two threads: the summary
 * the loader kept is the one a scan of the events gives.                  */
TEST(load_event_summary_equals_a_scan_on_every_shared_trace)
{
    NEED_SHARED();
    size_t nfound = 0, loaded = 0;
    char **found = fx_shared_trace_files(&nfound);
    kt_load_options two = { .size = sizeof two, .jobs = 2 };
    for (size_t i = 0; i < nfound; i++) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        const char *path[] = { found[i] };
        if (kt_load_ranges(path, 1, &two, 65536, &t, &fail) == KT_OK) {
            kt_check_summary_rescanned(t);
            loaded++;
        }
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    CHECK(loaded >= 28);
    fx_free_paths(found, nfound);
}

/* --hta-compat reads HTA's rows in the range workers (model/hta_rows.c);
 * a range whose events write no ts as a float is not rounded there, and
 * its rows are rounded when the rank turns out to have ns times.  Events
 * (10 µs apart): ProfilerStep#1..#6 every 500th (the last step goes),
 * launches (corr = their index, every 70th twice: its kernel comes
 * twice), their kernels one event later (every 50th without a launch:
 * it goes), instants (HTA drops them) and ops.  Durs are x.5 µs (HTA's
 * rounding floors them); ts are floats with a fraction only in events
 * [lo, hi).                                                             */
static char *compat_trace(size_t n, size_t lo, size_t hi)
{
    size_t cap = n * 400 + 64, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s, cap, "{\"traceEvents\": [\n");
    for (size_t i = 0; i < n; i++) {
        char ts[40];
        if (i >= lo && i < hi) snprintf(ts, sizeof ts, "%zu.%03zu", i * 10, i * 37 % 1000);
        else snprintf(ts, sizeof ts, "%zu", i * 10);
        const char *sep = i + 1 < n ? "," : "";
        if (i % 500 == 0)
            len += (size_t)snprintf(s + len, cap - len, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%zu\", \"pid\": 100, \"tid\": 1, \"ts\": %s, \"dur\": 4999.5}%s\n", i / 500 + 1, ts, sep);
        else if (i % 4 == 1)
            for (int twice = 0; twice <= (i % 70 == 1); twice++)
                len += (size_t)snprintf(s + len, cap - len, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1, \"ts\": %s, \"dur\": 3.5, \"args\": {\"correlation\": %zu}}%s\n", ts, i, twice < (i % 70 == 1) ? "," : sep);
        else if (i % 4 == 2)
            len += (size_t)snprintf(s + len, cap - len, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%zu\", \"pid\": 0, \"tid\": 7, \"ts\": %s, \"dur\": 1.5, \"args\": {\"stream\": 7, \"correlation\": %zu}}%s\n", i % 5, ts, i % 50 == 2 ? 999999 : i - 1, sep);
        else if (i % 4 == 3)
            len += (size_t)snprintf(s + len, cap - len, "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 100, \"tid\": 1, \"ts\": %s, \"s\": \"t\"}%s\n", ts, sep);
        else
            len += (size_t)snprintf(s + len, cap - len, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 1, \"ts\": %s, \"dur\": 2.5}%s\n", ts, sep);
    }
    snprintf(s + len, cap - len, "]}\n");
    return s;
}

TEST(hta_compat_ranges_with_some_ns_times_match_one_thread)
{
    make_dir();
    char *text = compat_trace(3000, 1200, 1400);
    write_plain("compat.json", text);
    write_gzip("compat.json.gz", text, "wb");
    const char *paths[] = { path_of("compat.json") }, *gz[] = { path_of("compat.json.gz") };
    kt_load_options one = { .size = sizeof one, .jobs = 1, .hta_compat = 1 };
    kt_load_options two = { .size = sizeof two, .jobs = 2, .hta_compat = 1 };
    kt_trace *seq = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, &one, &seq, &fail), KT_OK);
    if (seq) {
        const kt_events *e = &seq->ranks[0]->ev;
        CHECK(seq->ranks[0]->hta_row0_kept);
        /* row 0: step #1 at 0 + 4999.5 -> dur 4999; row 1: a launch, 3.5 -> 3 */
        CHECK_INT(e->dur[0], 4999000);
        CHECK_INT(e->dur[1], 3000);
        /* event 1200 (an op at 12000.400 µs) starts at 12001; its 2.5 µs end at floor(12002.9) */
        size_t at = 0;
        while (at < e->n && e->ts[at] < 12000000) at++;
        CHECK_INT(e->ts[at], 12001000);
        CHECK_INT(e->dur[at], 1000);
        /* nothing of step #6 (from 25000 µs on) stays */
        CHECK(e->n > 0 && e->ts[e->n - 1] < 25000000);
    }
    uint64_t sizes[] = { 4096, 1000, 65536 };
    for (size_t i = 0; seq && i < sizeof sizes / sizeof sizes[0]; i++)
        for (int z = 0; z < 2; z++) check_ranges_same(z ? gz : paths, &two, sizes[i], seq);
    kt_trace_free(seq);
    kt_diags_free(fail);
    free(text);
    remove_dir();
}

/* The shared traces of HTA's test data under --hta-compat (up to the
 * real ns-resolution one, 1.2 MB gzipped: the larger ones would take most
 * of a sanitized run), in small ranges on two threads and in one piece on
 * one: the same rows, times and HTA facts.                               */
static bool small_hta_trace(const char *path)
{
    struct stat st;
    return strstr(path, "/traces/hta/") && stat(path, &st) == 0 && st.st_size <= 1200000;
}

TEST(hta_compat_ranges_match_one_thread_on_small_hta_shared_traces)
{
    NEED_SHARED();
    size_t nfound = 0, compared = 0;
    char **found = fx_shared_trace_files(&nfound);
    kt_load_options one = { .size = sizeof one, .jobs = 1, .hta_compat = 1 };
    kt_load_options two = { .size = sizeof two, .jobs = 2, .hta_compat = 1 };
    for (size_t i = 0; i < nfound; i++) {
        kt_trace *seq = NULL;
        kt_diags *fail = NULL;
        const char *path[] = { found[i] };
        if (small_hta_trace(found[i]) && kt_load(path, 1, &one, &seq, &fail) == KT_OK) {
            check_ranges_same(path, &two, 65536, seq);
            compared++;
        }
        kt_trace_free(seq);
        kt_diags_free(fail);
    }
    CHECK(compared >= 20);
    fx_free_paths(found, nfound);
}
