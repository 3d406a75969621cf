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

#endif
