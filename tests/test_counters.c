/* test_counters.c — trace copies with counter tracks: original bytes kept,
 * valid JSON (python3 json.load), gzip in → gzip out, HTA's events. */
#include "fixture.h"
#include "model/model.h"
#include "oracle.h"
#include "test.h"

#include <locale.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Exit status of `python3 -c script args...`; -1 when python3 is missing. */
static int python(const char *script, const char *a, const char *b)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) return -1;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 -c '%s' '%s' '%s'", script, a, b ? b : "");
    return system(cmd);
}

/* A launch (0 µs) and its kernel (10–15 µs), then "traceName" after the
 * array; returns the dir holding trace.json.                              */
static const char *tiny_trace(char *dir, const char *events)
{
    char path[256];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0},\n\"traceEvents\": [%s],\n"
             "\"traceName\": \"t\"}\n",
             events);
    write_file(path, text);
    return dir;
}

/* A copy opens with the member naming its source (trace_sink.c): true
 * when b (n bytes) does, the member then taken out, leaving the input's
 * bytes.                                                                 */
static bool strip_source(char *b, size_t *n)
{
    const char *member = "{\"kinetaSource\": \"trace.json\", ";
    size_t m = strlen(member);
    if (!b || *n < m || memcmp(b, member, m)) return false;
    memmove(b + 1, b + m, *n - m + 1);
    *n -= m - 1;
    return true;
}

/* Frees what a copy test made and removes its files. */
static void remove_copy(kt_trace *t, kt_tables *ts, const char *in, const char *out, const char *dir)
{
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(in);
    unlink(out);
    rmdir(dir);
}

static const char *const tiny_events =
    "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 100, \"dur\": 5, \"args\": {\"correlation\": 7}},"
    "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k [x] {y}\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 110, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 7}}\n";

TEST(counters_plain_copy_keeps_bytes)
{
    char dir[] = "/tmp/kt_counters_XXXXXX", out[300], in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/trace.json", tiny_trace(dir, tiny_events));
    kt_trace *t = fx_load_path(in, false);
    if (!t) return;
    kt_counters_options o = { .size = sizeof o, .out_dir = dir };
    kt_tables *ts;
    CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
    const kt_table *f = kt_tables_find(ts, "files");
    CHECK_INT(kt_table_nrows(f), 1);
    snprintf(out, sizeof out, "%s/trace_with_counters.json", dir);
    CHECK_STR(kt_table_str(f, 0, 2), out);
    CHECK_INT(kt_table_int(f, 0, 3), 2); /* queue 1 at 100, 0 at 110 */
    size_t nin, nout;
    char *a = fx_read_file(in, &nin), *b = fx_read_file(out, &nout);
    CHECK(a && b);
    size_t nfile = nout;
    CHECK(strip_source(b, &nout));
    if (a && b) {
        const char *end = strrchr(a, ']'); /* the array's end: last ']' here */
        size_t head = (size_t)(end - a), tail = nin - head;
        CHECK_INT(kt_table_int(f, 0, 4), nfile);
        CHECK(nout > nin && !memcmp(a, b, head) && !memcmp(a + head, b + nout - tail, tail));
        CHECK(strstr(b + head, "{\"ph\": \"C\", \"name\": \"Queue Length\", \"pid\": 0, \"ts\": 100, \"id\": 7, "
                               "\"args\": {\"Queue Length\": 1}}") != NULL);
    }
    int rc = python("import json,sys; d=json.load(open(sys.argv[1])); "
                    "c=[e for e in d[\"traceEvents\"] if e[\"ph\"]==\"C\"]; "
                    "sys.exit(0 if len(d[\"traceEvents\"])==4 and [e[\"ts\"] for e in c]==[100,110] "
                    "and d[\"traceName\"]==\"t\" else 1)",
                    out, NULL);
    if (rc >= 0) CHECK_INT(rc, 0);
    free(a);
    free(b);
    remove_copy(t, ts, in, out, dir);
}

/* No events, no counters: a byte-identical copy; a file cut off inside
 * traceEvents cannot be completed and is refused.                          */
