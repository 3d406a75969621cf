/*
 * trace_sink.h — where the writer of trace copies (trace_edit.h) puts
 * its bytes: a plain file, or an ISA-L gzip stream (level 1) when the
 * input was gzip; the file handling, compression and error reporting.
 */
#ifndef KT_TRACE_SINK_H
#define KT_TRACE_SINK_H

#include <isa-l/igzip_lib.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <stddef.h>
#include <stdint.h>

struct kt_read_job;

typedef struct kt_sink {
    int fd;
    bool gzip;
    struct isal_zstream z;
    uint8_t *zbuf;
    char *pending;       /* small emits gathered here: one write or one
                            deflate call per CHUNK, not per event       */
    size_t npending;
    struct iovec *iov;   /* plain: what the next writev puts out, in
                            order: pieces of pending and the caller's
                            bytes kt_sink_emit_ref named               */
    int niov;
    char *spare_pending; /* plain: pending and iov of the batch the     */
    struct iovec *spare_iov; /* write-behind thread has, swapped at each
                            flush                                      */
    struct kt_write_behind *behind; /* that thread (write_behind.h), or
                            NULL: the batches are written here         */
    uint64_t pos;        /* where the next batch goes in the file      */
    uint64_t json_bytes; /* uncompressed bytes written */
    bool failed;         /* err says why                */
    char *mark;          /* the source member, until it is written  */
    char *err;
    size_t errlen;
} kt_sink;

/* Create path (truncating it); false on failure (s->err says why, and
 * kt_sink_close must still be called).  err/errlen: the caller's buffer.
 * source: the trace copied (NULL: none); the copy names it in a member
 * written right after the first '{' ("kinetaSource": file name), so that
 * loading the directory again skips the copy (kt_derived_trace).         */
bool kt_sink_open(kt_sink *s, const char *path, bool gzip, const char *source, char *err, size_t errlen);
/* JSON text p[0..n): compressed when gzip, counted in json_bytes
 * (buffered: cheap for many small pieces).                              */
void kt_sink_emit(kt_sink *s, const void *p, size_t n);
/* The same for bytes that stay where they are until the next
 * kt_sink_flush (a window of the input): a plain copy writes them from
 * there, gathered with the rest into one writev, on the write-behind
 * thread: the caller must not change them before its next flush after
 * this one (it reads the input into two windows in turn).               */
void kt_sink_emit_ref(kt_sink *s, const void *p, size_t n);
/* Pieces this large are worth a call of their own (kt_sink_emit writes
 * them as they are).                                                    */
#define KT_SINK_DIRECT ((size_t)64 << 10)
/* Hands what emits gathered over to be written: after the flush that
 * follows this one, the bytes kt_sink_emit_ref named before it are free. */
void kt_sink_flush(kt_sink *s);
/* kt_sink_flush, with read (write_behind.h) read on the write-behind
 * thread before it writes what is handed over; false when there is no
 * such thread (a gzip copy, none started, a write failed): nothing is
 * read.  The bytes are the caller's once kt_sink_read_wait returns.     */
bool kt_sink_flush_reading(kt_sink *s, const struct kt_read_job *read);
/* Waits for that read: how many bytes it read (0: none asked for).    */
size_t kt_sink_read_wait(kt_sink *s);
/* Finish the gzip stream, close the file; false if anything failed. */
bool kt_sink_close(kt_sink *s);

#endif
