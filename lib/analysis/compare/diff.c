/*
 * diff.c — kt_diff: what changed between two runs.
 *
 * Opens both runs (rank, iteration, events), runs each table's map on each
 * run and its reduce on the pair (compare.h, call_tree_diff.h), and hands
 * back the tables.  The labels follow HTA: "Control" and "Test", and when
 * a caller gives both runs the same label the test's becomes
 * "<label>_control_test", as HTA renames it.
 */
#include "compare.h"
#include "call_tree_diff.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_diff_options_init(kt_diff_options *o, size_t size)
{
    const kt_diff_options d = { .control_label = "Control", .test_label = "Test", .control_rank = -1,
                                .test_rank = -1, .control_iteration = KT_DIFF_FIRST_STEP,
                                .test_iteration = KT_DIFF_FIRST_STEP };
    kt_options_init(o, size, &d, sizeof d);
}

typedef struct diff_run {
    const kt_diff_options *opt;
    kt_diff_side side[2];
    char test_label[256];
    kt_categorizer *own_categorizer;
} diff_run;

static kt_status ops_tables(diff_run *d, kt_table **ops, kt_table **ops_diff)
{
    kt_key_totals tot[2] = { { 0 }, { 0 } };
    kt_status st = KT_OK;
    for (int s = 0; s < 2 && st == KT_OK; s++)
        st = kt_diff_op_totals(&d->side[s], d->opt->device, d->opt->short_names != 0, &tot[s]);
    if (st == KT_OK)
        st = kt_diff_ops_tables(&tot[0], &tot[1], d->side[0].label, d->side[1].label, d->opt->short_names != 0,
                                ops, ops_diff);
    kt_key_totals_free(&tot[0]);
    kt_key_totals_free(&tot[1]);
    return st;
}

static kt_status side_by_side(diff_run *d, kt_table **out)
{
    const kt_categorizer *cat = d->opt->categorizer;
    if (!cat && d->opt->by == KT_DIFF_BY_CATEGORY) {
        kt_status st = kt_categorizer_new(&d->own_categorizer);
        if (st != KT_OK) return st;
        cat = d->own_categorizer;
    }
    kt_key_totals tot[2] = { { 0 }, { 0 } };
    kt_status st = KT_OK;
    for (int s = 0; s < 2 && st == KT_OK; s++) st = kt_diff_gpu_totals(&d->side[s], d->opt->by, cat, d->opt->short_names != 0, &tot[s]);
    if (st == KT_OK) {
        *out = kt_diff_side_by_side(&tot[0], &tot[1], d->side[0].label, d->side[1].label, d->opt->by);
        if (!*out) st = KT_ENOMEM;
    }
    kt_key_totals_free(&tot[0]);
    kt_key_totals_free(&tot[1]);
    return st;
}

static kt_status open_sides(diff_run *d, const kt_trace *control, const kt_trace *test, char *err, size_t errlen)
{
    const kt_diff_options *o = d->opt;
    const char *cl = o->control_label ? o->control_label : "Control";
    const char *tl = o->test_label ? o->test_label : "Test";
    snprintf(d->test_label, sizeof d->test_label, strcmp(cl, tl) ? "%s" : "%s_control_test", tl);
    kt_status st = kt_diff_side_open(control, cl, o->control_rank, o->control_iteration, o->hta_compat != 0,
                                     &d->side[0], err, errlen);
    if (st == KT_OK)
        st = kt_diff_side_open(test, d->test_label, o->test_rank, o->test_iteration, o->hta_compat != 0,
                               &d->side[1], err, errlen);
    return st;
}

kt_status kt_diff(const kt_trace *control, const kt_trace *test, const kt_diff_options *opt,
                  kt_tables **out, kt_diags **diags)
{
    kt_diff_options o = kt_diff_defaults();
    diff_run d = { .opt = &o };
    kt_table *tb[5] = { NULL };
    *out = NULL;
    kt_diags_begin(diags);
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    char err[512] = "";
    kt_status st = open_sides(&d, control, test, err, sizeof err);
    if (st != KT_OK) kt_diags_fail(diags, NULL, "%s", err);
    if (st == KT_OK) st = ops_tables(&d, &tb[0], &tb[1]);
    if (st == KT_OK) st = side_by_side(&d, &tb[2]);
    if (st == KT_OK) st = kt_diff_call_trees(&d.side[0], &d.side[1], &tb[3], &tb[4]);
    kt_diff_side_close(&d.side[0]);
    kt_diff_side_close(&d.side[1]);
    kt_categorizer_free(d.own_categorizer);
    if (st != KT_OK) {
        for (size_t i = 0; i < 5; i++) kt_table_free(tb[i]);
        return st;
    }
    return kt_tables_from(tb, 5, out);
}
