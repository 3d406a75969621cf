/*
 * cmd_info.c — `kineta info`: what is in these traces (placeholder printer).
 */
#include "cli.h"

static const cli_option info_options[] = { { NULL, NULL, NULL } };
static const char *const info_tables[] = { NULL };

static int info_parse(void *state, const char *name, const char *value)
{
    (void)state; (void)name; (void)value;
    return 2;
}

static kt_status info_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    (void)state;
    return kt_info(t, &ctx->sel, out);
}

const cli_command cmd_info = {
    .name = "info",
    .summary = "per rank: file, rank, devices, event counts, GPU streams, steps, time span",
    .options = info_options,
    .tables = info_tables,
    .parse = info_parse,
    .run = info_run,
};
