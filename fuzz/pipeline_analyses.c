/*
 * pipeline_analyses.c — the fuzzers' dispatch table: every analysis of
 * lib/kineta.h with its defaults (variant 0) and one non-default option set
 * (variant 1) chosen to reach other code paths (other sort keys, grouping,
 * steps, cutoffs at 0, HTA's rules).
 *
 * A new analysis joins the fuzzers with a run_<name> function and one line
 * in fz_analyses; tests/test_fuzz_pipeline.c fails while an analysis
 * declared in lib/kineta.h has no line here.
 */
#include "pipeline.h"
#include "model/model.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>

static kt_status run_info(const fz_env *e, int v, kt_tables **out)
{
    (void)v;
    return kt_info(e->trace, e->sel, out);
}

static kt_kernels_options kernels_options(int v)
{
    if (!v) return kt_kernels_defaults();
    return (kt_kernels_options){ .size = sizeof(kt_kernels_options), .sort = KT_KSORT_DURATION, .by = KT_KBY_LAUNCHER, .top = 0, .memory = 1,
                                 .full_names = 1, .pstep = 1 };
}

static kt_status run_kernels(const fz_env *e, int v, kt_tables **out)
{
    kt_kernels_options o = kernels_options(v);
    return kt_kernels(e->trace, e->sel, &o, out);
}

static kt_breakdown_options breakdown_options(int v)
{
    if (!v) return kt_breakdown_defaults();
    return (kt_breakdown_options){ .size = sizeof(kt_breakdown_options), .num_kernels = 1, .duration_ratio = 0.5, .memory = 0 };
}

static kt_status run_breakdown(const fz_env *e, int v, kt_tables **out)
{
    kt_breakdown_options o = breakdown_options(v);
    return kt_breakdown(e->trace, e->sel, &o, out);
}

static kt_categories_options categories_options(int v)
{
    if (!v) return kt_categories_defaults();
    return (kt_categories_options){ .size = sizeof(kt_categories_options), .memory = 0, .full_names = 1, .top = 2, .pstep = 0 };
}

static kt_status run_categories(const fz_env *e, int v, kt_tables **out)
{
    kt_categories_options o = categories_options(v);
    return kt_categories(e->trace, e->sel, &o, out);
}

static kt_status run_temporal(const fz_env *e, int v, kt_tables **out)
{
    kt_temporal_options o = { .size = sizeof o, .by_step = v, .by_device = v };
    return kt_temporal(e->trace, e->sel, &o, out);
}

/* TraceLens's GPU timeline: temporal's other table set, its own line. */
static kt_status run_temporal_tracelens(const fz_env *e, int v, kt_tables **out)
{
    kt_temporal_options o = { .size = sizeof o, .tracelens = 1, .by_device = v };
    return kt_temporal(e->trace, e->sel, &o, out);
}

static kt_status run_idle(const fz_env *e, int v, kt_tables **out)
{
    static const int64_t streams[] = { 7, 0 };
    kt_idle_options o = { .size = sizeof o, .consecutive_kernel_delay_us = 30 };
    if (v) o = (kt_idle_options){ .size = sizeof(kt_idle_options), .consecutive_kernel_delay_us = 0, .streams = streams, .nstreams = 2 };
    return kt_idle(e->trace, e->sel, &o, out);
}

static kt_status run_overlap(const fz_env *e, int v, kt_tables **out)
{
    kt_overlap_options o = { .size = sizeof o, .by_step = v };
    return kt_overlap(e->trace, e->sel, &o, out);
}

static kt_gaps_options gaps_options(int v)
{
    if (!v) return kt_gaps_defaults();
    return (kt_gaps_options){ .size = sizeof(kt_gaps_options), .hist_min_us = 1, .hist_max_us = 1000, .bins = 3, .linear = 1, .top = 0,
                              .sort = KT_GAP_SORT_STDEV, .step = 1, .short_names = 1 };
}

static kt_status run_gaps(const fz_env *e, int v, kt_tables **out)
{
    kt_gaps_options o = gaps_options(v);
    return kt_gaps(e->trace, e->sel, &o, out);
}

