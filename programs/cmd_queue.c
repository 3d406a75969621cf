/*
 * cmd_queue.c — `kineta queue`: launch queue length per GPU stream over
 * time, its summaries and the time spent with a full queue (HTA).
 */
#include "cli.h"

#include <string.h>

static const cli_option queue_options[] = {
    { "max-queue-length", "N", "'blocked' counts time with at least N launches waiting (default 1024)" },
    { NULL, NULL, NULL },
};
static const char *const queue_tables[] = { "series", "summary", "blocked", "weighted", "diagnostics", NULL };
static const char *const queue_raw_tables[] = { "series", NULL };

static void queue_init(void *state)
{
    *(kt_queue_options *)state = kt_queue_defaults();
}

static int queue_parse(void *state, const char *name, const char *value)
{
    long long x;
    if (strcmp(name, "max-queue-length") || !cli_parse_int(name, value, 1, 1 << 30, &x)) return 2;
    ((kt_queue_options *)state)->max_queue_length = x;
    return 0;
}

/* GPU events before their launch call change the numbers: say so. */
static void warn_early(const cli_ctx *ctx, const kt_tables *ts)
{
    const kt_table *d = kt_tables_find(ts, "diagnostics");
    long rank = d ? kt_table_col_index(d, "rank") : -1, msg = d ? kt_table_col_index(d, "message") : -1;
    for (size_t i = 0; rank >= 0 && msg >= 0 && !ctx->quiet && i < kt_table_nrows(d); i++)
        fprintf(stderr, "kineta queue: warning: rank %lld: %s\n", (long long)kt_table_int(d, i, (size_t)rank),
                kt_table_str(d, i, (size_t)msg));
}

static kt_status queue_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    kt_status st = kt_queue(t, &ctx->sel, state, out);
    if (st == KT_OK) warn_early(ctx, *out);
    return st;
}

const cli_command cmd_queue = {
    .name = "queue",
    .summary = "launch queue length per GPU stream: time series, summary, time blocked (HTA)",
    .description = "Queue length = launches issued but not yet started (+1 at the launch call's\n"
                   "start, -1 at the GPU event's start).  summary is HTA's describe() over the\n"
                   "change points; weighted weighs each value by how long it held.  A GPU event\n"
                   "the trace puts before its launch call leaves the queue with the call (HTA,\n"
                   "--hta-compat: as written, so lengths can go negative); diagnostics counts\n"
                   "them per rank, also printed as a warning.",
    .options = queue_options,
    .tables = queue_tables,
    .raw_tables = queue_raw_tables,
    .state_size = sizeof(kt_queue_options),
    .init = queue_init,
    .parse = queue_parse,
    .run = queue_run,
};
