/*
 * perf_coverage_tables.c — `kineta perf`'s "coverage" and "unmodelled"
 * tables (perf_coverage.h): every run says how much of the GPU time its
 * roofline tables model, against which peaks, and lists what they leave
 * out, largest first.
 */
#include "analysis/perf/perf_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : NAN;
}

/* Which peaks the roofline columns use, in a word. */
static const char *peaks_kind(const perf_run *run)
{
    if (!run->have_spec) return "none";
    return run->o.device_spec ? "device spec file" : "datasheet";
}

kt_table *kt_pt_coverage(const perf_run *run)
{
    const kt_perf_cover *cv = &run->all.cover;
    kt_table *t = kt_table_new("coverage");
    if (!t) return NULL;
    kt_table_add_col(t, "gpu_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "modelled_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "pct_modelled", KT_COL_FLOAT, 2);
    kt_table_add_col(t, "unmodelled_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "pct_unmodelled", KT_COL_FLOAT, 2);
    kt_table_add_col(t, "device", KT_COL_STR, 0);
    kt_table_add_col(t, "peaks", KT_COL_STR, 0);
    kt_table_add_col(t, "peaks_source", KT_COL_STR, 0);
    kt_table_add_row(t);
    kt_table_set_float(t, 0, cv->gpu_us);
    kt_table_set_float(t, 1, cv->modelled_us);
    kt_table_set_float(t, 2, pct(cv->modelled_us, cv->gpu_us));
    kt_table_set_float(t, 3, cv->gpu_us - cv->modelled_us);
    kt_table_set_float(t, 4, pct(cv->gpu_us - cv->modelled_us, cv->gpu_us));
    kt_table_set_str(t, 5, run->device);
    kt_table_set_str(t, 6, peaks_kind(run));
    kt_table_set_str(t, 7, run->have_spec ? run->spec.source : "");
    kt_table_add_note(t, "shares of the summed durations of every GPU kernel, memcpy and memset; modelled: under "
                      "an op whose FLOPs/bytes model evaluated (the roofline sheets); the rest is in table unmodelled");
    if (run->have_spec && !run->o.device_spec)
        kt_table_add_note(t, "Pct Roofline is against %s's datasheet peaks; TraceLens's arch files hold achievable "
                          "peaks (MI300X bf16 708 TFLOP/s against 1307), so its Pct Roofline reads up to twice "
                          "ours: --device-spec with its file compares like with like", run->spec.name);
    return t;
}

typedef struct unmodelled_row {
    const kt_pgroup *g;
} unmodelled_row;

static int by_time_desc(const void *a, const void *b)
{
    const kt_pgroup *x = ((const unmodelled_row *)a)->g, *y = ((const unmodelled_row *)b)->g;
    if (x->subtree_sum_us != y->subtree_sum_us) return x->subtree_sum_us < y->subtree_sum_us ? 1 : -1;
    return strcmp(x->key, y->key);
}

kt_table *kt_pt_unmodelled_time(const perf_run *run)
{
    const kt_perf_cover *cv = &run->all.cover;
    const kt_pgroups *gs = &cv->unmodelled;
    unmodelled_row *rows = malloc((gs->n ? gs->n : 1) * sizeof *rows);
    kt_table *t = rows ? kt_table_new("unmodelled") : NULL;
    if (!t) {
        free(rows);
        return NULL;
    }
    kt_table_add_col(t, "op", KT_COL_STR, 0);
    kt_table_add_col(t, "reason", KT_COL_STR, 0);
    kt_table_add_col(t, "gpu_events", KT_COL_INT, 0);
    kt_table_add_col(t, "gpu_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(t, "pct_of_gpu_time", KT_COL_FLOAT, 2);
    for (size_t i = 0; i < gs->n; i++) rows[i].g = &gs->g[i];
    qsort(rows, gs->n, sizeof *rows, by_time_desc);
    for (size_t i = 0; i < gs->n; i++) {
        const kt_pgroup *g = rows[i].g;
        const char *sep = strchr(g->key, '\x1f');
        size_t oplen = sep ? (size_t)(sep - g->key) : strlen(g->key);
        char *op = strndup(g->key, oplen);
        kt_table_add_row(t);
        kt_table_set_str(t, 0, op ? op : "");
        kt_table_set_str(t, 1, sep ? sep + 1 : "");
        kt_table_set_int(t, 2, (int64_t)g->n);
        kt_table_set_float(t, 3, g->subtree_sum_us);
        kt_table_set_float(t, 4, pct(g->subtree_sum_us, cv->gpu_us));
        free(op);
    }
    free(rows);
    return t;
}
