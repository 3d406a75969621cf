/* test_critical_path_overlay.c — the critical-path overlay trace: equal to
 * HTA's golden overlay (critical_path/end_to_end/simple_add: whole trace)
 * in every critical flag and arrow, loadable by kineta with every original
 * event and every flow paired, --only-critical keeping what HTA keeps,
 * gzip in → gzip out, plain in → plain out, never next to the input.      */
#include "fixture.h"
#include "kineta.h"
#include "oracle.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GOLDEN_DIR "traces/hta/critical_path/end_to_end/simple_add"

typedef struct arrow {
    int64_t s_ts, f_ts, s_tid, f_tid;
} arrow;

static int cmp_arrow(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(arrow));
}

/* The complete events flagged args.critical = 1, as a 0/1 array in event
 * order, and the critical_path arrows sorted; *n complete events.         */
static uint8_t *critical_flags(const kt_trace *t, size_t *n, arrow **arrows, size_t *narrows)
{
    const kt_rank *r = t->ranks[0];
    uint8_t *flags = calloc(r->ev.n + 1, 1);
    uint32_t cat = kt_strtab_find(t->strs, "critical_path", 13);
    *n = 0;
    /* one reader in file order: a gzip file is inflated once, not per event */
    kt_args_reader *rd = NULL;
    CHECK_INT(kt_args_reader_open(r, &rd), KT_OK);
    for (uint32_t i = 0; rd && flags && i < r->ev.n; i++) {
        if (r->ev.ph[i] != 'X') continue;
        const char *text = NULL;
        size_t len = 0;
        if (kt_args_reader_get(rd, i, &text, &len) == KT_OK)
            flags[*n] = strstr(text, "\"critical\": 1") || strstr(text, "\"critical\":1");
        (*n)++;
    }
    kt_args_reader_close(rd);
    CHECK_INT(kt_index_flows(r), KT_OK);
    *arrows = calloc(r->idx->nflows + 1, sizeof **arrows);
    *narrows = 0;
    for (size_t k = 0; *arrows && k < r->idx->nflows; k++) {
        uint32_t s = r->idx->flows[k].start, f = r->idx->flows[k].end;
        if (r->ev.cat[s] != cat) continue;
        (*arrows)[(*narrows)++] = (arrow){ r->ev.ts[s], r->ev.ts[f], kt_event_tid(r, s), kt_event_tid(r, f) };
    }
    qsort(*arrows, *narrows, sizeof **arrows, cmp_arrow);
    return flags;
}

static kt_status run_overlay(const kt_trace *t, const char *dir, bool only, const char *annotation, kt_tables **ts)
{
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = annotation;
    o.out_dir = dir;
    o.only_critical = only;
    return kt_critical_path(t, NULL, &o, ts, NULL);
}

static const char *output_of(const kt_tables *ts)
{
    const kt_table *f = kt_tables_find(ts, "files");
    return f && kt_table_nrows(f) == 1 ? kt_table_str(f, 0, (size_t)kt_table_col_index(f, "output")) : NULL;
}

/* Our overlay of t (HTA's annotation and instance) against HTA's file at
 * ref: the same critical flags on the same complete events, the same arrows;
 * returns the number of critical events (-1 when something is missing).    */
static long compare_with_hta(const kt_trace *t, const char *annotation, int instance, const char *ref, size_t arrows)
{
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    kt_trace *hta = fx_load_shared(ref, false);
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = annotation;
    o.instance_first = o.instance_last = instance;
    o.out_dir = dir;
    kt_tables *ts = NULL;
    CHECK(t && hta);
    if (t && hta) CHECK_INT(kt_critical_path(t, NULL, &o, &ts, NULL), KT_OK);
    const char *out = ts ? output_of(ts) : NULL;
    kt_trace *ours = out ? fx_load_path(out, false) : NULL;
    CHECK(ours != NULL);
    long marked = -1;
    if (ours && hta) {
        size_t n1, n2, na1, na2;
        arrow *a1, *a2;
        uint8_t *f1 = critical_flags(ours, &n1, &a1, &na1), *f2 = critical_flags(hta, &n2, &a2, &na2);
        CHECK_INT(n1, n2);
        CHECK(n1 == n2 && memcmp(f1, f2, n1) == 0);
        marked = 0;
        for (size_t i = 0; i < n1; i++) marked += f1[i];
        CHECK_INT(na1, arrows);
        CHECK_INT(na2, arrows);
        CHECK(na1 == na2 && memcmp(a1, a2, na1 * sizeof *a1) == 0);
        free(f1), free(f2), free(a1), free(a2);
    }
    if (out) unlink(out);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(hta);
    kt_trace_free(ours);
    return marked;
}

