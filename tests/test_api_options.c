/* test_api_options.c — the public API's conventions (docs/api.md): an
 * options struct from an older kineta.h (shorter: it ends before the fields
 * added since) is read only as far as its size says, the newer fields take
 * their defaults; an unset or too large size is a usage error; a call's
 * reasons come back in the caller's kt_diags and nowhere else.
 * The "old" structs are declared here as the older header declared them
 * and malloc'ed at exactly that size, so a library that reads (or a
 * defaults function that writes) past them is a heap-buffer-overflow under
 * the sanitizers.                                                         */
#include "fixture.h"
#include "kineta.h"
#include "test.h"

#include <stddef.h>
#include <stdlib.h>

/* The options structs as a header without their last fields declared them. */
typedef struct old_critical_path_options {
    size_t size;
    const char *annotation;
    int64_t instance_first, instance_last;
    const char *what_if;
    const char *out_dir;
    int only_critical, all_edges;
} old_critical_path_options; /* before no_edges, longest_edges */
_Static_assert(sizeof(old_critical_path_options) == offsetof(kt_critical_path_options, no_edges), "layout");

typedef struct old_report_options {
    size_t size;
    const char *title;
    size_t top_kernels, max_points, max_rows;
    const kt_categorizer *categorizer;
} old_report_options; /* before baseline, jobs */
_Static_assert(sizeof(old_report_options) == offsetof(kt_report_options, baseline), "layout");

typedef struct old_gaps_options {
    size_t size;
    double hist_min_us, hist_max_us;
    int bins, linear;
} old_gaps_options; /* before top, sort, step, short_names */
_Static_assert(sizeof(old_gaps_options) == offsetof(kt_gaps_options, top), "layout");

/* A CPU op whose launch starts a kernel: a graph with a critical path. */
static kt_trace *launch_trace(void)
{
    static const char json[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 50},"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 110, \"dur\": 10, \"args\": {\"correlation\": 7}},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 130, \"dur\": 40, "
        "\"args\": {\"stream\": 7, \"correlation\": 7}}]}";
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("api.json", json, sizeof json - 1, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    return t;
}

/* kt_critical_path_options as a header from before no_edges and
 * longest_edges declared it: the library must default both (every table,
 * every path edge), not read the bytes after the caller's struct.        */
TEST(api_old_critical_path_options_default_the_new_fields)
{
    kt_trace *t = launch_trace();
    if (!t) return;
    old_critical_path_options *o = malloc(sizeof *o);
    CHECK(o != NULL);
    if (!o) return;
    kt_critical_path_options_init((kt_critical_path_options *)o, sizeof *o);
    CHECK_INT(o->size, sizeof *o);
    CHECK(o->annotation == NULL && o->what_if == NULL && o->out_dir == NULL);
    o->annotation = "";
    kt_tables *ts = NULL;
    CHECK_INT(kt_critical_path(t, NULL, (const kt_critical_path_options *)o, &ts, NULL), KT_OK);
    CHECK(kt_tables_find(ts, "edges") != NULL); /* no_edges: 0 */
    const kt_table *bd = kt_tables_find(ts, "breakdown");
    CHECK(bd && kt_table_col_index(bd, "edge") < 0); /* longest_edges: 0 */
    size_t edges = bd ? kt_table_nrows(bd) : 0;
    CHECK(edges > 0);
    kt_tables_free(ts);
    /* the same call from the current header uses the new fields */
    kt_critical_path_options now = kt_critical_path_defaults();
    now.annotation = "";
    now.no_edges = 1;
    now.longest_edges = 1;
    CHECK_INT(kt_critical_path(t, NULL, &now, &ts, NULL), KT_OK);
    CHECK(kt_tables_find(ts, "edges") == NULL);
    bd = kt_tables_find(ts, "breakdown");
    CHECK(bd && kt_table_col_index(bd, "edge") >= 0 && kt_table_nrows(bd) == 1);
    kt_tables_free(ts);
    free(o);
    kt_trace_free(t);
}

/* kt_report_options from before baseline and jobs: no diff section, the
 * page written as the older library wrote it.                            */
TEST(api_old_report_options_default_the_new_fields)
{
    kt_trace *t = launch_trace();
    if (!t) return;
    old_report_options *o = malloc(sizeof *o);
    CHECK(o != NULL);
    if (!o) return;
    kt_report_options_init((kt_report_options *)o, sizeof *o);
    CHECK_INT(o->size, sizeof *o);
    CHECK_INT(o->top_kernels, 8);
    CHECK_INT(o->max_rows, 300);
    o->title = "old header";
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(kt_report_write(t, NULL, (const kt_report_options *)o, f, NULL), KT_OK);
        fclose(f);
        CHECK(page && strstr(page, "<title>old header</title>") != NULL);
        CHECK(page && strstr(page, "id=\"diff\"") == NULL);
    }
    free(page);
    free(o);
    kt_trace_free(t);
}

