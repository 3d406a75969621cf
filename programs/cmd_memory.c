/*
 * cmd_memory.c — `kineta memory`: device memory over time, from the
 * Kineto "[memory]" events of traces recorded with profile_memory=True, or
 * from PyTorch's export_memory_timeline_raw file (recognized by its
 * content: a JSON list instead of a trace object).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct memory_state {
    kt_memory_options o;
} memory_state;

static const cli_option memory_options[] = {
    { "top", "N", "peak_ops rows per device (default 10, 0 = all)" },
    { "no-series", NULL, "leave out the series table (one row per memory event)" },
    { NULL, NULL, NULL },
};
static const char *const memory_tables[] = { "devices", "series", "peak_ops", "files", "timeline", "peaks", NULL };
static const char *const memory_raw_tables[] = { "series", "timeline", NULL };

static void memory_init(void *state)
{
    ((memory_state *)state)->o = kt_memory_defaults();
}

static int memory_parse(void *state, const char *name, const char *value)
{
    memory_state *s = state;
    long long n;
    if (!strcmp(name, "top")) {
        if (!cli_parse_int(name, value, 0, 1000000000, &n)) return 2;
        s->o.top = (size_t)n;
    } else if (!strcmp(name, "no-series")) {
        s->o.no_series = 1;
    } else {
        return 2;
    }
    return 0;
}

/* A memory timeline is a JSON list: its first non-blank byte is '['. */
static bool is_timeline_file(const char *path)
{
    gzFile f = gzopen(path, "rb");
    if (!f) return false;
    int c;
    do c = gzgetc(f);
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
    gzclose(f);
    return c == '[';
}

static void print_diags(const kt_diags *d, bool quiet)
{
    for (size_t i = 0; d && i < kt_diags_count(d); i++) {
        const kt_diag *g = kt_diags_get(d, i);
        if (quiet && g->level != KT_DIAG_ERROR) continue;
        fprintf(stderr, "kineta memory: %s: %s: %s\n", g->level == KT_DIAG_ERROR ? "error" : "warning",
                g->file ? g->file : "", g->message);
    }
}

static bool memory_preload(const cli_ctx *ctx, void *state, kt_tables **out, kt_status *status)
{
    (void)state;
    if (ctx->npaths != 1 || !is_timeline_file(ctx->paths[0])) return false;
    kt_diags *d = NULL;
    *status = kt_memory_timeline_file(ctx->paths[0], ctx->out_path, out, &d);
    print_diags(d, ctx->quiet);
    kt_diags_free(d);
    return true;
}

static void warn_negative(const cli_ctx *ctx, const kt_tables *ts)
{
    const kt_table *d = kt_tables_find(ts, "devices");
    long c = d ? kt_table_col_index(d, "negative_totals") : -1;
    for (size_t i = 0; c >= 0 && !ctx->quiet && i < kt_table_nrows(d); i++)
        if (kt_table_int(d, i, (size_t)c) > 0)
            fprintf(stderr, "kineta memory: warning: rank %lld %s: %lld [memory] events with negative totals "
                    "ignored\n", (long long)kt_table_int(d, i, 0), kt_table_str(d, i, 1),
                    (long long)kt_table_int(d, i, (size_t)c));
}

static kt_status memory_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    memory_state *s = state;
    if (ctx->hta_compat && !ctx->quiet)
        fprintf(stderr, "kineta memory: warning: --hta-compat loads as HTA does, which drops the [memory] "
                        "events (HTA has no such analysis): run without it\n");
    s->o.out_dir = ctx->out_path;
    kt_diags *why = NULL;
    kt_status st = kt_memory(t, &ctx->sel, &s->o, out, &why);
    cli_fail_diags("memory", NULL, why);
    if (st == KT_OK) warn_negative(ctx, *out);
    return st;
}

const cli_command cmd_memory = {
    .name = "memory",
    .summary = "device memory over time: peaks, ops holding memory at the peak, allocation counts",
    .description = "From the [memory] events of a trace recorded with profile_memory=True (HTA\n"
                   "ignores them): devices (allocations, frees, peak allocated and when, peak\n"
                   "reserved), series (allocated/reserved after every event), peak_ops (the ops\n"
                   "whose allocations are live at the peak, by bytes).  -o DIR also writes a copy\n"
                   "of each trace with \"Memory <device>\" counter tracks (table files).\n"
                   "Given PyTorch's export_memory_timeline_raw file instead (HTA MemoryAnalysis):\n"
                   "timeline (bytes per category at every timestamp) and peaks; -o DIR writes\n"
                   "<name>_counters.json, a Chrome trace with one counter series per category.",
    .options = memory_options,
    .tables = memory_tables,
    .raw_tables = memory_raw_tables,
    .state_size = sizeof(memory_state),
    .init = memory_init,
    .parse = memory_parse,
    .run = memory_run,
    .output_dir = true,
    .output_dir_optional = true,
    .preload = memory_preload,
};
