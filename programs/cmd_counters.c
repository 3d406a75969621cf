/*
 * cmd_counters.c — `kineta counters -o DIR`: copies of the traces with
 * queue-length and memcpy-bandwidth counter tracks (HTA's trace with
 * counters), for viewing in Perfetto.
 */
#include "cli.h"

#include <string.h>

typedef struct counters_state {
    kt_counters_options o;
} counters_state;

static const cli_option counters_options[] = {
    { "no-queue-length", NULL, "leave out the queue-length tracks" },
    { "no-memcpy-bw", NULL, "leave out the memcpy bandwidth tracks" },
    { NULL, NULL, NULL },
};
static const char *const counters_tables[] = { "files", NULL };

static void counters_init(void *state)
{
    ((counters_state *)state)->o = kt_counters_defaults();
}

static int counters_parse(void *state, const char *name, const char *value)
{
    counters_state *s = state;
    (void)value;
    if (!strcmp(name, "no-queue-length")) s->o.no_queue_length = 1;
    else if (!strcmp(name, "no-memcpy-bw")) s->o.no_memcpy_bw = 1;
    else return 2;
    return 0;
}

static kt_status counters_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    counters_state *s = state;
    s->o.out_dir = ctx->out_path;
    kt_diags *why = NULL;
    kt_status st = kt_counters(t, &ctx->sel, &s->o, out, &why);
    cli_fail_diags("counters", NULL, why);
    return st;
}

const cli_command cmd_counters = {
    .name = "counters",
    .summary = "write trace copies with queue-length and memcpy-bandwidth counter tracks (HTA)",
    .description = "Each rank's file is copied byte for byte into DIR as\n"
                   "<name>_with_counters.json[.gz] with Chrome counter events (\"Queue Length\"\n"
                   "per stream, \"Memcpy BW\" per copy kind) appended to traceEvents; open it in\n"
                   "Perfetto UI.  gzip inputs give gzip outputs.  The input is never overwritten.",
    .options = counters_options,
    .tables = counters_tables,
    .state_size = sizeof(counters_state),
    .init = counters_init,
    .parse = counters_parse,
    .run = counters_run,
    .output_dir = true,
};
