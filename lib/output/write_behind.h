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
 *
 * Reading stayed the longer of the two (on synth-1g.json, 0.25 s of
 * pread against 0.19 s of pwritev, the edits on top of the reading), so
 * a batch may come with a piece of the input for this thread to read
 * before it writes the batch: the writer reads the most of its next
 * window itself and this thread the rest, at once.
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

/* A piece of a file to read into memory: fd's [off, off + n) into p. */
typedef struct kt_read_job {
    int fd;
    char *p;
    size_t n;
    uint64_t off;
} kt_read_job;

/* A writer of fd; NULL when no thread can be started (the caller then
 * writes itself).                                                        */
kt_write_behind *kt_write_behind_start(int fd);
/* Writes v[0, n) at offset off of the file once the batch before it is
 * written; v and the bytes it names must stay as they are until the next
 * kt_write_behind_post or kt_write_behind_wait returns.  read (NULL:
 * none) is read first; its memory is the thread's until
 * kt_write_behind_read or the next post or wait returns.  False when
 * that earlier batch failed (*err: its errno; this one is not written
 * and nothing is read).                                                  */
bool kt_write_behind_post(kt_write_behind *w, struct iovec *v, int n, uint64_t off, const kt_read_job *read,
                          int *err);
/* Waits for the piece the last post asked for: the bytes read (0 when
 * it asked for none, or that count was taken already).                  */
size_t kt_write_behind_read(kt_write_behind *w);
/* Waits for the batch in flight; false when it failed (*err: errno).   */
bool kt_write_behind_wait(kt_write_behind *w, int *err);
/* Waits, stops the thread and frees w (NULL: nothing). */
void kt_write_behind_stop(kt_write_behind *w);

#endif
