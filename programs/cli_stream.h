/*
 * cli_stream.h — `--stream-ranks`: a command run one rank at a time (map)
 * and its per-rank tables merged (reduce), so memory holds at most --jobs
 * ranks' models instead of every rank's (docs/scaling.md).
 */
#ifndef KT_CLI_STREAM_H
#define KT_CLI_STREAM_H

#include "cli.h"

/* One file's map: its rank, origin (HTA's, ns) and tables. */
typedef struct rank_part {
    kt_status status;
    bool present;     /* a trace rank (not skipped, loaded)                   */
    bool selected;    /* in --rank(s), so mapped                               */
    bool explained;   /* the command said why its map failed (cli_fail)      */
    int rank;
    int64_t origin;
    kt_tables *tables;
} rank_part;

/* Processes sharing one job (MPI, programs/cli_mpi.c): each maps the files
 * assigned to it (by size, balanced) and process 0 gathers the parts.
 * gather: every process passes its bytes; on process 0 *all receives the
 * concatenation (malloc'd) and lens[p] each process's length; 0 = ok.     */
typedef struct stream_group {
    int rank, size;
    int (*gather)(const unsigned char *mine, size_t len, unsigned char **all, size_t *lens);
} stream_group;
/* Set once by the MPI main before any command runs; NULL = one process. */
void cli_stream_set_group(const stream_group *g);
bool cli_stream_distributed(void);

/* Parts on the wire (programs/stream_parts.c): the parts of files where
 * owner[i] == who, as bytes; and back into parts[] (the files of other
 * processes).  Decoding failure: false.                                   */
bool stream_parts_encode(const rank_part *parts, const int *owner, size_t n, int who, unsigned char **buf,
                         size_t *len);
bool stream_parts_decode(const unsigned char *buf, size_t len, const int *owner, size_t n, int who,
                         rank_part *parts);

/* True when cmd's tables are per-rank rows that merge exactly. */
bool cli_streams(const cli_command *cmd);
/* Runs cmd streamed; returns the exit code (tables in *out on 0). */
int cli_run_streamed(const cli_command *cmd, const cli_ctx *ctx, void *state, kt_tables **out);

#endif
