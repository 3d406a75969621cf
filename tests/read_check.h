/*
 * read_check.h — what the tests of other profilers' readers share: loading
 * one path and counting a rank's events of one kind.
 */
#ifndef KT_READ_CHECK_H
#define KT_READ_CHECK_H

#include "model/model.h"

/* kt_load of one path; the failure's diagnostics in *fail when not NULL. */
kt_trace *rd_load_path(const char *path, kt_status *st, kt_diags **fail);
/* Events of kind k in r, and their summed durations (ns) in *total. */
size_t rd_count_kind(const kt_rank *r, uint8_t k, int64_t *total);

/* Run a shell command (an independent counter, e.g. Python) and read n
 * integers from its output; false when it fails.                      */
bool rd_command_ints(const char *cmd, long long *v, int n);

/* The shared JAX profile rel written as the trace.json jax.profiler puts
 * beside it (tests/xplane_to_trace_json.py), into a new file whose path
 * goes to json (cap >= 32); the .xplane.pb's path into pb.  False (and a
 * skip) when the profile or python3 is missing.  unlink(json) after.    */
bool rd_xplane_as_trace_json(const char *rel, char *pb, size_t pb_cap, char *json, size_t cap);

/* Every table of a equals b's, cell for cell (a test failure where not). */
void rd_same_tables(const kt_tables *a, const kt_tables *b);

/* The kernels, temporal, idle and launch tables of a and b are equal. */
void rd_same_answers(const kt_trace *a, const kt_trace *b);

#endif
