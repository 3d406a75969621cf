/*
 * cmd_breakdown.c — `kineta breakdown`: HTA's GPU kernel breakdown — time by
 * kernel type and overlap, top kernels per rank and type, their duration
 * distribution across ranks.
 */
#include "cli.h"

#include <string.h>

static const cli_option breakdown_options[] = {
    { "num-kernels", "N", "named kernels per rank and type, the rest is \"others\" (default 10)" },
    { "duration-ratio", "R", "HTA's cumulative-time quantile for folding (default 0.8)" },
    { "no-memory", NULL, "leave MEMORY kernels (memcpy, memset) out" },
    { NULL, NULL, NULL },
};
static const char *const breakdown_tables[] = { "kernel_type", "kernels", "distribution", "kernel_type_by_rank", NULL };

static void breakdown_init(void *state)
{
    *(kt_breakdown_options *)state = kt_breakdown_defaults();
}

static int breakdown_parse(void *state, const char *name, const char *v)
{
    kt_breakdown_options *o = state;
    long long x;
    if (!strcmp(name, "no-memory")) {
        o->memory = 0;
    } else if (!strcmp(name, "num-kernels")) {
        if (!cli_parse_int(name, v, 0, 1000000000, &x)) return 2;
        o->num_kernels = (size_t)x;
    } else if (!strcmp(name, "duration-ratio")) {
        if (!cli_parse_double(name, v, &o->duration_ratio)) return 2;
        if (o->duration_ratio < 0 || o->duration_ratio > 1) {
            fprintf(stderr, "kineta: --duration-ratio must be between 0 and 1\n");
            return 2;
        }
    }
    return 0;
}

static kt_status breakdown_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_breakdown(t, &ctx->sel, state, out);
}

static kt_status breakdown_map(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **partial)
{
    return kt_breakdown_map(t, &ctx->sel, state, partial);
}

static kt_status breakdown_reduce(const cli_ctx *ctx, void *state, const kt_tables *const *partials, size_t n,
                                  kt_tables **out)
{
    return kt_breakdown_reduce(partials, n, state, ctx->hta_compat, out);
}

const cli_command cmd_breakdown = {
    .name = "breakdown",
    .summary = "GPU kernel time by type (COMPUTATION/COMMUNICATION/MEMORY and overlaps), top kernels (HTA)",
    .description = "Tables: kernel_type (time partitioned into types and their overlaps, all ranks),\n"
                   "kernels (per rank and type, the tail folded into \"others\"), distribution (each\n"
                   "top kernel's mean/min/max on every rank), kernel_type_by_rank.  Statistics are\n"
                   "real per-launch statistics; --hta-compat reproduces HTA's (see docs/kernels.md).",
    .options = breakdown_options,
    .tables = breakdown_tables,
    .state_size = sizeof(kt_breakdown_options),
    .init = breakdown_init,
    .parse = breakdown_parse,
    .run = breakdown_run,
    .map = breakdown_map,
    .reduce = breakdown_reduce,
};
