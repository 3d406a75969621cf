/*
 * commands.c — the list of `kineta` commands, in the order --help shows them.
 */
#include "cli.h"

extern const cli_command cmd_info;
extern const cli_command cmd_temporal, cmd_idle, cmd_overlap, cmd_gaps;
extern const cli_command cmd_kernels, cmd_breakdown, cmd_categories;
extern const cli_command cmd_launch, cmd_queue, cmd_memcpy_bw, cmd_counters;
/* structure */
extern const cli_command cmd_patterns;
extern const cli_command cmd_critical_path;

/* compare and attribute */
extern const cli_command cmd_diff;
extern const cli_command cmd_annotations, cmd_ops, cmd_cupti, cmd_memory;

/* across ranks */
extern const cli_command cmd_collectives, cmd_stragglers;
/* performance model */
extern const cli_command cmd_perf, cmd_replay;
/* reports and exports */
extern const cli_command cmd_export;
extern const cli_command cmd_report;


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
    &cmd_patterns,
    &cmd_critical_path,

    /* compare and attribute */
    &cmd_diff,
    &cmd_annotations,
    &cmd_ops,
    &cmd_cupti,
    &cmd_memory,

    /* across ranks */
    &cmd_collectives,
    &cmd_stragglers,
    /* performance model */
    &cmd_perf,
    &cmd_replay,
    /* reports and exports */
    &cmd_export,
    &cmd_report,

    NULL,
};
