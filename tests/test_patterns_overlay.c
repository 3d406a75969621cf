/* test_patterns_overlay.c — DIR/overlaid_<file> of `kineta patterns`:
 * the top patterns' events carry args.Patterns, other GPU events' names
 * become ids with the dictionary on the profiler span, every other byte
 * is the original's, and kineta loads the copy back with every event and
 * every flow paired. */
#include "fixture.h"
#include "model/index.h"
#include "oracle.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* aten::foo launches k1 k2 k3 (correlations 1-3, flows 1-3); kx (corr 4)
 * has no op; an instant without args, metadata, the profiler span.    */
static const char *const TINY =
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0},\n\"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"host\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::foo\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 50, \"args\": {\"External id\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 120, \"dur\": 5, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 130, \"dur\": 5, \"args\": {\"correlation\": 3}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 5, \"args\": {\"correlation\": 4}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, \"ts\": 140, \"dur\": 10, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 150, \"dur\": 10, \"args\": {\"stream\": 7, \"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\", \"pid\": 0, \"tid\": 7, \"ts\": 160, \"dur\": 10, \"args\": {}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kx\", \"pid\": 0, \"tid\": 7, \"ts\": 210, \"dur\": 10, \"args\": {\"stream\": 7, \"correlation\": 4}},\n"
    "{\"ph\": \"s\", \"id\": 1, \"pid\": 1, \"tid\": 1, \"ts\": 110, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"f\", \"id\": 1, \"pid\": 0, \"tid\": 7, \"ts\": 140, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"s\", \"id\": 4, \"pid\": 1, \"tid\": 1, \"ts\": 200, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "{\"ph\": \"f\", \"id\": 4, \"pid\": 0, \"tid\": 7, \"ts\": 210, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"mark \\\"q\\\"\", \"pid\": 1, \"tid\": 1, \"ts\": 300},\n"
    "{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 90, \"dur\": 300, \"args\": {\"Op count\": 0}}\n"
    "],\n\"traceName\": \"t\"}\n";

/* k3 has "args": {} and no correlation: give it one without args text. */
static const char *tiny_fixed(void)
{
    static char buf[8192];
    const char *k3 = "\"name\": \"k3\", \"pid\": 0, \"tid\": 7, \"ts\": 160, \"dur\": 10, \"args\": {}";
    const char *at = strstr(TINY, k3);
    snprintf(buf, sizeof buf, "%.*s\"name\": \"k3\", \"pid\": 0, \"tid\": 7, \"ts\": 160, \"dur\": 10, "
             "\"args\": {\"stream\": 7, \"correlation\": 3}%s", (int)(at - TINY), TINY, at + strlen(k3));
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

static kt_tables *overlay(const kt_trace *t, const char *op, const char *dir)
{
    kt_patterns_options o = kt_patterns_defaults();
    o.op = op;
    o.out_dir = dir;
    kt_tables *ts = NULL;
    CHECK_INT(kt_patterns(t, NULL, &o, &ts, NULL), KT_OK);
    return ts;
}

static size_t flows_of(const kt_trace *t)
{
    const kt_rank *r = t->ranks[0];
    CHECK_INT(kt_index_flows(r), KT_OK);
    return r->idx->nflows;
}

/* A scratch directory for tiny.json with out/ beside it for the overlay
 * (in, outdir: 300 bytes; out: 320).                                    */
static void make_scratch(char *dir, char *in, char *outdir, char *out)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, 300, "%s/tiny.json", dir);
    snprintf(outdir, 300, "%s/out", dir);
    snprintf(out, 320, "%s/overlaid_tiny.json", outdir);
    CHECK(mkdir(outdir, 0755) == 0);
}

/* Removes what a test made: the input, the overlay and their directories. */
static void remove_scratch(const char *dir, const char *in, const char *outdir, const char *out)
{
    unlink(in);
    unlink(out);
    rmdir(outdir);
    rmdir(dir);
}

