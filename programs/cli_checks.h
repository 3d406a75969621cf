/*
 * cli_checks.h — what the command line asks for, checked as early as it can
 * be: table names and output paths before the (maybe long) load, ranks and
 * steps against the loaded trace.  Each prints what exists and returns the
 * exit code (0 = fine).
 */
#ifndef KT_CLI_CHECKS_H
#define KT_CLI_CHECKS_H

#include "cli.h"

/* --table NAME against the command's table list: 0 or 2. */
int cli_check_table(const cli_command *cmd, const char *table);
/* -o: a directory output is created (mkdir -p); a file output's directory
 * must exist.  0, or 3 naming the path.                                     */
int cli_check_output(const cli_command *cmd, const char *out_path);
/* A file a command option names (export --sqlite): its directory must
 * exist.  0, or 3 naming the path.                                         */
int cli_check_output_file(const char *command, const char *path);
/* --rank/--ranks and the command's --pstep against the trace: 0, or 1
 * naming the ranks / steps there are.                                       */
int cli_check_selection(const cli_command *cmd, const cli_ctx *ctx, const kt_trace *t, const void *state);
/* The ProfilerStep step is in one of the kt_info "steps" tables steps[0..n)
 * (NULL ones have none; streamed ranks), else a message naming those there. */
int cli_check_step(const cli_command *cmd, int64_t step, const kt_table *const *steps, size_t n);

#endif
