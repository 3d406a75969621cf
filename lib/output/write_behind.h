/*
 * write_behind.h — a plain trace copy's gathered pieces written by a
 * second thread while the writer reads and edits the next ones.
 *
 * Reading the input (pread, from the page cache into a window) and
 * writing the copy (into new page-cache pages) each cost about as much
 * as the other; one after the other they made an overlay cost twice a
 * `cp`.  The writer (trace_sink.h) hands each batch over and goes on;
 * at most one batch is in flight, so memory a batch names is free again
 * once the next one is handed over.
 */
#ifndef KT_WRITE_BEHIND_H
#define KT_WRITE_BEHIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct kt_write_behind kt_write_behind;

/* v[0, n) at offset off of fd, all of it (pwritev until nothing is left;
 * v is used up): 0, or the errno that stopped it.                        */
int kt_write_all_at(int fd, struct iovec *v, int n, uint64_t off);

/* A writer of fd; NULL when no thread can be started (the caller then
 * writes itself).                                                        */
kt_write_behind *kt_write_behind_start(int fd);
/* Writes v[0, n) at offset off of the file once the batch before it is
 * written; v and the bytes it names must stay as they are until the next
 * kt_write_behind_post or kt_write_behind_wait returns.  False when that
 * earlier batch failed (*err: its errno; this one is not written).       */
bool kt_write_behind_post(kt_write_behind *w, struct iovec *v, int n, uint64_t off, int *err);
/* Waits for the batch in flight; false when it failed (*err: errno).   */
bool kt_write_behind_wait(kt_write_behind *w, int *err);
/* Waits, stops the thread and frees w (NULL: nothing). */
void kt_write_behind_stop(kt_write_behind *w);

#endif