TEST(critical_path_overlay_equals_hta_golden)
{
    NEED_SHARED();
    kt_trace *t = fx_load_shared(GOLDEN_DIR "/input/trace.json.gz", true);
    /* HTA's golden: the whole trace, 624 critical events, 192 arrows */
    CHECK_INT(compare_with_hta(t, "", 0, GOLDEN_DIR "/output/overlaid_critical_path_trace.json.gz", 192), 624);
    kt_trace_free(t);
}

/* The oracle's overlays (only_show_critical_events=False): ns traces
 * (nccl, AMD) included, whose arrow times HTA takes from the file's float
 * µs rather than its rounded frame.                                       */
TEST(critical_path_overlay_equals_hta_oracle)
{
    NEED_SHARED();
    static const struct {
        const char *dir, *file, *annotation;
        int instance;
        size_t arrows;
        long marked;
    } cases[] = {
        { "cp_alexnet", "overlaid_critical_path_benchmark_result_2869224_1695835535_trace.json.gz",
          "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 6, 77 },
        { "cp_cuda_event_sync", "overlaid_critical_path_event_sync_trace.json.gz", "ProfilerStep", 0, 9, 21 },
        { "cp_cuda_event_sync_multi_stream", "overlaid_critical_path_event_sync_trace.json.gz", "", 0, 5, 31 },
        { "amd_trace", "overlaid_critical_path_mi250_minitoy_train_ROCm6_2_kineto.json.gz", "ProfilerStep", 1, 6, 33 },
        { "nccl_parser_config", "overlaid_critical_path_nccl_data.json.gz", "ProfilerStep", 1, 1085, 6528 },
        { "timeline_analysis", "overlaid_critical_path_sampled_rank-0.json.gz", "ProfilerStep", 0, 266, 1765 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char ref[512];
        snprintf(ref, sizeof ref, "oracle/hta/%s/%s", cases[i].dir, cases[i].file);
        const kt_trace *t = fx_shared_trace(fx_hta_trace(cases[i].dir), true);
        long marked = compare_with_hta(t, cases[i].annotation, cases[i].instance, ref, cases[i].arrows);
        if (marked != cases[i].marked)
            kt_test_fail(__FILE__, __LINE__, "%s: %ld critical events, HTA %ld", cases[i].dir, marked, cases[i].marked);
    }
}

/* Every original event is in the overlay (events = original + 2 per
 * arrow), gzip stays gzip, every flow is paired.                          */
TEST(critical_path_overlay_loads_back_whole)
{
    NEED_SHARED();
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    kt_trace *t = fx_load_shared("traces/hta/critical_path/alexnet", false);
    kt_tables *ts = NULL;
    if (t) CHECK_INT(run_overlay(t, dir, false, NULL, &ts), KT_OK);
    const char *out = ts ? output_of(ts) : NULL;
    kt_trace *back = out ? fx_load_path(out, false) : NULL;
    CHECK(back != NULL);
    if (back) {
        const kt_table *f = kt_tables_find(ts, "files");
        int64_t arrows = kt_table_int(f, 0, (size_t)kt_table_col_index(f, "arrows"));
        const kt_rank *a = t->ranks[0], *b = back->ranks[0];
        CHECK(arrows > 0);
        CHECK(b->gzip);
        CHECK_INT(b->total_events, a->total_events + 2 * (uint64_t)arrows);
        CHECK_INT(b->by_ph['X'], a->by_ph['X']);
        CHECK_INT(b->by_ph['s'], a->by_ph['s'] + (uint64_t)arrows);
        CHECK_INT(b->by_ph['f'], a->by_ph['f'] + (uint64_t)arrows);
        /* the file's own flows pair as before, and every arrow pairs */
        CHECK_INT(kt_index_flows(a), KT_OK);
        CHECK_INT(kt_index_flows(b), KT_OK);
        CHECK_INT(b->idx->nflows, a->idx->nflows + (size_t)arrows);
    }
    if (out) unlink(out);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(t);
    kt_trace_free(back);
}

/* --only-critical: the complete events left are the critical ones plus
 * user annotations and python functions (HTA's only_show_critical_events). */
TEST(critical_path_overlay_only_critical)
{
    NEED_SHARED();
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    kt_trace *t = fx_load_shared("traces/hta/critical_path/simple_add", true);
    kt_tables *ts = NULL;
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    o.instance_first = o.instance_last = 1;
    o.out_dir = dir;
    o.only_critical = 1;
    if (t) CHECK_INT(kt_critical_path(t, NULL, &o, &ts, NULL), KT_OK);
    const char *out = ts ? output_of(ts) : NULL;
    kt_trace *back = out ? fx_load_path(out, false) : NULL;
    CHECK(back != NULL);
    if (back) {
        size_t n, na;
        arrow *a;
        uint8_t *flags = critical_flags(back, &n, &a, &na);
        const kt_rank *r = back->ranks[0];
        size_t critical = 0, kept_other = 0, k = 0;
        for (uint32_t i = 0; i < r->ev.n; i++) {
            if (r->ev.ph[i] != 'X') continue;
            bool annotation = r->ev.kind[i] == KT_K_USER_ANNOTATION || r->ev.kind[i] == KT_K_PYTHON_FUNCTION;
            critical += flags[k];
            kept_other += !flags[k] && !annotation;
            k++;
        }
        CHECK_INT(critical, 159); /* HTA's test_critical_path_analysis: 159 */
        CHECK_INT(kept_other, 0);
        CHECK_INT(na, 21);
        free(flags), free(a);
    }
    if (out) unlink(out);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(t);
    kt_trace_free(back);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A scratch directory dir holding the input dir/trace.json, and the
 * overlay's directory dir/out and path in it (each buffer 300+ bytes). */
static void scratch_paths(char *dir, char *in, char *sub, char *out)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, 300, "%s/trace.json", dir);
    snprintf(sub, 300, "%s/out", dir);
    snprintf(out, 400, "%s/overlaid_critical_path_trace.json", sub);
}

/* One op launching one kernel: op 0-100 µs, launch 10-20, kernel 50-180:
 * the path runs op start → launch start → kernel start → kernel end.     */
static const char *const small_trace =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100,"
    " \"args\": {\"External id\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 10,"
    " \"dur\": 10, \"args\": {\"correlation\": 5}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 130,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 5}}\n"
    "], \"traceName\": \"t\"}\n";

TEST(critical_path_overlay_plain_and_never_next_to_input)
{
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX", in[300], sub[300], out[400];
    scratch_paths(dir, in, sub, out);
    write_file(in, small_trace);
    kt_trace *t = fx_load_path(in, false);
    kt_tables *ts = NULL;
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(run_overlay(t, dir, false, NULL, &ts), KT_EUSAGE); /* the input's own directory */
        CHECK(ts == NULL);
        CHECK_INT(run_overlay(t, sub, false, NULL, &ts), KT_OK);
    }
    size_t len = 0;
    char *text = fx_read_file(out, &len);
    CHECK(text != NULL);
    if (text) {
        CHECK(text[0] == '{'); /* plain JSON for a plain input */
        CHECK(strstr(text, "\"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 130, \"args\": "
                           "{\"critical\": 1, \"device\": 0, \"stream\": 7, \"correlation\": 5}}") != NULL);
        /* the launch edge's arrow: from the launch's start to the kernel's start */
        CHECK(strstr(text, "{\"ph\": \"s\", \"id\": 0, \"pid\": 1, \"tid\": 1, \"ts\": 10, \"cat\": "
                           "\"critical_path\", \"name\": \"critical_path\", \"args\": {\"weight\": 40, \"critical\": "
                           "true, \"type\": \"critical_path_kernel_launch_delay\"}}") != NULL);
        CHECK(strstr(text, "{\"ph\": \"f\", \"id\": 0, \"pid\": 0, \"tid\": 7, \"ts\": 50,") != NULL);
        CHECK(strstr(text, "\"traceName\": \"t\"") != NULL);
    }
    free(text);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(out);
    rmdir(sub);
    unlink(in);
    rmdir(dir);
}