/* An unset size (a struct not made by kt_*_defaults()) or one larger than
 * the library's (a newer header) is refused, never guessed at.           */
TEST(api_options_size_unset_or_newer_is_usage_error)
{
    kt_trace *t = launch_trace();
    if (!t) return;
    kt_tables *ts = NULL;
    kt_kernels_options k = kt_kernels_defaults();
    k.size = 0;
    CHECK_INT(kt_kernels(t, NULL, &k, &ts), KT_EUSAGE);
    CHECK(ts == NULL);
    k.size = sizeof k + sizeof(double);
    CHECK_INT(kt_kernels(t, NULL, &k, &ts), KT_EUSAGE);
    kt_temporal_options tp = { .by_step = 1 };
    CHECK_INT(kt_temporal(t, NULL, &tp, &ts), KT_EUSAGE);
    kt_critical_path_options cp = kt_critical_path_defaults();
    cp.size = 0;
    kt_diags *why = (kt_diags *)1;
    CHECK_INT(kt_critical_path(t, NULL, &cp, &ts, &why), KT_EUSAGE);
    CHECK(why == NULL);
    kt_load_options lo = { .jobs = 1 };
    kt_trace *u = NULL;
    static const char json[] = "{\"traceEvents\": []}";
    CHECK_INT(kt_load_buffer("x.json", json, sizeof json - 1, &lo, &u, &why), KT_EUSAGE);
    CHECK(u == NULL);
    CHECK(strstr(fx_why(why), "kt_load_defaults()") != NULL);
    kt_event_columns c = { .ts = NULL };
    CHECK_INT(kt_trace_events(t, 0, &c), KT_EUSAGE);
    kt_trace_free(t);
}

/* The defaults function fills only the caller's bytes, and a struct of
 * today's size round-trips every default.                                */
TEST(api_defaults_fill_only_the_callers_size)
{
    old_gaps_options *g = malloc(sizeof *g);
    CHECK(g != NULL);
    if (!g) return;
    kt_gaps_options_init((kt_gaps_options *)g, sizeof *g);
    CHECK_INT(g->size, sizeof *g);
    CHECK_INT(g->bins, 20);
    free(g);
    kt_gaps_options d = kt_gaps_defaults();
    CHECK_INT(d.size, sizeof d);
    CHECK_INT(d.top, 15);
    CHECK_INT(d.step, -1);
}

/* Errors in one place: the reason in the caller's kt_diags (file and
 * message), *diags NULL on success, NULL diags accepted.                 */
TEST(api_errors_come_back_in_diags)
{
    kt_trace *t = launch_trace();
    if (!t) return;
    kt_tables *ts = NULL;
    kt_diags *why = (kt_diags *)1;
    kt_counters_options o = kt_counters_defaults();
    CHECK_INT(kt_counters(t, NULL, &o, &ts, &why), KT_EUSAGE);
    CHECK_STR(fx_why(why), "an output directory is required");
    CHECK_INT(kt_counters(t, NULL, &o, &ts, NULL), KT_EUSAGE);
    kt_report_options r = kt_report_defaults();
    CHECK_INT(kt_report(t, NULL, &r, "/nonexistent-kineta-dir/r.html", &ts, &why), KT_EINPUT);
    CHECK_INT(kt_diags_count(why), 1);
    const kt_diag *d = kt_diags_get(why, 0);
    CHECK(d && d->level == KT_DIAG_ERROR);
    CHECK_STR(d ? d->file : NULL, "/nonexistent-kineta-dir/r.html");
    kt_diags_free(why);
    kt_perf_options p = kt_perf_defaults();
    why = (kt_diags *)1;
    CHECK_INT(kt_perf(t, NULL, &p, &ts, &why), KT_OK);
    CHECK(why == NULL);
    kt_tables_free(ts);
    kt_trace_free(t);
}
