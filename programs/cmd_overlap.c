/*
 * cmd_overlap.c — `kineta overlap`: % of communication time overlapped by
 * computation, per rank (HTA comm/comp overlap).
 */
#include "cli.h"

#include <string.h>

static const cli_option overlap_options[] = {
    { "by-step", NULL, "one row per rank and ProfilerStep" },
    { NULL, NULL, NULL },
};
static const char *const overlap_tables[] = { "comm_comp_overlap", NULL };

static void overlap_init(void *state)
{
    *(kt_overlap_options *)state = kt_overlap_defaults();
}

static int overlap_parse(void *state, const char *name, const char *value)
{
    kt_overlap_options *o = state;
    (void)value;
    if (strcmp(name, "by-step")) return 2;
    o->by_step = 1;
    return 0;
}

static kt_status overlap_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_overlap(t, &ctx->sel, state, out);
}

const cli_command cmd_overlap = {
    .name = "overlap",
    .summary = "share of communication time hidden by computation, per rank",
    .options = overlap_options,
    .tables = overlap_tables,
    .state_size = sizeof(kt_overlap_options),
    .init = overlap_init,
    .parse = overlap_parse,
    .run = overlap_run,
};
