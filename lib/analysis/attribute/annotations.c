/*
 * annotations.c — `kineta annotations`: user annotations as HTA reports
 * them (span statistics per name, kernels with their innermost GPU
 * annotation; spec A4.9) and, beyond HTA, kernel time per annotation
 * without double counting nested spans.
 *
 * Each rank is analysed on its own (annotation_breakdown.c,
 * annotation_kernels.c: the map); the tables concatenate the ranks' rows
 * (the reduce).
 */
#include "analysis/attribute/annotation_breakdown.h"
#include "analysis/attribute/annotation_kernels.h"

#include <stdio.h>
#include <stdlib.h>

void kt_annotations_options_init(kt_annotations_options *o, size_t size)
{
    const kt_annotations_options d = { .num_kernels = 1000, .duration_ratio = 0.8 };
    kt_options_init(o, size, &d, sizeof d);
}

static kt_table *kernels_table(bool compat)
{
    static const char *const cols[] = { "ts", "dur", "stream", "correlation", "s_name", "s_user_annotation",
                                        "rank", "source" };
    static const kt_col_type types[] = { KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_INT, KT_COL_INT,
                                         KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_STR };
    kt_table *tb = kt_table_new("kernels");
    for (size_t c = 0; tb && c < (compat ? 7u : 8u); c++)
        kt_table_add_col(tb, cols[c], types[c], types[c] == KT_COL_FLOAT ? (compat ? -1 : 3) : 0);
    return tb;
}

static kt_table *summary_table(void)
{
    static const char *const cols[] = { "rank", "annotation", "source", "instances", "kernels", "inclusive_us",
                                        "exclusive_us", "pct_of_kernel_time", "pct_of_step" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT,
                                         KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_FLOAT };
    kt_table *tb = kt_table_new("summary");
    for (size_t c = 0; tb && c < 9; c++)
        kt_table_add_col(tb, cols[c], types[c], c >= 7 ? 2 : 3);
    return tb;
}

typedef struct ann_run {
    kt_ann_stats gpu, cpu;
    kt_table *kernels, *summary, *diagnostics;
} ann_run;

/* Spans that end before they start: left out (HTA keeps them). */
static void check_spans(const kt_trace *t, const kt_rank *r, kt_table *diag)
{
    const kt_events *e = &r->ev;
    int64_t bad = 0;
    for (uint32_t i = 0; i < e->n; i++)
        bad += (e->kind[i] == KT_K_USER_ANNOTATION || e->kind[i] == KT_K_GPU_ANNOTATION) && e->ph[i] == 'X' &&
               e->dur[i] < 0;
    if (!bad) return;
    char msg[160];
    snprintf(msg, sizeof msg, "%lld annotations end before they start (negative dur): %s", (long long)bad,
             t->hta_compat ? "kept, as HTA does" : "left out");
    kt_table_add_row(diag);
    kt_table_set_int(diag, 0, r->rank);
    kt_table_set_str(diag, 1, msg);
}

static kt_status one_rank(const kt_trace *t, const kt_rank *r, const kt_annotations_options *o, ann_run *run)
{
    check_spans(t, r, run->diagnostics);
    kt_status s = kt_ann_breakdown_rank(t, r, KT_K_GPU_ANNOTATION, o, &run->gpu);
    if (s == KT_OK) s = kt_ann_breakdown_rank(t, r, KT_K_USER_ANNOTATION, o, &run->cpu);
    if (s != KT_OK) return s;
    kt_ann_rank a;
    s = kt_ann_kernels_rank(t, r, &a);
    if (s == KT_OK) {
        kt_ann_kernels_rows(t, r, &a, o->full_names, run->kernels);
        kt_ann_summary_rows(t, r->rank, &a, run->summary);
    }
    kt_ann_rank_free(&a);
    return s;
}

kt_status kt_annotations(const kt_trace *t, const kt_rank_sel *sel, const kt_annotations_options *opt,
                         kt_tables **out)
{
    kt_annotations_options o = kt_annotations_defaults();
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    if (o.duration_ratio < 0 || o.duration_ratio > 1) return KT_EUSAGE;
    ann_run run = { .kernels = kernels_table(t->hta_compat), .summary = summary_table(),
                    .diagnostics = kt_table_new("diagnostics") };
    if (run.diagnostics) {
        kt_table_add_col(run.diagnostics, "rank", KT_COL_INT, 0);
        kt_table_add_col(run.diagnostics, "message", KT_COL_STR, 0);
    }
    kt_status s = run.kernels && run.summary && run.diagnostics ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = one_rank(t, t->ranks[i], &o, &run);
    kt_table *tb[5] = { kt_ann_breakdown_table(t, "gpu", &run.gpu), kt_ann_breakdown_table(t, "cpu", &run.cpu),
                        run.kernels, run.summary, run.diagnostics };
    free(run.gpu.v);
    free(run.cpu.v);
    if (s != KT_OK) {
        for (int i = 0; i < 5; i++) kt_table_free(tb[i]);
        return s;
    }
    return kt_tables_from(tb, 5, out);
}