TEST(patterns_overlay_marks_renames_and_keeps_the_rest)
{
    char dir[] = "/tmp/kt_patterns_XXXXXX", in[300], outdir[300], out[320];
    make_scratch(dir, in, outdir, out);
    write_text(in, tiny_fixed());
    kt_trace *t = fx_load_path(in, false);
    CHECK(t != NULL);
    if (!t) return;
    kt_patterns_options next_to = kt_patterns_defaults();
    next_to.op = "aten::foo";
    next_to.out_dir = dir; /* the input's own directory: refused */
    kt_tables *refused = NULL;
    CHECK_INT(kt_patterns(t, NULL, &next_to, &refused, NULL), KT_EUSAGE);
    kt_tables *ts = overlay(t, "aten::foo", outdir);
    const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
    const kt_table *pat = ts ? kt_tables_find(ts, "patterns") : NULL;
    CHECK(files && pat && kt_table_nrows(files) == 1 && kt_table_nrows(pat) == 1);
    if (files && pat && kt_table_nrows(files) == 1 && kt_table_nrows(pat) == 1) {
        CHECK_STR(kt_table_str(pat, 0, 0), "aten::foo|k1|k2|k3");
        CHECK_STR(kt_table_str(files, 0, 2), out);
        CHECK_INT(kt_table_int(files, 0, 3), 7); /* the op, 3 launches, 3 kernels */
        CHECK_INT(kt_table_int(files, 0, 5), 1); /* kx */
    }
    char *text = fx_read_file(out, NULL);
    CHECK(text != NULL);
    if (text) {
        CHECK_INT(count_of(text, "\"args\": {\"Patterns\": {\"aten::foo|k1|k2|k3\": 1}, "), 7);
        /* names become ids numbered in order of first appearance among the
         * GPU events (k1, k2, k3, kx): not string ids, which depend on the
         * loader's threads */
        unsigned kx = 3;
        char renamed[64], dict[64];
        snprintf(renamed, sizeof renamed, "\"name\": \"%u\", \"pid\": 0", kx);
        snprintf(dict, sizeof dict, "\"%u\": \"kx\"", kx);
        CHECK_INT(count_of(text, renamed), 1);
        CHECK_INT(count_of(text, dict), 1);
        CHECK(strstr(text, "\"Op count\": 0}") != NULL);
        CHECK(strstr(text, "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"mark \\\"q\\\"\", \"pid\": 1, \"tid\": 1, \"ts\": 300}") != NULL);
        CHECK(strstr(text, "],\n\"traceName\": \"t\"}\n") != NULL);
    }
    kt_trace *back = fx_load_path(out, false);
    CHECK(back != NULL);
    if (back) {
        CHECK_INT(back->ranks[0]->total_events, t->ranks[0]->total_events);
        CHECK_INT(flows_of(back), 2);
        CHECK_INT(flows_of(back), flows_of(t));
        kt_trace_free(back);
    }
    free(text);
    kt_tables_free(ts);
    kt_trace_free(t);
    remove_scratch(dir, in, outdir, out);
}

/* A real gzip trace: HTA's pattern events marked, and the copy loads back
 * with every event and every flow paired. */
TEST(patterns_overlay_real_trace_loads_back)
{
    NEED_SHARED();
    const char *rel = fx_hta_trace("cp_simple_add");
    const kt_trace *t = fx_shared_trace(rel, false);
    CHECK(t != NULL);
    if (!t) return;
    char dir[] = "/tmp/kt_patterns_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    kt_tables *ts = overlay(t, "aten::conv2d", dir);
    const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
    CHECK(files && kt_table_nrows(files) == 1);
    if (files && kt_table_nrows(files) == 1) {
        const char *out = kt_table_str(files, 0, 2);
        CHECK(strstr(out, "/overlaid_benchmark_result_493459_1694039959_trace.json.gz") != NULL);
        CHECK_INT(kt_table_int(files, 0, 3), 331);
        CHECK_INT(kt_table_int(files, 0, 4), 0);
        CHECK_INT(kt_table_int(files, 0, 5), 57);
        kt_trace *back = fx_load_path(out, false);
        CHECK(back != NULL);
        if (back) {
            CHECK(back->ranks[0]->gzip);
            CHECK_INT(back->ranks[0]->total_events, t->ranks[0]->total_events);
            CHECK_INT(back->ranks[0]->ev.n, t->ranks[0]->ev.n);
            CHECK_INT(flows_of(back), flows_of(t));
            CHECK(flows_of(back) > 0);
            kt_trace_free(back);
        }
        unlink(out);
    }
    kt_tables_free(ts);
    rmdir(dir);
}

/* Exit status of python3 comparing the args.Patterns of every event (by
 * position in traceEvents) of two gzip traces; -1 without python3.     */
static int same_marks(const char *ours, const char *theirs)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) return -1;
    char script[] = "/tmp/kt_marks_XXXXXX";
    int fd = mkstemp(script);
    CHECK(fd >= 0);
    if (fd < 0) return 1;
    static const char text[] =
        "import json,gzip,sys\n"
        "def marks(p):\n"
        "    ev=json.load(gzip.open(p))[\"traceEvents\"]\n"
        "    return len(ev),{i:e[\"args\"][\"Patterns\"] for i,e in enumerate(ev)\n"
        "                    if isinstance(e.get(\"args\"),dict) and \"Patterns\" in e[\"args\"]}\n"
        "a,b=marks(sys.argv[1]),marks(sys.argv[2])\n"
        "sys.exit(0 if a==b and a[1] else 1)\n";
    bool written = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 %s '%s' '%s'", script, ours, theirs);
    int rc = written ? system(cmd) : 1;
    unlink(script);
    return rc;
}