TEST(counters_empty_array_and_truncated_file)
{
    char dir[] = "/tmp/kt_counters_XXXXXX", in[300], out[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/trace.json", tiny_trace(dir, ""));
    snprintf(out, sizeof out, "%s/trace_with_counters.json", dir);
    kt_trace *t = fx_load_path(in, false);
    kt_counters_options o = { .size = sizeof o, .out_dir = dir };
    kt_tables *ts = NULL;
    if (t) {
        CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
        size_t na, nb;
        char *a = fx_read_file(in, &na), *b = fx_read_file(out, &nb);
        CHECK(strip_source(b, &nb)); /* then byte for byte the input */
        CHECK(a && b && na == nb && !memcmp(a, b, na));
        free(a);
        free(b);
        kt_tables_free(ts);
        kt_trace_free(t);
    }
    unlink(out);
    char text[1024];
    snprintf(text, sizeof text, "{\"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [%s", tiny_events);
    write_file(in, text);
    t = fx_load_path(in, false);
    if (t) {
        kt_diags *why;
        CHECK_INT(kt_counters(t, NULL, &o, &ts, &why), KT_EINPUT);
        CHECK(strstr(fx_why(why), "end of traceEvents was not found") != NULL);
        kt_trace_free(t);
    }
    CHECK(access(out, F_OK) != 0);
    unlink(in);
    rmdir(dir);
}

/* --hta-compat: the counter events are exactly HTA's (its oracle output),
 * the original events come first unchanged, gzip in gives gzip out.       */
TEST(counters_hta_compat_events_match_oracle)
{
    NEED_SHARED();
    static const char *const cases[][2] = {
        { "critical_path/cuda_event_sync", "cp_cuda_event_sync/event_sync_trace_with_counters.json.gz" },
        { "critical_path/alexnet",
          "cp_alexnet/benchmark_result_2869224_1695835535_trace_with_counters.json.gz" },
        { "nccl_parser_config", "nccl_parser_config/nccl_data_with_counters.json.gz" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[256], dir[] = "/tmp/kt_counters_XXXXXX", oracle[512];
        CHECK(mkdtemp(dir) != NULL);
        snprintf(rel, sizeof rel, "traces/hta/%s", cases[i][0]);
        kt_trace *t = fx_load_shared(rel, true);
        if (!t) continue;
        kt_counters_options o = { .size = sizeof o, .out_dir = dir };
        kt_tables *ts;
        CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
        const char *out = kt_table_str(kt_tables_find(ts, "files"), 0, 2);
        const char *in = kt_table_str(kt_tables_find(ts, "files"), 0, 1);
        snprintf(rel, sizeof rel, "oracle/hta/%s", cases[i][1]);
        snprintf(oracle, sizeof oracle, "%s", kt_test_shared_path(rel));
        CHECK(strstr(out, ".json.gz") != NULL);
        char script[2048];
        snprintf(script, sizeof script,
                 "import gzip,json,sys; a=json.load(gzip.open(sys.argv[1])); b=json.load(gzip.open(sys.argv[2])); "
                 "o=json.load(gzip.open(\"%s\"))[\"traceEvents\"]; n=len(o); "
                 "C=lambda d: [e for e in d[\"traceEvents\"] if e.get(\"ph\")==\"C\" and \"args\" in e and "
                 "(\"Queue Length\" in e[\"args\"] or \"Memcpy BW\" in e[\"args\"])]; "
                 "sys.exit(0 if a[\"traceEvents\"][:n]==o and C(a)==C(b) and len(C(a))>0 else 1)",
                 in);
        int rc = python(script, out, oracle);
        if (rc >= 0) CHECK_INT(rc, 0);
        unlink(out);
        rmdir(dir);
        kt_tables_free(ts);
        kt_trace_free(t);
    }
}

/* An output directory that cannot be written: an error with the reason,
 * for plain and gzip inputs alike, nothing left behind.                   */
TEST(counters_unwritable_output_dir)
{
    NEED_SHARED();
    kt_trace *t = fx_load_shared("traces/hta/triton_example", false);
    if (!t) return;
    kt_counters_options o = kt_counters_defaults();
    o.out_dir = "/nonexistent-kineta-dir";
    kt_tables *ts = NULL;
    kt_diags *why;
    CHECK_INT(kt_counters(t, NULL, &o, &ts, &why), KT_EANALYSIS);
    CHECK(ts == NULL);
    CHECK(strstr(fx_why(why), "cannot create /nonexistent-kineta-dir/triton_example_with_counters.json.gz") != NULL);
    kt_trace_free(t);
}

/* pid/tid values the 32-bit columns keep in the rank's table (strings,
 * 64-bit pthread ids) and small ones (0, negative) come back as written:
 * in the model, in info's streams and in the written counter events.       */
TEST(counters_and_info_keep_original_pid_tid)
{
    static const char *const events =
        "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": \"Spans\","
        " \"ts\": 100, \"dur\": 5, \"args\": {\"correlation\": 1}},"
        "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": -7, \"tid\": 139873452345,"
        " \"ts\": 101, \"dur\": 5, \"args\": {\"correlation\": 2}},"
        "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": -2000000000, \"tid\": 3,"
        " \"ts\": 102, \"dur\": 5, \"args\": {\"correlation\": 3}},"
        "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"
        " \"ts\": 110, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 1}},"
        "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": -7, \"tid\": 8,"
        " \"ts\": 111, \"dur\": 5, \"args\": {\"stream\": 8, \"correlation\": 2}},"
        "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 139873452345, \"tid\": 9,"
        " \"ts\": 112, \"dur\": 5, \"args\": {\"stream\": 9, \"correlation\": 3}}\n";
    char dir[] = "/tmp/kt_counters_XXXXXX", out[300], in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/trace.json", tiny_trace(dir, events));
    kt_trace *t = fx_load_path(in, false);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(kt_event_pid(r, 0), 0);
    CHECK(kt_id_is_str(kt_event_tid(r, 0)));
    CHECK_STR(kt_strtab_get(t->strs, kt_id_str(kt_event_tid(r, 0))), "Spans");
    CHECK_INT(kt_event_pid(r, 1), -7);
    CHECK_INT(kt_event_tid(r, 1), 139873452345);
    CHECK_INT(kt_event_pid(r, 2), -2000000000);
    CHECK_INT(kt_event_pid(r, 5), 139873452345);
    CHECK_INT(kt_ev_pid(&r->ev, 5), kt_ev_tid(&r->ev, 1)); /* equal values, equal column values */

    kt_tables *info;
    CHECK_INT(kt_info(t, NULL, &info), KT_OK);
    const kt_table *st = kt_tables_find(info, "streams");
    CHECK_INT(kt_table_nrows(st), 3);
    if (kt_table_nrows(st) == 3) {
        CHECK_INT(kt_table_int(st, 0, 1), -7);
        CHECK_INT(kt_table_int(st, 1, 1), 0);
        CHECK_INT(kt_table_int(st, 2, 1), 139873452345);
    }
    kt_tables_free(info);

    kt_counters_options o = { .size = sizeof o, .out_dir = dir };
    kt_tables *ts;
    CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
    snprintf(out, sizeof out, "%s/trace_with_counters.json", dir);
    size_t nout;
    char *b = fx_read_file(out, &nout);
    CHECK(b != NULL);
    if (b) {
        CHECK(strstr(b, "\"Queue Length\", \"pid\": 0, \"ts\": 100, \"id\": 7,") != NULL);
        CHECK(strstr(b, "\"Queue Length\", \"pid\": -7, \"ts\": 101, \"id\": 8,") != NULL);
        CHECK(strstr(b, "\"Queue Length\", \"pid\": 139873452345, \"ts\": 102, \"id\": 9,") != NULL);
    }
    free(b);
    remove_copy(t, ts, in, out, dir);
}

/* Counter values are JSON numbers ('.' radix) even when the host program
 * runs under a locale whose radix is ',' (skipped where none is installed;
 * CI generates de_DE.UTF-8).                                               */
TEST(counters_numbers_ignore_the_locale_radix)
{
    if (!fx_comma_locale(LC_NUMERIC)) { kt_test_skip("no locale with a comma radix installed"); return; }
    char dir[] = "/tmp/kt_counters_XXXXXX", out[300], in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/trace.json",
             tiny_trace(dir, "\n{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\","
                             " \"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 4,"
                             " \"args\": {\"stream\": 7, \"bytes\": 6000, \"memory bandwidth (GB/s)\": 1.5}}\n"));
    kt_trace *t = fx_load_path(in, false);
    kt_tables *ts = NULL;
    kt_counters_options o = { .size = sizeof o, .out_dir = dir, .no_queue_length = 1 };
    if (t) CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
    setlocale(LC_NUMERIC, "C");
    snprintf(out, sizeof out, "%s/trace_with_counters.json", dir);
    size_t n;
    char *b = fx_read_file(out, &n);
    CHECK(b && strstr(b, "\"args\": {\"Memcpy BW\": 1.5}}") != NULL);
    free(b);
    remove_copy(t, ts, in, out, dir);
}

/* Two ranks whose files have the same name (one directory per rank) get
 * distinct outputs instead of the second overwriting the first.            */
TEST(counters_same_file_name_in_two_dirs)
{
    char dir[] = "/tmp/kt_counters_XXXXXX", d0[300], d1[300], p0[320], p1[320];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(d0, sizeof d0, "%s/r0", dir);
    snprintf(d1, sizeof d1, "%s/r1", dir);
    mkdir(d0, 0700);
    mkdir(d1, 0700);
    const char *text = "{\"distributedInfo\": {\"rank\": %d},\n\"traceEvents\": [%s]}\n";
    char buf[2048];
    snprintf(p0, sizeof p0, "%s/trace.json", d0);
    snprintf(buf, sizeof buf, text, 0, tiny_events);
    write_file(p0, buf);
    snprintf(p1, sizeof p1, "%s/trace.json", d1);
    snprintf(buf, sizeof buf, text, 1, tiny_events);
    write_file(p1, buf);
    const char *paths[] = { p0, p1 };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 2, NULL, &t, &fail), KT_OK);
    kt_tables *ts = NULL;
    kt_counters_options o = { .size = sizeof o, .out_dir = dir };
    if (t) CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_OK);
    const kt_table *f = ts ? kt_tables_find(ts, "files") : NULL;
    char want0[400], want1[400];
    snprintf(want0, sizeof want0, "%s/trace_rank0_with_counters.json", dir);
    snprintf(want1, sizeof want1, "%s/trace_rank1_with_counters.json", dir);
    CHECK(f && kt_table_nrows(f) == 2);
    if (f && kt_table_nrows(f) == 2) {
        CHECK_STR(kt_table_str(f, 0, 2), want0);
        CHECK_STR(kt_table_str(f, 1, 2), want1);
    }
    CHECK(access(want0, R_OK) == 0 && access(want1, R_OK) == 0);
    unlink(want0);
    unlink(want1);
    unlink(p0);
    unlink(p1);
    rmdir(d0);
    rmdir(d1);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(t);
    kt_diags_free(fail);
}
