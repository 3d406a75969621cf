/*
 * cmd_report.c — `kineta report PATH... -o report.html`: one offline HTML
 * page with the charts and tables of the other commands (kt_report).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct report_state {
    kt_report_options o;
    const char *baseline; /* --baseline PATH: the run to diff against */
    const char *xlsx;     /* --xlsx FILE: perf's workbook as well */
} report_state;

static const cli_option report_options[] = {
    { "title", "TEXT", "page title (default: kineta report)" },
    { "top-kernels", "N", "kernels shown across ranks (default 8)" },
    { "max-points", "N", "points drawn per time-series line (default 400)" },
    { "max-rows", "N", "rows per table (default 300)" },
    { "baseline", "PATH", "a diff section against this run (its first rank; file or directory)" },
    { "xlsx", "FILE", "also write TraceLens's perf workbook (as kineta perf --xlsx)" },
    { NULL, NULL, NULL },
};

static void report_init(void *state)
{
    ((report_state *)state)->o = kt_report_defaults();
}

static int report_parse(void *state, const char *name, const char *value)
{
    report_state *s = state;
    long long x;
    if (!strcmp(name, "title")) {
        s->o.title = value;
        return 0;
    }
    if (!strcmp(name, "baseline")) {
        s->baseline = value;
        return 0;
    }
    if (!strcmp(name, "xlsx")) {
        s->xlsx = value;
        return 0;
    }
    if (!cli_parse_int(name, value, !strcmp(name, "top-kernels") ? 0 : 4, 1000000, &x)) return 2;
    if (!strcmp(name, "top-kernels")) s->o.top_kernels = (size_t)x;
    else if (!strcmp(name, "max-points")) s->o.max_points = (size_t)x;
    else if (!strcmp(name, "max-rows")) s->o.max_rows = (size_t)x;
    else return 2;
    return 0;
}

/* --xlsx: the workbook `kineta perf --xlsx` writes. */
static kt_status write_workbook(const cli_ctx *ctx, const kt_trace *t, const char *path)
{
    kt_tables *ts = NULL;
    kt_diags *why = NULL;
    kt_status st = kt_perf_workbook(t, &ctx->sel, NULL, path, &ts, &why);
    cli_fail_diags("report", "--xlsx: ", why);
    if (st == KT_OK && !ctx->quiet) printf("wrote %s (%zu sheets)\n", path, kt_tables_count(ts));
    kt_tables_free(ts);
    return st;
}

static kt_status report_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    report_state *s = state;
    const char *path = ctx->out_path ? ctx->out_path : "report.html";
    s->o.jobs = ctx->jobs;
    kt_trace *base = NULL;
    kt_status st = s->baseline ? cli_load_run("report", "baseline", s->baseline, &base) : KT_OK;
    if (st != KT_OK) return st;
    s->o.baseline = base;
    kt_tables *ts = NULL;
    kt_diags *why = NULL;
    st = kt_report(t, &ctx->sel, &s->o, path, &ts, &why);
    kt_trace_free(base);
    cli_fail_diags("report", NULL, why);
    if (st != KT_OK) return st;
    const kt_table *r = kt_tables_find(ts, "report");
    if (!ctx->quiet && r)
        printf("wrote %s (%.1f kB, %lld sections, %lld ranks)\n", path, (double)kt_table_int(r, 0, 1) / 1e3,
               (long long)kt_table_int(r, 0, 2), (long long)kt_table_int(r, 0, 3));
    kt_tables_free(ts);
    *out = NULL; /* -o is the page: nothing else to print there */
    return s->xlsx ? write_workbook(ctx, t, s->xlsx) : KT_OK;
}

const cli_command cmd_report = {
    .name = "report",
    .summary = "one self-contained HTML page with charts of every analysis (-o FILE, default report.html)",
    .description = "Overview, temporal breakdown, kernel types and top kernels per type, kernel\n"
                   "durations across ranks, categories, idle time, gaps, launches, queue length,\n"
                   "memory bandwidth and comm/compute overlap: charts (inline SVG) and sortable\n"
                   "tables fed by the same tables the other commands print.  Where the trace has\n"
                   "them: critical path, repeated kernel sequences, collectives and stragglers,\n"
                   "device memory, the perf model; --baseline PATH adds a diff against that run.\n"
                   "Opens from disk in any browser, no network needed; a rank picker when there\n"
                   "are several ranks.",
    .options = report_options,
    .state_size = sizeof(report_state),
    .init = report_init,
    .parse = report_parse,
    .run = report_run,
};
