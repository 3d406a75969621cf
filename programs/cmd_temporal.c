/*
 * cmd_temporal.c — `kineta temporal`: idle / compute / non-compute GPU time
 * per rank (HTA), per device and ProfilerStep, or TraceLens's GPU timeline.
 */
#include "cli.h"

#include <string.h>

static const cli_option temporal_options[] = {
    { "by-step", NULL, "one row per rank and ProfilerStep" },
    { "by-device", NULL, "one row per rank and GPU device" },
    { "tracelens", NULL, "TraceLens's GPU timeline table (linked kernels, whole trace)" },
    { NULL, NULL, NULL },
};
static const char *const temporal_tables[] = { "temporal_breakdown", "gpu_timeline", NULL };

static void temporal_init(void *state)
{
    *(kt_temporal_options *)state = kt_temporal_defaults();
}

static int temporal_parse(void *state, const char *name, const char *value)
{
    kt_temporal_options *o = state;
    (void)value;
    if (!strcmp(name, "by-step")) o->by_step = 1;
    else if (!strcmp(name, "by-device")) o->by_device = 1;
    else if (!strcmp(name, "tracelens")) o->tracelens = 1;
    else return 2;
    return 0;
}

static kt_status temporal_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_temporal(t, &ctx->sel, state, out);
}

const cli_command cmd_temporal = {
    .name = "temporal",
    .summary = "GPU time per rank: idle, compute, non-compute (HTA temporal breakdown)",
    .description = "kernel_time is the span from the first GPU event to the last; idle time is the\n"
                   "holes in the union of all GPU activity.  --tracelens prints TraceLens's\n"
                   "gpu_timeline instead (computation, exposed comm/memcpy, busy, idle, total).",
    .options = temporal_options,
    .tables = temporal_tables,
    .state_size = sizeof(kt_temporal_options),
    .init = temporal_init,
    .parse = temporal_parse,
    .run = temporal_run,
};