/* --all-edges (HTA's show_all_edges): an arrow per graph edge, critical on
 * the path's: on cp_simple_add 415 edges, 314 of them on the path.        */
TEST(critical_path_overlay_all_edges)
{
    NEED_SHARED();
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const kt_trace *t = fx_shared_trace("traces/hta/critical_path/simple_add", true);
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    o.instance_first = o.instance_last = 1;
    o.out_dir = dir;
    o.all_edges = 1;
    kt_tables *ts = NULL;
    if (t) CHECK_INT(kt_critical_path(t, NULL, &o, &ts, NULL), KT_OK);
    const char *out = ts ? output_of(ts) : NULL;
    kt_trace *back = out ? fx_load_path(out, false) : NULL;
    CHECK(back != NULL);
    if (back) {
        const kt_rank *r = back->ranks[0];
        uint32_t cat = kt_strtab_find(back->strs, "critical_path", 13);
        size_t arrows = 0, critical = 0;
        for (uint32_t i = 0; i < r->ev.n; i++) {
            if (r->ev.ph[i] != 's' || r->ev.cat[i] != cat) continue;
            char *text = NULL;
            size_t len;
            arrows++;
            if (kt_event_args_json(r, i, &text, &len) == KT_OK) critical += strstr(text, "\"critical\": true") != NULL;
            free(text);
        }
        CHECK_INT(arrows, 415);
        CHECK_INT(critical, 314);
        CHECK_INT(kt_index_flows(r), KT_OK);
    }
    if (out) unlink(out);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(back);
}

