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
static const char *const queue_tables[] = { "series", "summary", "blocked", "weighted", NULL };

static void queue_init(void *state)
{
    ((kt_queue_options *)state)->max_queue_length = 1024;
}

static int queue_parse(void *state, const char *name, const char *value)
{
    long long x;
    if (strcmp(name, "max-queue-length") || !cli_parse_int(name, value, 1, 1 << 30, &x)) return 2;
    ((kt_queue_options *)state)->max_queue_length = x;
    return 0;
}

static kt_status queue_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_queue(t, &ctx->sel, state, out);
}

const cli_command cmd_queue = {
    .name = "queue",
    .summary = "launch queue length per GPU stream: time series, summary, time blocked (HTA)",
    .description = "Queue length = launches issued but not yet started (+1 at the launch call's\n"
                   "start, -1 at the GPU event's start).  summary is HTA's describe() over the\n"
                   "change points; weighted weighs each value by how long it held.",
    .options = queue_options,
    .tables = queue_tables,
    .state_size = sizeof(kt_queue_options),
    .init = queue_init,
    .parse = queue_parse,
    .run = queue_run,
};
