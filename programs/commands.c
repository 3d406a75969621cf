/*
 * commands.c — the list of `kineta` commands, in the order --help shows them.
 */
#include "cli.h"

extern const cli_command cmd_info;
extern const cli_command cmd_temporal, cmd_idle, cmd_overlap, cmd_gaps;
extern const cli_command cmd_kernels, cmd_breakdown, cmd_categories;
extern const cli_command cmd_launch, cmd_queue, cmd_memcpy_bw, cmd_counters;
/* structure */

/* compare and attribute */

/* across ranks */

/* performance model */
extern const cli_command cmd_perf;
/* reports and exports */


const cli_command *const kt_commands[] = {
    &cmd_info,
    &cmd_kernels,
    &cmd_breakdown,
    &cmd_categories,
    &cmd_temporal,
    &cmd_idle,
    &cmd_overlap,
    &cmd_gaps,
    &cmd_launch,
    &cmd_queue,
    &cmd_memcpy_bw,
    &cmd_counters,
    /* structure */

    /* compare and attribute */

    /* across ranks */

    /* performance model */
    &cmd_perf,
    /* reports and exports */

    NULL,
};