/* A damaged top-level value before traceEvents (an unterminated key string
 * with brackets in it, as a fuzzer found): the loader recovers, and the
 * overlay must copy traceEvents itself, not the first array it meets — the
 * copy used to splice the arrows into "nodes" and not load back.  Damage
 * inside traceEvents instead: no overlay and a message saying why.        */
TEST(critical_path_overlay_damaged_input)
{
    /* small_trace behind a top-level key whose value is cut mid-string */
    static const char broken_key[] = "{\"nodes\": [{\"id\": 1x\": [{\"id\": 0}], ";
    char *damaged_top = malloc(sizeof broken_key + strlen(small_trace));
    if (!damaged_top) return;
    strcpy(damaged_top, broken_key);
    strcat(damaged_top, small_trace + 1);
    char dir[] = "/tmp/kt_cp_overlay_XXXXXX", in[300], sub[300], out[400];
    scratch_paths(dir, in, sub, out);

    write_file(in, damaged_top);
    kt_trace *t = fx_load_path(in, false);
    kt_tables *ts = NULL;
    CHECK(t != NULL);
    if (t) CHECK_INT(run_overlay(t, sub, false, NULL, &ts), KT_OK);
    kt_trace *back = fx_load_path(out, false);
    CHECK(back != NULL);
    if (back) CHECK_INT((long)back->ranks[0]->ev.n, 3 + 2); /* 3 events + the launch arrow's 2 ends */
    kt_trace_free(back);
    kt_tables_free(ts);
    kt_trace_free(t);
    unlink(out);

    /* an instant with a bare ']' appended: the loader skips it */
    static const char bad_tail[] = ",\n{\"ph\": \"i\", \"name\": \"m\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"x\": ]}\n]}\n";
    const char *end = strstr(damaged_top, "}\n]");
    size_t head = end ? (size_t)(end - damaged_top) + 1 : 0;
    char *text = malloc(head + sizeof bad_tail);
    if (text) {
        memcpy(text, damaged_top, head);
        memcpy(text + head, bad_tail, sizeof bad_tail);
        write_file(in, text);
    }
    free(text);
    free(damaged_top);
    t = fx_load_path(in, false);
    ts = NULL;
    if (t) CHECK_INT(run_overlay(t, sub, false, NULL, &ts), KT_EINPUT);
    CHECK(access(out, F_OK) != 0);
    kt_tables_free(ts);
    kt_trace_free(t);
    rmdir(sub);
    unlink(in);
    rmdir(dir);
}