/* ---- the map/reduce forms (--stream-ranks, MPI): the map's partial goes
 * through the wire format, and the reduce's tables are checked as the
 * command's.                                                               */

/* *partial (freed) serialized and read back into *copy. */
static kt_status over_wire(kt_tables *partial, kt_tables **copy)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    kt_status s = kt_tables_serialize(partial, &buf, &len);
    if (s == KT_OK) s = kt_tables_deserialize(buf, len, copy);
    free(buf);
    kt_tables_free(partial);
    return s;
}

static kt_status run_kernels_map(const fz_env *e, int v, kt_tables **out)
{
    kt_kernels_options o = kernels_options(v);
    kt_tables *p = NULL, *w = NULL;
    kt_status s = kt_kernels_map(e->trace, e->sel, &o, &p);
    if (s == KT_OK) s = over_wire(p, &w);
    if (s == KT_OK) s = kt_kernels_reduce((const kt_tables *const *)&w, 1, &o, out);
    kt_tables_free(w);
    return s;
}

static kt_status run_breakdown_map(const fz_env *e, int v, kt_tables **out)
{
    kt_breakdown_options o = breakdown_options(v);
    kt_tables *p = NULL, *w = NULL;
    kt_status s = kt_breakdown_map(e->trace, e->sel, &o, &p);
    if (s == KT_OK) s = over_wire(p, &w);
    if (s == KT_OK) s = kt_breakdown_reduce((const kt_tables *const *)&w, 1, &o, e->trace->hta_compat, out);
    kt_tables_free(w);
    return s;
}

static kt_status run_categories_map(const fz_env *e, int v, kt_tables **out)
{
    kt_categories_options o = categories_options(v);
    kt_tables *p = NULL, *w = NULL;
    kt_status s = kt_categories_map(e->trace, e->sel, &o, &p);
    if (s == KT_OK) s = over_wire(p, &w);
    if (s == KT_OK) s = kt_categories_reduce((const kt_tables *const *)&w, 1, &o, out);
    kt_tables_free(w);
    return s;
}

static kt_status run_gaps_map(const fz_env *e, int v, kt_tables **out)
{
    kt_gaps_options o = gaps_options(v);
    kt_tables *p = NULL, *w = NULL;
    kt_status s = kt_gaps_map(e->trace, e->sel, &o, &p);
    if (s == KT_OK) s = over_wire(p, &w);
    if (s == KT_OK) s = kt_gaps_reduce((const kt_tables *const *)&w, 1, &o, out);
    kt_tables_free(w);
    return s;
}

