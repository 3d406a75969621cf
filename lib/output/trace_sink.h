/*
 * trace_sink.h — where writers of trace copies put their bytes: a plain
 * file, or an ISA-L gzip stream (level 1) when the input was gzip.
 *
 * Both trace copiers (counter_trace: events appended; trace_edit:
 * events edited) write the same way, so the file handling, compression
 * and error reporting live here once.
 */
#ifndef KT_TRACE_SINK_H
#define KT_TRACE_SINK_H

#include <isa-l/igzip_lib.h>
#include <stdbool.h>
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
    uint64_t json_bytes; /* uncompressed bytes written */
    bool failed;         /* err says why                */
    char *err;
    size_t errlen;
} kt_sink;

/* Create path (truncating it); false on failure (s->err says why, and
 * kt_sink_close must still be called).  err/errlen: the caller's buffer.  */
bool kt_sink_open(kt_sink *s, const char *path, bool gzip, char *err, size_t errlen);
/* JSON text p[0..n): compressed when gzip, counted in json_bytes
 * (buffered: cheap for many small pieces).                              */
void kt_sink_emit(kt_sink *s, const void *p, size_t n);
/* Bytes straight to the file after what was emitted (a plain copy the
 * caller counts itself).                                                */
void kt_sink_write_raw(kt_sink *s, const void *p, size_t n);
/* Write out what emits gathered (before writing to fd by other means). */
void kt_sink_flush(kt_sink *s);
/* Finish the gzip stream, close the file; false if anything failed. */
bool kt_sink_close(kt_sink *s);

#endif
