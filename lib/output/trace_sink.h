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
    uint64_t json_bytes; /* uncompressed bytes written */
    bool failed;         /* err says why                */
    bool no_copy_range;  /* copy_file_range failed once: not tried again */
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
/* The same for bytes that stay where they are until kt_sink_close (the
 * mapped input): a plain copy writes them from there, gathered with the
 * rest into one writev, so they are read only by the kernel's copy into
 * the page cache, never first into a buffer.                             */
void kt_sink_emit_ref(kt_sink *s, const void *p, size_t n);
/* Bytes straight to the file after what was emitted (a plain copy the
 * caller counts itself).                                                */
void kt_sink_write_raw(kt_sink *s, const void *p, size_t n);
/* Pieces this large are worth a call of their own (kt_sink_emit writes
 * them as they are; kt_sink_copy_file copies them inside the kernel).   */
#define KT_SINK_DIRECT ((size_t)64 << 10)
/* Bytes [from, from + len) of the plain file in, after what was emitted,
 * copied inside the kernel (copy_file_range: no pass through user memory,
 * no mapping of the input) when the file systems allow it and the output
 * is not compressed; counted in json_bytes.  Returns how many were
 * copied: the caller emits the rest by other means.                      */
uint64_t kt_sink_copy_file(kt_sink *s, int in, uint64_t from, uint64_t len);
/* Write out what emits gathered (before writing to fd by other means). */
void kt_sink_flush(kt_sink *s);
/* Finish the gzip stream, close the file; false if anything failed. */
bool kt_sink_close(kt_sink *s);

#endif