static kt_status run_launch(const fz_env *e, int v, kt_tables **out)
{
    kt_launch_options o = { .size = sizeof o, .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    if (v) o = (kt_launch_options){ .size = sizeof(kt_launch_options), .runtime_cutoff_us = 0, .launch_delay_cutoff_us = 0 };
    return kt_launch(e->trace, e->sel, &o, out);
}

static kt_status run_queue(const fz_env *e, int v, kt_tables **out)
{
    kt_queue_options o = { .size = sizeof o, .max_queue_length = v ? 1 : 1024 };
    return kt_queue(e->trace, e->sel, &o, out);
}

static kt_status run_memcpy_bw(const fz_env *e, int v, kt_tables **out)
{
    (void)v;
    return kt_memcpy_bw(e->trace, e->sel, out);
}

static kt_status run_counters(const fz_env *e, int v, kt_tables **out)
{
    kt_counters_options o = kt_counters_defaults();
    o.out_dir = e->scratch;
    o.no_queue_length = v;
    kt_diags *why;
    kt_status s = kt_counters(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

static kt_status run_diff(const fz_env *e, int v, kt_tables **out)
{
    kt_diff_options o = kt_diff_defaults();
    if (v) {
        o.device = KT_DIFF_DEVICE_GPU;
        o.short_names = 1;
        o.by = KT_DIFF_BY_OP;
        o.hta_compat = 1;
        o.control_iteration = KT_DIFF_WHOLE;
        o.test_rank = kt_trace_nranks(e->other) ? kt_trace_rank(e->other, kt_trace_nranks(e->other) - 1) : -1;
    }
    kt_diags *why;
    kt_status s = kt_diff(e->trace, e->other, &o, out, &why);
    kt_diags_free(why);
    return s;
}

/* The event columns of every rank (variant 1: some of them), checked here
 * (string ids and kinds in range; durations are as written, negative ones
 * included) and summarised as a table the pipeline renders and checks.   */
static kt_status check_events(const kt_trace *t, size_t pos, int some, int64_t *bad)
{
    size_t n = kt_trace_nevents(t, pos), ns = kt_trace_nstrings(t);
    kt_event_columns c = { .size = sizeof c };
    c.name = calloc(n ? n : 1, sizeof *c.name);
    c.kind = calloc(n ? n : 1, sizeof *c.kind);
    if (!some) c.ts = calloc(n ? n : 1, sizeof *c.ts), c.dur = calloc(n ? n : 1, sizeof *c.dur);
    kt_status s = c.name && c.kind && (some || (c.ts && c.dur)) ? kt_trace_events(t, pos, &c) : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < n; i++)
        if ((c.name[i] != UINT32_MAX && c.name[i] >= ns) || !kt_event_kind_name(c.kind[i])) (*bad)++;
    free(c.name), free(c.kind), free(c.ts), free(c.dur);
    return s;
}

static int selected(const kt_rank_sel *sel, int rank)
{
    for (size_t i = 0; sel && i < sel->nranks; i++)
        if (sel->ranks[i] == rank) return 1;
    return !sel || !sel->nranks;
}

static kt_status run_trace_events(const fz_env *e, int v, kt_tables **out)
{
    kt_table *tb = kt_table_new("events");
    if (!tb) return KT_ENOMEM;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "events", KT_COL_INT, 0);
    kt_table_add_col(tb, "bad_count", KT_COL_INT, 0);
    kt_status s = KT_OK;
    for (size_t pos = 0; s == KT_OK && pos < kt_trace_nranks(e->trace); pos++) {
        if (!selected(e->sel, kt_trace_rank(e->trace, pos))) continue;
        int64_t bad = 0;
        s = check_events(e->trace, pos, v, &bad);
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, kt_trace_rank(e->trace, pos));
        kt_table_set_int(tb, 1, (int64_t)kt_trace_nevents(e->trace, pos));
        kt_table_set_int(tb, 2, bad ? -bad : 0); /* any bad event: a negative count */
    }
    if (s != KT_OK) {
        kt_table_free(tb);
        return s;
    }
    return kt_tables_from(&tb, 1, out);
}

/* The args texts of a rank's events (variant 1: every other event): the
 * fields found, and a negative count when the buffer does not hold exactly
 * one NUL-terminated field per row and key.  A trace whose file cannot be
 * re-read (loaded from memory) gives no fields, as the API says.          */
static int64_t arg_fields(const kt_trace *t, size_t pos, int v, int64_t *found)
{
    static const char *const keys[] = { "stream", "Input Dims", "bytes" };
    size_t n = kt_trace_nevents(t, pos), nrows = 0;
    uint32_t *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return -1;
    for (size_t i = 0; i < n; i += v ? 2 : 1) rows[nrows++] = (uint32_t)i;
    char *text = NULL;
    size_t len = 0;
    kt_diags *why = NULL;
    kt_status s = kt_trace_arg_texts(t, pos, keys, 3, rows, nrows, &text, &len, &why);
    kt_diags_free(why);
    free(rows);
    if (s != KT_OK) return s == KT_EINPUT ? 0 : -1;
    size_t fields = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\0') continue;
        fields++;
        if (i > 0 && text[i - 1] != '\0') (*found)++; /* a field with a value */
    }
    kt_arg_texts_free(text);
    return fields == nrows * 3 ? 0 : -1;
}

static kt_status run_trace_arg_texts(const fz_env *e, int v, kt_tables **out)
{
    kt_table *tb = kt_table_new("arg_texts");
    if (!tb) return KT_ENOMEM;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "fields", KT_COL_INT, 0);
    kt_table_add_col(tb, "bad_count", KT_COL_INT, 0);
    for (size_t pos = 0; pos < kt_trace_nranks(e->trace); pos++) {
        if (!selected(e->sel, kt_trace_rank(e->trace, pos))) continue;
        int64_t found = 0, bad = arg_fields(e->trace, pos, v, &found);
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, kt_trace_rank(e->trace, pos));
        kt_table_set_int(tb, 1, found);
        kt_table_set_int(tb, 2, bad);
    }
    return kt_tables_from(&tb, 1, out);
}

