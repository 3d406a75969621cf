/*
 * launch.c — `kineta launch`: per launch, how long the launch call took,
 * how long the GPU work ran and how long it waited to start (HTA CUDA
 * kernel launch statistics, spec A4.5), plus the three populations HTA
 * only plots: short GPU kernels, runtime outliers, launch delay outliers.
 */
#include "analysis/common/describe_table.h"
#include "analysis/common/launch_pairs.h"

#include <stdlib.h>

enum { SET_SHORT, SET_RUNTIME, SET_DELAY, NSETS };
static const char *const set_tables[NSETS] = { "short_gpu_kernels", "runtime_outliers",
                                               "launch_delay_outliers" };
static const char *const set_values[NSETS] = { "cpu_duration", "cpu_duration", "launch_delay" };

typedef struct launch_row {
    double cpu, gpu, delay; /* µs */
} launch_row;

typedef struct launch_run {
    kt_launch_options o;
    kt_table *launches, *sets[NSETS];
    size_t stats_col;
    double *vals; /* scratch for one rank's values */
} launch_run;

static bool make_tables(launch_run *run)
{
    static const char *const cols[] = { "correlation", "cpu_duration", "gpu_duration",
                                        "launch_delay", "rank" };
    kt_table *t = run->launches = kt_table_new("launches");
    for (size_t i = 0; t && i < 5; i++)
        kt_table_add_col(t, cols[i], i == 0 || i == 4 ? KT_COL_INT : KT_COL_FLOAT, 3);
    for (size_t i = 1; t && i < 4; i++) kt_table_set_unit(t, i, "us");
    bool ok = t != NULL;
    for (int s = 0; s < NSETS; s++) {
        t = run->sets[s] = kt_table_new(set_tables[s]);
        if (!t) { ok = false; continue; }
        kt_table_add_col(t, "rank", KT_COL_INT, 0);
        kt_table_add_col(t, "launches", KT_COL_INT, 0);
        kt_table_add_col(t, "pct_of_launches", KT_COL_FLOAT, 2);
        run->stats_col = kt_describe_add_cols(t, set_values[s]);
        kt_describe_set_unit(t, run->stats_col, "us");
    }
    return ok;
}

static bool in_set(const launch_run *run, int set, const launch_row *l)
{
    switch (set) {
    case SET_SHORT: return l->cpu <= run->o.runtime_cutoff_us && l->gpu < l->cpu;
    case SET_RUNTIME: return l->cpu > run->o.runtime_cutoff_us;
    default: return l->delay > run->o.launch_delay_cutoff_us;
    }
}

static void add_set_row(launch_run *run, int set, int rank, const launch_row *rows, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (in_set(run, set, &rows[i])) run->vals[k++] = set == SET_DELAY ? rows[i].delay : rows[i].cpu;
    kt_describe d = kt_describe_values(run->vals, k);
    kt_table *t = run->sets[set];
    kt_table_add_row(t);
    kt_table_set_int(t, 0, rank);
    kt_table_set_int(t, 1, (int64_t)n);
    kt_table_set_float(t, 2, kt_pct((double)k, (double)n));
    kt_describe_set(t, run->stats_col, &d);
}

static kt_status rank_launches(launch_run *run, const kt_trace *t, const kt_rank *r)
{
    const kt_events *e = &r->ev;
    kt_launch_pair *p;
    size_t n;
    kt_status s = kt_launch_pairs(r, t->strs, t->hta_compat ? KT_PAIRS_HTA_LAUNCH_STATS : KT_PAIRS_ALL_LAUNCHES,
                                  &p, &n);
    if (s != KT_OK || n == 0) {
        free(p);
        return s;
    }
    launch_row *rows = malloc(n * sizeof *rows);
    double *vals = realloc(run->vals, n * sizeof *vals);
    if (vals) run->vals = vals;
    if (!rows || !vals) {
        free(rows);
        free(p);
        return KT_ENOMEM;
    }
    kt_table_reserve(run->launches, kt_table_nrows(run->launches) + n);
    for (size_t i = 0; i < n; i++) {
        uint32_t c = p[i].call, g = p[i].gpu;
        int64_t delay = e->ts[g] - (e->ts[c] + e->dur[c]);
        rows[i] = (launch_row){ e->dur[c] / 1e3, e->dur[g] / 1e3, delay > 0 ? delay / 1e3 : 0 };
        kt_row row = kt_table_row(run->launches);
        kt_row_int(row, 0, kt_event_corr(r, g));
        kt_row_float(row, 1, rows[i].cpu);
        kt_row_float(row, 2, rows[i].gpu);
        kt_row_float(row, 3, rows[i].delay);
        kt_row_int(row, 4, r->rank);
    }
    for (int set = 0; set < NSETS; set++) add_set_row(run, set, r->rank, rows, n);
    free(rows);
    free(p);
    return KT_OK;
}

/* Why no launch could be paired: the formats that record no host calls
 * (rocprofv3 without --hip-trace) leave the table empty, and say so.   */
static void note_no_launches(kt_table *t, const kt_trace *tr, const kt_rank_sel *sel)
{
    size_t gpu = 0, calls = 0;
    for (size_t i = 0; i < tr->nranks; i++) {
        const kt_rank *r = tr->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        for (uint32_t k = 0; k < r->ev.n; k++) {
            gpu += kt_kind_is_gpu(r->ev.kind[k]);
            calls += r->ev.kind[k] == KT_K_RUNTIME || r->ev.kind[k] == KT_K_DRIVER;
        }
    }
    if (!gpu) kt_table_add_note(t, "no launches: the trace holds no GPU work");
    else if (!calls)
        kt_table_add_note(t, "no launches: the trace records no host API calls (e.g. rocprofv3 without --hip-trace), "
                             "so none of its %zu GPU events can be paired with the call that launched it", gpu);
    else
        kt_table_add_note(t, "no launches: none of the %zu host API calls shares a correlation id with the %zu GPU events",
                          calls, gpu);
}

void kt_launch_options_init(kt_launch_options *o, size_t size)
{
    const kt_launch_options d = { .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    kt_options_init(o, size, &d, sizeof d);
}

kt_status kt_launch(const kt_trace *t, const kt_rank_sel *sel, const kt_launch_options *opt,
                    kt_tables **out)
{
    launch_run run = { .o = kt_launch_defaults() };
    *out = NULL;
    if (!kt_options_take(&run.o, sizeof run.o, opt)) return KT_EUSAGE;
    kt_status s = make_tables(&run) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = rank_launches(&run, t, t->ranks[i]);
    free(run.vals);
    if (s == KT_OK && kt_table_nrows(run.launches) == 0) note_no_launches(run.launches, t, sel);
    kt_table *all[] = { run.launches, run.sets[0], run.sets[1], run.sets[2] };
    if (s != KT_OK) {
        for (size_t i = 0; i < 4; i++) kt_table_free(all[i]);
        *out = NULL;
        return s;
    }
    return kt_tables_from(all, 4, out);
}
