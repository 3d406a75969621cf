/*
 * cmd_cupti.c — `kineta cupti`: CUPTI range-profiler counters per kernel,
 * joined to the ops that launched them, with FLOPs and achieved FLOP/s.
 */
#include "cli.h"

#include <string.h>

static const cli_option cupti_options[] = {
    { "peak-tflops", "T", "peak TFLOP/s for pct_of_peak (default: the device's FP32 peak when known)" },
    { NULL, NULL, NULL },
};
static const char *const cupti_tables[] = { "counters", "ops", "match", NULL };

static void cupti_init(void *state)
{
    *(kt_cupti_options *)state = kt_cupti_defaults();
}

static int cupti_parse(void *state, const char *name, const char *value)
{
    kt_cupti_options *o = state;
    if (!strcmp(name, "peak-tflops")) {
        if (!cli_parse_double(name, value, &o->peak_tflops)) return 2;
        if (o->peak_tflops <= 0) {
            fprintf(stderr, "kineta cupti: --peak-tflops must be > 0\n");
            return 2;
        }
        return 0;
    }
    return 2;
}

static kt_status cupti_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_cupti(t, &ctx->sel, state, out);
}

const cli_command cmd_cupti = {
    .name = "cupti",
    .summary = "CUPTI range-profiler counters joined to ops, FLOPs and FLOP/s (HTA)",
    .description = "For traces captured with the CUPTI range profiler (cuda_profiler_range\n"
                   "events instead of kernels): every counter of every range, the launch it\n"
                   "belongs to (by correlation id when the range has one, else HTA's i-th range\n"
                   "<-> i-th launch when the counts agree; column match says which), the cpu_op\n"
                   "stack of that launch, FLOPs from the SASS counters (fma = 2) and achieved\n"
                   "TFLOP/s.  ops: the same per (top-level op, bottom-level op).  match: how\n"
                   "each rank's ranges were paired.",
    .options = cupti_options,
    .tables = cupti_tables,
    .state_size = sizeof(kt_cupti_options),
    .init = cupti_init,
    .parse = cupti_parse,
    .run = cupti_run,
};