static kt_status run_export_sqlite(const fz_env *e, int v, kt_tables **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/export.sqlite", e->scratch);
    kt_sqlite_options o = { .size = sizeof o, .path = path, .no_events = v };
    kt_diags *why;
    kt_status s = kt_export_sqlite(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

static kt_status run_patterns(const fz_env *e, int v, kt_tables **out)
{
    kt_patterns_options o = kt_patterns_defaults();
    if (v) {
        o.min_len = 1;
        o.op = "aten::";
        o.out_dir = e->scratch;
    }
    kt_diags *why;
    kt_status s = kt_patterns(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

static kt_status run_mine_sequences(const fz_env *e, int v, kt_tables **out)
{
    kt_mine_options o = kt_mine_defaults();
    if (v) o.max_len = 3, o.top = 0;
    return kt_mine_sequences(e->trace, e->sel, &o, out);
}

/* Both overlays: the one that keeps every event finds its few edited
 * events from the args offsets (event_locate.c); only_critical walks all
 * of traceEvents to leave events out.                                    */
static kt_status run_critical_path(const fz_env *e, int v, kt_tables **out)
{
    kt_critical_path_options o = kt_critical_path_defaults();
    o.out_dir = e->scratch;
    o.only_critical = v;
    kt_diags *why;
    kt_status s = kt_critical_path(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

static kt_status run_annotations(const fz_env *e, int v, kt_tables **out)
{
    kt_annotations_options o = kt_annotations_defaults();
    (void)v;
    return kt_annotations(e->trace, e->sel, &o, out);
}

static kt_status run_ops(const fz_env *e, int v, kt_tables **out)
{
    (void)v;
    return kt_ops(e->trace, e->sel, out);
}

static kt_status run_cupti(const fz_env *e, int v, kt_tables **out)
{
    kt_cupti_options o = { .size = sizeof o, .peak_tflops = v ? 100 : 0 };
    return kt_cupti(e->trace, e->sel, &o, out);
}

static kt_status run_memory(const fz_env *e, int v, kt_tables **out)
{
    kt_memory_options o = kt_memory_defaults();
    if (v) o.top = 0, o.out_dir = e->scratch;
    return kt_memory(e->trace, e->sel, &o, out, NULL);
}

static kt_status run_collectives(const fz_env *e, int v, kt_tables **out)
{
    kt_collectives_options o = kt_collectives_defaults();
    if (v) o.gpus_per_node = 2;
    return kt_collectives(e->trace, e->sel, &o, out);
}

static kt_status run_stragglers(const fz_env *e, int v, kt_tables **out)
{
    kt_stragglers_options o = kt_stragglers_defaults();
    if (v) o.candidates = 1;
    return kt_stragglers(e->trace, e->sel, &o, out);
}

static kt_status run_perf(const fz_env *e, int v, kt_tables **out)
{
    kt_perf_options o = kt_perf_defaults();
    if (v) o.tracelens = 1;
    kt_diags *why;
    kt_status s = kt_perf(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

static kt_status run_replay_ir(const fz_env *e, int v, kt_tables **out)
{
    kt_replay_options o = kt_replay_defaults();
    if (v) o.op = "aten::*";
    kt_diags *why;
    kt_status s = kt_replay_ir(e->trace, e->sel, &o, out, &why);
    kt_diags_free(why);
    return s;
}

/* write: the workbook written (kt_perf_workbook), else the sheets only. */
static kt_status perf_sheets(const fz_env *e, bool write, kt_tables **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/perf.xlsx", e->scratch);
    kt_diags *why = NULL;
    kt_status s = write ? kt_perf_workbook(e->trace, e->sel, NULL, path, out, &why)
                        : kt_perf_sheets(e->trace, e->sel, NULL, out, &why);
    kt_diags_free(why);
    remove(path); /* a workbook, not a trace for the harness to load back */
    return s;
}

/* The trace compared with itself (write: kt_perf_compare_workbook). */
static kt_status perf_compare(const fz_env *e, bool write, kt_tables **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/compare.xlsx", e->scratch);
    kt_diags *why = NULL;
    kt_status s = write ? kt_perf_compare_workbook(e->trace, e->trace, e->sel, NULL, path, out, &why)
                        : kt_perf_compare(e->trace, e->trace, e->sel, NULL, out, &why);
    kt_diags_free(why);
    remove(path); /* a workbook, not a trace for the harness to load back */
    return s;
}

static kt_status run_perf_sheets(const fz_env *e, int v, kt_tables **out) { (void)v; return perf_sheets(e, false, out); }
static kt_status run_perf_workbook(const fz_env *e, int v, kt_tables **out) { (void)v; return perf_sheets(e, true, out); }
static kt_status run_perf_compare(const fz_env *e, int v, kt_tables **out) { (void)v; return perf_compare(e, false, out); }
static kt_status run_perf_compare_workbook(const fz_env *e, int v, kt_tables **out)
{
    (void)v;
    return perf_compare(e, true, out);
}

static kt_status run_report(const fz_env *e, int v, kt_tables **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/report.html", e->scratch);
    kt_report_options o = kt_report_defaults();
    if (v) o.max_points = 2, o.max_rows = 1;
    return kt_report(e->trace, e->sel, &o, path, out, NULL);
}

static kt_status run_report_write(const fz_env *e, int v, kt_tables **out)
{
    FILE *f = fopen("/dev/null", "w");
    if (!f) return KT_EINPUT;
    kt_report_options o = kt_report_defaults();
    if (v) o.top_kernels = 1, o.baseline = e->trace; /* + the diff section, against itself */
    kt_status s = kt_report_write(e->trace, e->sel, &o, f, NULL);
    fclose(f);
    *out = NULL;
    return s == KT_OK ? kt_tables_from(NULL, 0, out) : s;
}

const fz_analysis fz_analyses[] = {
    { "info", "info", run_info },
    { "kernels", "kernels", run_kernels },
    { "breakdown", "breakdown", run_breakdown },
    { "categories", "categories", run_categories },
    { "temporal", "temporal", run_temporal },
    { "temporal", "temporal", run_temporal_tracelens },
    { "idle", "idle", run_idle },
    { "overlap", "overlap", run_overlap },
    { "gaps", "gaps", run_gaps },
    { "kernels_map", "kernels", run_kernels_map },
    { "breakdown_map", "breakdown", run_breakdown_map },
    { "categories_map", "categories", run_categories_map },
    { "gaps_map", "gaps", run_gaps_map },
    { "launch", "launch", run_launch },
    { "queue", "queue", run_queue },
    { "memcpy_bw", "memcpy-bw", run_memcpy_bw },
    { "counters", "counters", run_counters },
    /* structure */
    { "patterns", "patterns", run_patterns },
    { "mine_sequences", "patterns", run_mine_sequences },
    { "critical_path", "critical-path", run_critical_path },
    /* compare and attribute */
    { "diff", "diff", run_diff },
    { "annotations", "annotations", run_annotations },
    { "ops", "ops", run_ops },
    { "cupti", "cupti", run_cupti },
    { "memory", "memory", run_memory },
    /* across ranks */
    { "collectives", "collectives", run_collectives },
    { "stragglers", "stragglers", run_stragglers },
    /* performance model */
    { "perf", "perf", run_perf },
    { "replay_ir", "replay", run_replay_ir },
    { "perf_sheets", NULL, run_perf_sheets },
    { "perf_workbook", NULL, run_perf_workbook },
    { "perf_compare", NULL, run_perf_compare },
    { "perf_compare_workbook", NULL, run_perf_compare_workbook },
    /* reports and exports */
    { "report", "report", run_report },
    { "report_write", NULL, run_report_write },
    { "trace_events", NULL, run_trace_events },
    { "trace_arg_texts", NULL, run_trace_arg_texts },
    { "export_sqlite", "export", run_export_sqlite },
    { NULL, NULL, NULL },
};
