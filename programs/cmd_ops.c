/*
 * cmd_ops.c — `kineta ops`: ATen op → kernel sequences with launch and
 * runtime delays (HTA get_aten_op_kernels_and_delay), per rank.
 */
#include "cli.h"

static const char *const ops_tables[] = { "ops", "unmatched", NULL };

static kt_status ops_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    (void)state;
    return kt_ops(t, &ctx->sel, out);
}

const cli_command cmd_ops = {
    .name = "ops",
    .summary = "ATen op -> kernel sequences, op-to-launch and launch-to-GPU delays (HTA)",
    .description = "Per rank and (aten:: op, kernel sequence): how often, the mean delay from the\n"
                   "op's start to its first launch call and from that call to its GPU event (µs).\n"
                   "Every launch API counts and the wrapping op is the innermost aten:: op around\n"
                   "the call on its own thread; --hta-compat uses HTA's CUDA launch names and its\n"
                   "rule (the latest-starting aten:: op on any thread that encloses the call).\n"
                   "unmatched: launches without a GPU event or without a wrapping op.",
    .tables = ops_tables,
    .run = ops_run,
};
