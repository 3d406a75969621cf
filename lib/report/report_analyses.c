/*
 * report_analyses.c — the analyses behind the report, each run once per
 * report: all of them side by side on worker threads before the first
 * section is drawn (rp_prefetch; they only read the trace), or on first
 * use by a section; plus the cell helpers the section builders read their
 * tables with.
 *
 * Every runner calls the public kt_<analysis>() with the report's rank
 * selection and the options the CLI uses by default, so the page shows
 * exactly what `kineta <command>` prints; temporal and overlap come from
 * their pair kt_temporal_overlap, which prints the same from one build.
 */
#include "analysis/launch/queue.h"
#include "analysis/memory/memory.h"
#include "analysis/perf/perf.h"
#include "analysis/timeline/temporal_overlap.h"
#include "report/report_sections.h"
#include "table/table.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef kt_status (*rp_runner)(rp_ctx *c, kt_tables **out);

static kt_status run_info(rp_ctx *c, kt_tables **out)
{
    return kt_info(c->t, c->sel, out);
}

/* The temporal runner makes the by-step and overlap tables too, from one
 * build of the busy unions (temporal_overlap.h), and leaves them in their
 * slots — but for one that already ran on its own (a section asked first). */
static kt_status run_temporal(rp_ctx *c, kt_tables **out)
{
    static const rp_analysis slot[KT_PAIR_TABLES] = {
        [KT_PAIR_TEMPORAL] = RP_TEMPORAL, [KT_PAIR_OVERLAP] = RP_OVERLAP,
        [KT_PAIR_TEMPORAL_BY_STEP] = RP_TEMPORAL_BY_STEP, [KT_PAIR_OVERLAP_BY_STEP] = RP_OVERLAP_BY_STEP
    };
    kt_tables *ts[KT_PAIR_TABLES];
    kt_status s = kt_temporal_overlap(c->t, c->sel, ts);
    *out = ts[KT_PAIR_TEMPORAL];
    for (int i = 0; i < KT_PAIR_TABLES; i++) {
        if (i == KT_PAIR_TEMPORAL) continue;
        if (c->ran[slot[i]]) {
            kt_tables_free(ts[i]);
            continue;
        }
        c->ran[slot[i]] = true;
        c->status[slot[i]] = s;
        c->tables[slot[i]] = ts[i];
    }
    return s;
}

static kt_status run_temporal_by_step(rp_ctx *c, kt_tables **out)
{
    kt_temporal_options o = { .size = sizeof o, .by_step = 1 };
    return kt_temporal(c->t, c->sel, &o, out);
}

static kt_status run_breakdown(rp_ctx *c, kt_tables **out)
{
    kt_breakdown_options o = kt_breakdown_defaults();
    return kt_breakdown(c->t, c->sel, &o, out);
}

static kt_status run_categories(rp_ctx *c, kt_tables **out)
{
    kt_categories_options o = kt_categories_defaults();
    o.categorizer = c->opt->categorizer;
    return kt_categories(c->t, c->sel, &o, out);
}

static kt_status run_idle(rp_ctx *c, kt_tables **out)
{
    return kt_idle(c->t, c->sel, NULL, out);
}

static kt_status run_gaps(rp_ctx *c, kt_tables **out)
{
    kt_gaps_options o = kt_gaps_defaults();
    return kt_gaps(c->t, c->sel, &o, out);
}

