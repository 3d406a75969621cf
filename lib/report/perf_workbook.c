/*
 * perf_workbook.c — TraceLens's perf report as sheets and as an Excel
 * workbook, and two runs' reports compared (kineta.h: kt_perf_sheets,
 * kt_perf_workbook, kt_perf_compare).  It sits in the report layer because
 * it gathers two analyses (perf, temporal) and writes them out; the row
 * matching is analysis/compare/sheet_diff.c, the file output/xlsx_write.c.
 */
#include "analysis/compare/sheet_diff.h"
#include "model/model.h"
#include "output/xlsx_write.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

/* gpu_timeline, then kt_perf's tables under tracelens: one rank's, or the
 * whole selection's when it is one rank. */
static kt_status one_set(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                         kt_diags **diags)
{
    kt_perf_options po = *opt;
    kt_temporal_options to = kt_temporal_defaults();
    po.tracelens = to.tracelens = 1;
    kt_tables *perf = NULL, *timeline = NULL;
    kt_status st = kt_temporal(t, sel, &to, &timeline);
    if (st == KT_OK) st = kt_perf(t, sel, &po, &perf, diags);
    if (st == KT_OK) {
        st = kt_tables_append(&timeline, perf); /* perf's tables after gpu_timeline; perf taken */
        perf = NULL;
    }
    kt_tables_free(perf);
    if (st != KT_OK) kt_tables_free(timeline);
    *out = st == KT_OK ? timeline : NULL;
    return st;
}

/* The selected ranks (all when none is), in rank order. */
static size_t selected_ranks(const kt_trace *t, const kt_rank_sel *sel, int *ranks)
{
    size_t n = 0;
    for (size_t i = 0; i < kt_trace_nranks(t); i++)
        if (kt_rank_selected(sel, kt_trace_rank(t, i))) ranks[n++] = kt_trace_rank(t, i);
    return n;
}

static kt_status stacked_sets(const kt_trace *t, const int *ranks, size_t n, const kt_perf_options *opt,
                              kt_tables **out, kt_diags **diags)
{
    kt_tables **sets = calloc(n, sizeof *sets);
    kt_status st = sets ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; i < n && st == KT_OK; i++) {
        kt_rank_sel one = { &ranks[i], 1 };
        st = one_set(t, &one, opt, &sets[i], diags);
    }
    if (st == KT_OK) st = kt_tables_stack_ranks((const kt_tables *const *)sets, ranks, n, out);
    for (size_t i = 0; sets && i < n; i++) kt_tables_free(sets[i]);
    free(sets);
    return st;
}

kt_status kt_perf_sheets(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                         kt_diags **diags)
{
    kt_diags_begin(diags);
    *out = NULL;
    kt_perf_options o = kt_perf_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    int *ranks = malloc((kt_trace_nranks(t) ? kt_trace_nranks(t) : 1) * sizeof *ranks);
    if (!ranks) return KT_ENOMEM;
    size_t n = selected_ranks(t, sel, ranks);
    kt_status st = n > 1 ? stacked_sets(t, ranks, n, &o, out, diags) : one_set(t, sel, &o, out, diags);
    free(ranks);
    return st;
}

/* ts to path; KT_EINPUT with the reason in *diags when it fails. */
static kt_status write_workbook(const kt_tables *ts, const char *path, kt_diags **diags)
{
    char err[512] = "";
    kt_status st = kt_xlsx_write(path, ts, err, sizeof err);
    if (st != KT_OK && st != KT_ENOMEM) kt_diags_fail(diags, path, "%s", err);
    return st;
}

kt_status kt_perf_workbook(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, const char *path,
                           kt_tables **out, kt_diags **diags)
{
    kt_status st = kt_perf_sheets(t, sel, opt, out, diags);
    if (st == KT_OK) st = write_workbook(*out, path, diags);
    if (st != KT_OK) {
        kt_tables_free(*out);
        *out = NULL;
    }
    return st;
}

void kt_perf_compare_options_init(kt_perf_compare_options *o, size_t size)
{
    const kt_perf_compare_options d = { .base_name = NULL };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_perf_compare(const kt_trace *base, const kt_trace *test, const kt_rank_sel *sel,
                          const kt_perf_compare_options *opt, kt_tables **out, kt_diags **diags)
{
    kt_diags_begin(diags);
    *out = NULL;
    kt_perf_compare_options o = kt_perf_compare_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_perf_options po = kt_perf_defaults();
    po.device_spec = o.device_spec;
    kt_tables *a = NULL, *b = NULL;
    kt_status st = kt_perf_sheets(base, sel, &po, &a, diags);
    if (st == KT_OK) st = kt_perf_sheets(test, sel, &po, &b, diags);
    if (st == KT_OK)
        st = kt_sheets_diff(a, b, o.base_name ? o.base_name : "base", o.test_name ? o.test_name : "test", out);
    kt_tables_free(a);
    kt_tables_free(b);
    return st;
}

kt_status kt_perf_compare_workbook(const kt_trace *base, const kt_trace *test, const kt_rank_sel *sel,
                                   const kt_perf_compare_options *opt, const char *path, kt_tables **out,
                                   kt_diags **diags)
{
    kt_status st = kt_perf_compare(base, test, sel, opt, out, diags);
    if (st == KT_OK) st = write_workbook(*out, path, diags);
    if (st != KT_OK) {
        kt_tables_free(*out);
        *out = NULL;
    }
    return st;
}
