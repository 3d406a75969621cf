/*
 * cli_stream.h — `--stream-ranks`: a command run one rank at a time (map)
 * and its per-rank tables merged (reduce), so memory holds at most --jobs
 * ranks' models instead of every rank's (docs/scaling.md).
 */
#ifndef KT_CLI_STREAM_H
#define KT_CLI_STREAM_H

#include "cli.h"

/* True when cmd's tables are per-rank rows that merge exactly. */
bool cli_streams(const cli_command *cmd);
/* Runs cmd streamed; returns the exit code (tables in *out on 0). */
int cli_run_streamed(const cli_command *cmd, const cli_ctx *ctx, void *state, kt_tables **out);

#endif