static kt_status run_launch(rp_ctx *c, kt_tables **out)
{
    kt_launch_options o = { .size = sizeof o, .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    return kt_launch(c->t, c->sel, &o, out);
}

static bool keep_queue_points(void *ctx, const kt_rank *r, kt_step_point *p, size_t n)
{
    rp_ctx *c = ctx;
    c->queue_points[c->nqueue_points++] = (rp_kept_points){ r, p, n };
    return true;
}

/* What the queue section draws (rp_sec_queue), as kt_queue builds it: the
 * weighted table, and the points of its series table kept instead of the
 * table (rp_group_points splits them as the table would be); the summary,
 * blocked and diagnostics tables it never shows are not built.          */
static kt_status run_queue(rp_ctx *c, kt_tables **out)
{
    c->queue_points = calloc(c->t->nranks + 1, sizeof *c->queue_points);
    if (!c->queue_points) return KT_ENOMEM;
    return kt_queue_tables_keep(c->t, c->sel, NULL, KT_QUEUE_WEIGHTED, keep_queue_points, c, out);
}

static kt_status run_memcpy_bw(rp_ctx *c, kt_tables **out)
{
    return kt_memcpy_bw(c->t, c->sel, out);
}

static kt_status run_overlap(rp_ctx *c, kt_tables **out)
{
    return kt_overlap(c->t, c->sel, NULL, out);
}

static kt_status run_overlap_by_step(rp_ctx *c, kt_tables **out)
{
    kt_overlap_options o = { .size = sizeof o, .by_step = 1 };
    return kt_overlap(c->t, c->sel, &o, out);
}

static bool keep_memory(void *ctx, const kt_rank *r, kt_mem_rank *m)
{
    rp_ctx *c = ctx;
    c->memory_ranks[c->nmemory_ranks++] = (rp_kept_memory){ r, *m };
    return true;
}

/* kt_memory's tables, its series kept as the events it is made of (the
 * memory section splits them as the table would be).                    */
static kt_status run_memory(rp_ctx *c, kt_tables **out)
{
    kt_memory_options o = kt_memory_defaults();
    o.no_series = 1;
    c->memory_ranks = calloc(c->t->nranks + 1, sizeof *c->memory_ranks);
    if (!c->memory_ranks) return KT_ENOMEM;
    return kt_memory_keeping(c->t, c->sel, &o, NULL, keep_memory, c, out, NULL);
}

static kt_status run_critical_path(rp_ctx *c, kt_tables **out)
{
    kt_critical_path_options o = kt_critical_path_defaults();
    o.no_edges = 1;        /* the section shows the summary, the graph */
    o.longest_edges = 15;  /* and the 15 longest edges of each rank     */
    return kt_critical_path(c->t, c->sel, &o, out, NULL);
}

static kt_status run_mine(rp_ctx *c, kt_tables **out)
{
    kt_mine_options o = kt_mine_defaults();
    return kt_mine_sequences(c->t, c->sel, &o, out);
}

static kt_status run_collectives(rp_ctx *c, kt_tables **out)
{
    kt_collectives_options o = kt_collectives_defaults();
    return kt_collectives(c->t, c->sel, &o, out);
}

static kt_status run_stragglers(rp_ctx *c, kt_tables **out)
{
    kt_stragglers_options o = kt_stragglers_defaults();
    return kt_stragglers(c->t, c->sel, &o, out);
}

/* kt_perf's tables the perf section draws (rp_sec_perf), as kt_perf
 * builds them: those of ops by shapes it never shows are not built.     */
static kt_status run_perf(rp_ctx *c, kt_tables **out)
{
    kt_perf_options o = kt_perf_defaults();
    return kt_perf_overview(c->t, c->sel, &o, out);
}

/* kineta diff BASELINE TRACE [--by op]: the baseline's first rank against
 * the first shown rank of this trace.                                     */
static kt_status run_diff_by(rp_ctx *c, kt_diff_key by, kt_tables **out)
{
    if (!c->opt->baseline || !c->nranks) return KT_EUSAGE;
    kt_diff_options o = kt_diff_defaults();
    o.test_rank = c->ranks[0];
    o.by = by;
    o.hta_compat = kt_trace_hta_compat(c->t);
    o.categorizer = c->opt->categorizer;
    return kt_diff(c->opt->baseline, c->t, &o, out, NULL);
}

static kt_status run_diff(rp_ctx *c, kt_tables **out)
{
    return run_diff_by(c, KT_DIFF_BY_KERNEL, out);
}

static kt_status run_diff_by_op(rp_ctx *c, kt_tables **out)
{
    return run_diff_by(c, KT_DIFF_BY_OP, out);
}

static const rp_runner runners[RP_NANALYSES] = {
    [RP_INFO] = run_info,
    [RP_TEMPORAL] = run_temporal,
    [RP_TEMPORAL_BY_STEP] = run_temporal_by_step,
    [RP_BREAKDOWN] = run_breakdown,
    [RP_CATEGORIES] = run_categories,
    [RP_IDLE] = run_idle,
    [RP_GAPS] = run_gaps,
    [RP_LAUNCH] = run_launch,
    [RP_QUEUE] = run_queue,
    [RP_MEMCPY_BW] = run_memcpy_bw,
    [RP_MEMORY] = run_memory,
    [RP_OVERLAP] = run_overlap,
    [RP_OVERLAP_BY_STEP] = run_overlap_by_step,
    [RP_CRITICAL_PATH] = run_critical_path,
    [RP_MINE] = run_mine,
    [RP_COLLECTIVES] = run_collectives,
    [RP_STRAGGLERS] = run_stragglers,
    [RP_PERF] = run_perf,
    [RP_DIFF] = run_diff,
    [RP_DIFF_BY_OP] = run_diff_by_op,
};

/* What each analysis is called in a note when it failed. */
static const char *const analysis_names[RP_NANALYSES] = {
    [RP_INFO] = "info", [RP_TEMPORAL] = "temporal", [RP_TEMPORAL_BY_STEP] = "temporal --by-step",
    [RP_BREAKDOWN] = "breakdown", [RP_CATEGORIES] = "categories", [RP_IDLE] = "idle", [RP_GAPS] = "gaps",
    [RP_LAUNCH] = "launch", [RP_QUEUE] = "queue", [RP_MEMCPY_BW] = "memcpy-bw", [RP_OVERLAP] = "overlap",
    [RP_OVERLAP_BY_STEP] = "overlap --by-step", [RP_MEMORY] = "memory", [RP_CRITICAL_PATH] = "critical-path",
    [RP_MINE] = "patterns --mine", [RP_COLLECTIVES] = "collectives", [RP_STRAGGLERS] = "stragglers",
    [RP_PERF] = "perf", [RP_DIFF] = "diff", [RP_DIFF_BY_OP] = "diff --by op",
};

static void run_analysis(rp_ctx *c, rp_analysis a)
{
    c->ran[a] = true;
    c->status[a] = runners[a](c, &c->tables[a]);
    if (c->status[a] != KT_OK) c->tables[a] = NULL;
}

const kt_tables *rp_tables(rp_ctx *c, rp_analysis a)
{
    if (!c->ran[a]) run_analysis(c, a);
    return c->tables[a];
}

/* The costliest first, so the last to finish is a short one. */
static const rp_analysis prefetch_order[] = {
    RP_PERF, RP_MEMORY, RP_CRITICAL_PATH, RP_QUEUE, RP_MINE, RP_LAUNCH, RP_DIFF, RP_DIFF_BY_OP,
    RP_STRAGGLERS, RP_COLLECTIVES, RP_BREAKDOWN, RP_CATEGORIES, RP_GAPS, RP_IDLE, RP_TEMPORAL,
    RP_MEMCPY_BW, /* RP_TEMPORAL makes RP_TEMPORAL_BY_STEP and RP_OVERLAP(_BY_STEP) too */
};

#define PREFETCH_THREADS_MAX 8

/* Whether a section could show the analysis: the diffs need a baseline,
 * the collectives section two ranks or more (rp_has_collectives).  The
 * others are run ahead whatever their sections then decide.            */
static bool may_show(const rp_ctx *c, rp_analysis a)
{
    if (a == RP_DIFF || a == RP_DIFF_BY_OP) return c->opt->baseline != NULL;
    if (a == RP_STRAGGLERS || a == RP_COLLECTIVES) return c->nranks >= 2;
    return true;
}

typedef struct prefetch {
    rp_ctx *c;
    atomic_size_t next;
} prefetch;

/* Each analysis's slots are written by the one thread that claimed it
 * (info, which gave the ranks, is not in the list).  Numbers are
 * formatted as C numbers on every thread, as on the caller's
 * (write_report_c_locale).                                               */
static void *prefetch_worker(void *arg)
{
    prefetch *p = arg;
    locale_t c_num = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = c_num ? uselocale(c_num) : (locale_t)0;
    const size_t n = sizeof prefetch_order / sizeof *prefetch_order;
    for (size_t k; (k = atomic_fetch_add(&p->next, 1)) < n;) {
        rp_analysis a = prefetch_order[k];
        if (may_show(p->c, a)) run_analysis(p->c, a);
    }
    if (c_num) {
        uselocale(old);
        freelocale(c_num);
    }
    return NULL;
}

void rp_prefetch(rp_ctx *c, int jobs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = jobs > 0 ? (size_t)jobs : cores > 0 ? (size_t)cores : 1, started = 0;
    if (nthreads > PREFETCH_THREADS_MAX) nthreads = PREFETCH_THREADS_MAX;
    prefetch p = { .c = c };
    atomic_init(&p.next, 0);
    pthread_t th[PREFETCH_THREADS_MAX];
    while (started + 1 < nthreads && pthread_create(&th[started], NULL, prefetch_worker, &p) == 0) started++;
    prefetch_worker(&p); /* this thread too; without threads, it alone */
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
}

const kt_table *rp_table(rp_ctx *c, rp_analysis a, const char *name)
{
    const kt_tables *ts = rp_tables(c, a);
    return ts ? kt_tables_find(ts, name) : NULL;
}

kt_status rp_analyses_status(const rp_ctx *c)
{
    for (int a = 0; a < RP_NANALYSES; a++)
        if (c->ran[a] && c->status[a] == KT_ENOMEM) return KT_ENOMEM;
    return KT_OK;
}

void rp_analyses_free(rp_ctx *c)
{
    for (int a = 0; a < RP_NANALYSES; a++) {
        kt_tables_free(c->tables[a]);
        c->tables[a] = NULL;
    }
    for (size_t i = 0; i < c->nqueue_points; i++) free(c->queue_points[i].p);
    free(c->queue_points);
    c->queue_points = NULL;
    c->nqueue_points = 0;
    for (size_t i = 0; i < c->nmemory_ranks; i++) kt_mem_rank_free(&c->memory_ranks[i].m);
    free(c->memory_ranks);
    c->memory_ranks = NULL;
    c->nmemory_ranks = 0;
}

void rp_missing(rp_ctx *c, rp_analysis a, const char *what)
{
    char b[256];
    if (c->ran[a] && c->status[a] != KT_OK)
        snprintf(b, sizeof b, "%s: kineta %s failed (%s)", what, analysis_names[a], kt_status_str(c->status[a]));
    else
        snprintf(b, sizeof b, "%s: no data", what);
    rp_note(c->h, b);
}

long rp_col(const kt_table *t, const char *name)
{
    return t ? kt_table_col_index(t, name) : -1;
}

/* kt_table_float gives NaN for a null cell and an int cell as a double:
 * one call per cell, the series of a 1 GB trace read millions.            */
double rp_num(const kt_table *t, size_t row, long col)
{
    if (!t || col < 0 || kt_table_col_type(t, (size_t)col) == KT_COL_STR) return NAN;
    return kt_table_float(t, row, (size_t)col);
}

void rp_nums(const kt_table *t, long col, double *dst)
{
    rp_nums_rows(t, &col, 1, 0, t ? kt_table_nrows(t) : 0, &dst);
}

void rp_nums_rows(const kt_table *t, const long *cols, size_t k, size_t r0, size_t r1, double *const *dst)
{
    size_t n = r1 - r0, valid[RP_NUMS_MAX], nvalid = 0;
    double *into[RP_NUMS_MAX];
    for (size_t j = 0; j < k && j < RP_NUMS_MAX; j++) {
        if (t && cols[j] >= 0 && kt_table_col_type(t, (size_t)cols[j]) != KT_COL_STR) {
            valid[nvalid] = (size_t)cols[j];
            into[nvalid++] = dst[j];
        } else {
            for (size_t i = 0; i < n; i++) dst[j][i] = NAN;
        }
    }
    if (nvalid && kt_table_floats_rows(t, valid, nvalid, r0, r1, into) != KT_OK)
        for (size_t j = 0; j < nvalid; j++)
            for (size_t i = 0; i < n; i++) into[j][i] = NAN;
}

const char *rp_str(const kt_table *t, size_t row, long col)
{
    if (!t || col < 0 || kt_table_is_null(t, row, (size_t)col) || kt_table_col_type(t, (size_t)col) != KT_COL_STR)
        return "";
    return kt_table_str(t, row, (size_t)col);
}

size_t rp_rows_of_rank(const kt_table *t, long col, int rank, size_t *rows)
{
    size_t k = 0, n = t ? kt_table_nrows(t) : 0;
    double *v = col < 0 ? NULL : malloc((n + 1) * sizeof *v); /* the column read whole, cell by cell without memory */
    if (v) rp_nums(t, col, v);
    for (size_t i = 0; i < n; i++)
        if (col < 0 || (v ? v[i] : rp_num(t, i, col)) == (double)rank) rows[k++] = i;
    free(v);
    return k;
}

void rp_table_cols(rp_ctx *c, const char *caption, const kt_table *t, const size_t *rows, size_t n,
                   const rp_column *cols, size_t ncols)
{
    const char *head[16];
    for (size_t k = 0; k < ncols && k < 16; k++) head[k] = cols[k].head;
    if (!rows) n = kt_table_nrows(t);
    rp_table_begin(c->h, caption, head, ncols < 16 ? ncols : 16);
    for (size_t i = 0; i < n && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        for (size_t k = 0; k < ncols && k < 16; k++)
            rp_cell_from(c->h, t, rows ? rows[i] : i, rp_col(t, cols[k].name), cols[k].unit);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}
