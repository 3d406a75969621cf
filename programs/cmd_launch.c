/*
 * cmd_launch.c — `kineta launch`: per launch, launch-call time, GPU time
 * and launch delay, and the short-kernel / outlier sets (HTA CUDA kernel
 * launch statistics).
 */
#include "cli.h"

#include <string.h>

static const cli_option launch_options[] = {
    { "runtime-cutoff", "US", "launch calls longer than this are runtime outliers (default 50 µs)" },
    { "launch-delay-cutoff", "US", "launch delays longer than this are outliers (default 100 µs)" },
    { NULL, NULL, NULL },
};
static const char *const launch_tables[] = { "launches", "short_gpu_kernels", "runtime_outliers",
                                             "launch_delay_outliers", NULL };
static const char *const launch_raw_tables[] = { "launches", NULL };

static void launch_init(void *state)
{
    *(kt_launch_options *)state = kt_launch_defaults();
}

static int launch_parse(void *state, const char *name, const char *value)
{
    kt_launch_options *o = state;
    if (!strcmp(name, "runtime-cutoff")) return cli_parse_double(name, value, &o->runtime_cutoff_us) ? 0 : 2;
    if (!strcmp(name, "launch-delay-cutoff"))
        return cli_parse_double(name, value, &o->launch_delay_cutoff_us) ? 0 : 2;
    return 2;
}

static kt_status launch_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_launch(t, &ctx->sel, state, out);
}

const cli_command cmd_launch = {
    .name = "launch",
    .summary = "kernel launch statistics: launch-call time, GPU time, launch delay (HTA)",
    .description = "One row per launch call and GPU event it launched (µs).  Every launch API is\n"
                   "recognized (cudaLaunchKernel[ExC], cuLaunchKernel[Ex], hipLaunchKernel,\n"
                   "hipExtModuleLaunchKernel, async memcpy/memset, graph launches); with\n"
                   "--hta-compat only HTA's CUDA runtime list.  short_gpu_kernels,\n"
                   "runtime_outliers and launch_delay_outliers summarize the sets HTA plots.",
    .options = launch_options,
    .tables = launch_tables,
    .raw_tables = launch_raw_tables,
    .state_size = sizeof(kt_launch_options),
    .init = launch_init,
    .parse = launch_parse,
    .run = launch_run,
};
