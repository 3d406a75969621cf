/*
 * cmd_memcpy_bw.c — `kineta memcpy-bw`: memory bandwidth per memcpy /
 * memset kind over time and its summary (HTA).
 */
#include "cli.h"

static const char *const memcpy_bw_tables[] = { "series", "summary", NULL };
static const char *const memcpy_bw_raw_tables[] = { "series", NULL };

static kt_status memcpy_bw_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    (void)state;
    return kt_memcpy_bw(t, &ctx->sel, out);
}

const cli_command cmd_memcpy_bw = {
    .name = "memcpy-bw",
    .summary = "memory bandwidth per memcpy/memset kind: time series and summary (HTA)",
    .description = "GB/s summed over the copies running at each instant.  Traces without\n"
                   "Kineto's bandwidth arg (AMD) get bytes / duration.",
    .tables = memcpy_bw_tables,
    .raw_tables = memcpy_bw_raw_tables,
    .run = memcpy_bw_run,
};
