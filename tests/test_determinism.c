/* test_determinism.c — the same trace gives the same tables however it was
 * loaded.  String ids depend on which loader thread interned a string
 * first, so any order that falls back on an id changes from run to run;
 * loading the 2-rank set with one thread and with two, ranks in either
 * file order, must print identical tables.  (categories broke ties by
 * string id: rows of equal time swapped between runs.)                    */
#include "../programs/cli.h"
#include "oracle.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static kt_trace *load_with(const char *const *paths, size_t n, int jobs)
{
    kt_load_options o = { .size = sizeof o, .jobs = jobs };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, n, &o, &t, &fail), KT_OK);
    kt_diags_free(fail);
    return t;
}

static char *csv_of(const kt_tables *ts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < kt_tables_count(ts); i++) print_table_csv(kt_tables_get(ts, i), f);
    fclose(f);
    return buf;
}

typedef kt_status (*analysis)(const kt_trace *t, kt_tables **out);
static kt_status run_categories(const kt_trace *t, kt_tables **out)
{
    kt_categories_options o = kt_categories_defaults();
    o.full_names = 1;
    return kt_categories(t, NULL, &o, out);
}
static kt_status run_kernels(const kt_trace *t, kt_tables **out)
{
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    o.by = KT_KBY_LAUNCHER;
    return kt_kernels(t, NULL, &o, out);
}
static kt_status run_breakdown(const kt_trace *t, kt_tables **out) { return kt_breakdown(t, NULL, NULL, out); }
static kt_status run_gaps(const kt_trace *t, kt_tables **out) { return kt_gaps(t, NULL, NULL, out); }

TEST(tables_do_not_depend_on_how_the_trace_was_loaded)
{
    NEED_SHARED();
    const char *dir = kt_test_shared_path("traces/hta/trace_filter");
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/sampled_rank-0.json.gz", dir);
    snprintf(b, sizeof b, "%s/sampled_rank-1.json.gz", dir);
    const char *forward[] = { a, b }, *backward[] = { b, a };
    kt_trace *loads[] = { load_with(forward, 2, 1), load_with(forward, 2, 2), load_with(backward, 2, 1),
                          load_with(backward, 2, 2) };
    const analysis runs[] = { run_categories, run_kernels, run_breakdown, run_gaps };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char *first = NULL;
        for (size_t l = 0; l < 4 && loads[l]; l++) {
            kt_tables *ts = NULL;
            CHECK_INT(runs[k](loads[l], &ts), KT_OK);
            char *csv = csv_of(ts);
            if (!first) first = csv;
            else {
                CHECK(strcmp(first, csv) == 0);
                free(csv);
            }
            kt_tables_free(ts);
        }
        free(first);
    }
    for (size_t l = 0; l < 4; l++) kt_trace_free(loads[l]);
}