/* Under --hta-compat the events carrying args.Patterns, and their pattern
 * → count dictionaries, are HTA's (oracle overlaid_<file>.json.gz) on every
 * trace HTA wrote one for. */
TEST(patterns_overlay_marks_equal_hta_overlay)
{
    NEED_SHARED();
    static const char *const cases[][3] = {
        { "cp_alexnet", "aten::conv2d", "overlaid_benchmark_result_2869224_1695835535_trace.json.gz" },
        { "cp_simple_add", "aten::conv2d", "overlaid_benchmark_result_493459_1694039959_trace.json.gz" },
        { "df_index_resolver", "aten::addmm", "overlaid_df_index_resolver.json.gz" },
        { "trace_diff_test", "aten::linear", "overlaid_test.json.gz" },
        { "negative_queue_length_values_check", "aten::mm", "overlaid_rank0.json.gz" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const kt_trace *t = fx_shared_trace(fx_hta_trace(cases[i][0]), true);
        CHECK(t != NULL);
        if (!t) continue;
        char dir[] = "/tmp/kt_patterns_XXXXXX", rel[512];
        CHECK(mkdtemp(dir) != NULL);
        kt_tables *ts = overlay(t, cases[i][1], dir);
        const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
        snprintf(rel, sizeof rel, "oracle/hta/%s/%s", cases[i][0], cases[i][2]);
        const char *theirs = kt_test_shared_path(rel);
        if (files && kt_table_nrows(files) == 1 && theirs) {
            int rc = same_marks(kt_table_str(files, 0, 2), theirs);
            if (rc == -1) {
                kt_test_skip("python3 not available");
            } else if (rc != 0) {
                kt_test_fail(__FILE__, __LINE__, "%s: marks differ from HTA's overlay", cases[i][0]);
            }
            unlink(kt_table_str(files, 0, 2));
        } else {
            CHECK(files && theirs);
        }
        kt_tables_free(ts);
        rmdir(dir);
    }
}

/* Two ranks whose files share a name: one overlay each, named apart, and a
 * rank column; under --hta-compat only the lowest rank, HTA's columns.  */
TEST(patterns_two_ranks_same_file_name)
{
    char dir[] = "/tmp/kt_patterns_XXXXXX", sub[2][64], in[2][96];
    CHECK(mkdtemp(dir) != NULL);
    for (int k = 0; k < 2; k++) {
        snprintf(sub[k], sizeof sub[k], "%s/r%d", dir, k);
        CHECK(mkdir(sub[k], 0755) == 0);
        snprintf(in[k], sizeof in[k], "%s/trace.json", sub[k]);
        const char *text = tiny_fixed();
        char buf[8192];
        snprintf(buf, sizeof buf, "%.*s\"rank\": %d%s", (int)(strstr(text, "\"rank\": 0") - text), text, k,
                 strstr(text, "\"rank\": 0") + 9);
        write_text(in[k], buf);
    }
    for (int compat = 0; compat < 2; compat++) {
        const char *paths[2] = { in[0], in[1] };
        kt_load_options lo = { .size = sizeof lo, .hta_compat = compat };
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        CHECK_INT(kt_load(paths, 2, &lo, &t, &fail), KT_OK);
        kt_diags_free(fail);
        if (!t) continue;
        kt_tables *ts = overlay(t, "aten::foo", dir);
        const kt_table *pat = ts ? kt_tables_find(ts, "patterns") : NULL;
        const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
        CHECK(pat && files);
        if (pat && files && !compat) {
            CHECK_INT(kt_table_nrows(pat), 2);
            CHECK_INT(kt_table_int(pat, 0, 4), 0);
            CHECK_INT(kt_table_int(pat, 1, 4), 1);
            CHECK_INT(kt_table_nrows(files), 2);
            CHECK(kt_table_nrows(files) == 2 && strstr(kt_table_str(files, 1, 2), "/overlaid_rank1_trace.json"));
        } else if (pat && files) {
            CHECK_INT(kt_table_nrows(pat), 1);
            CHECK_INT(kt_table_ncols(pat), 4);
            CHECK_INT(kt_table_nrows(files), 1);
        }
        for (size_t i = 0; files && i < kt_table_nrows(files); i++) unlink(kt_table_str(files, i, 2));
        kt_tables_free(ts);
        kt_trace_free(t);
    }
    for (int k = 0; k < 2; k++) {
        unlink(in[k]);
        rmdir(sub[k]);
    }
    rmdir(dir);
}

/* The root op written without args: it cannot be matched to the model, so
 * it is counted as unmarkable and left as is; the rest are marked. */
TEST(patterns_overlay_event_without_args_is_unmarkable)
{
    char dir[] = "/tmp/kt_patterns_XXXXXX", in[300], outdir[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/noargs.json", dir);
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    CHECK(mkdir(outdir, 0755) == 0);
    const char *text = tiny_fixed(), *cut = ", \"args\": {\"External id\": 9}";
    const char *at = strstr(text, cut);
    char buf[8192];
    snprintf(buf, sizeof buf, "%.*s%s", (int)(at - text), text, at + strlen(cut));
    write_text(in, buf);
    kt_trace *t = fx_load_path(in, false);
    CHECK(t != NULL);
    if (!t) return;
    kt_tables *ts = overlay(t, "aten::foo", outdir);
    const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
    CHECK(files && kt_table_nrows(files) == 1);
    if (files && kt_table_nrows(files) == 1) {
        CHECK_INT(kt_table_int(files, 0, 3), 6);
        CHECK_INT(kt_table_int(files, 0, 4), 1);
        char *out = fx_read_file(kt_table_str(files, 0, 2), NULL);
        CHECK(out && strstr(out, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::foo\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 50},"));
        free(out);
        unlink(kt_table_str(files, 0, 2));
    }
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(in);
    rmdir(outdir);
    rmdir(dir);
}

/* A top-level value cut mid-string before traceEvents (brackets inside it,
 * as a fuzzer made for the critical-path overlay): the loader recovers and
 * so must the overlay — the scan starts where the loader saw traceEvents
 * open instead of failing with "no traceEvents array".                   */
TEST(patterns_overlay_damaged_top_level)
{
    char dir[] = "/tmp/kt_patterns_XXXXXX", in[300], outdir[300], out[320], *text = NULL;
    make_scratch(dir, in, outdir, out);
    const char *fixed = tiny_fixed();
    if (asprintf(&text, "{\"nodes\": [{\"id\": 1x\": [{\"id\": 0}], %s", fixed + 1) < 0) text = NULL;
    CHECK(text != NULL);
    if (text) write_text(in, text);
    free(text);
    kt_trace *t = fx_load_path(in, false);
    CHECK(t != NULL);
    kt_tables *ts = t ? overlay(t, "aten::foo", outdir) : NULL;
    text = fx_read_file(out, NULL);
    CHECK(text && count_of(text, "\"args\": {\"Patterns\": {\"aten::foo|k1|k2|k3\": 1}, ") == 7);
    kt_trace *back = fx_load_path(out, false);
    CHECK(back && t && back->ranks[0]->total_events == t->ranks[0]->total_events);
    kt_trace_free(back);
    free(text);
    kt_tables_free(ts);
    kt_trace_free(t);
    remove_scratch(dir, in, outdir, out);
}

/* Without a profiler span there is nowhere to put the dictionary: the GPU
 * names stay (HTA renames them anyway, and they are lost); the pattern
 * marks are written as usual.                                            */
TEST(patterns_overlay_without_profiler_span_keeps_names)
{
    char dir[] = "/tmp/kt_patterns_XXXXXX", in[300], outdir[300], out[320];
    make_scratch(dir, in, outdir, out);
    const char *text = tiny_fixed(), *span = strstr(text, ",\n{\"ph\": \"X\", \"cat\": \"Trace\"");
    char buf[8192];
    snprintf(buf, sizeof buf, "%.*s\n],\n\"traceName\": \"t\"}\n", (int)(span - text), text);
    write_text(in, buf);
    kt_trace *t = fx_load_path(in, false);
    CHECK(t != NULL);
    kt_tables *ts = t ? overlay(t, "aten::foo", outdir) : NULL;
    const kt_table *files = ts ? kt_tables_find(ts, "files") : NULL;
    CHECK(files && kt_table_nrows(files) == 1 && kt_table_int(files, 0, 5) == 0); /* renamed: none */
    char *copy = fx_read_file(out, NULL);
    CHECK(copy && strstr(copy, "\"name\": \"kx\", \"pid\": 0") && !strstr(copy, "\"name\": \"3\""));
    CHECK(copy && count_of(copy, "\"args\": {\"Patterns\": {\"aten::foo|k1|k2|k3\": 1}, ") == 7);
    free(copy);
    kt_tables_free(ts);
    kt_trace_free(t);
    remove_scratch(dir, in, outdir, out);
}
