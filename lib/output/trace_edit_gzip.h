/*
 * trace_edit_gzip.h — the gzip side of the writer of trace copies
 * (trace_edit.h): a plain input is mapped and copied from the file, a
 * gzip one (or a file that cannot be mapped) is read through the
 * loader's reader, inflated by a background thread ahead of the writer.
 * A copy that only appends events before traceEvents' ']' (the counter
 * tracks of `kineta counters` and `kineta memory`) is written here as
 * the input is inflated, a piece at a time; one that edits events found
 * from the loader's offsets (the overlays of `patterns` and
 * `critical-path`) through trace_edit.c's window, which moves forward
 * over the inflated text.  Either way a gzip trace of any size costs a
 * few hundred KiB; a copy that leaves events out (--only-critical), or
 * whose offsets do not fit the file, holds the inflated input whole.
 */
#ifndef KT_TRACE_EDIT_GZIP_H
#define KT_TRACE_EDIT_GZIP_H

#include "../kineta.h"
#include "load/load_internal.h"
#include "trace_edit.h"
#include "trace_sink.h"

#include <stdbool.h>
#include <stddef.h>

/* All of src read into *doc (malloc'd, NUL-terminated, *len bytes
 * before the NUL); path names the input in err.                         */
kt_status kt_edit_read_whole(kt_src *src, const char *path, char **doc, size_t *len, char *err, size_t errlen);

/* Inflated bytes read at a time by kt_edit_stream_appending, and the
 * most of the input it holds at once.                                  */
#define KT_EDIT_STREAM_PIECE ((size_t)256 << 10)

/* Writes the appended events into o. */
typedef void (*kt_edit_append_fn)(kt_sink *o, void *arg);

/* All of src (gzip: inflated in the background from here on) into o, a
 * piece at a time as it is read, with append called right before the ']'
 * at offset events_end.  False when the input no longer has that ']' or
 * cannot be read (it changed since it was loaded); true, with o->failed,
 * when the copy cannot be written.                                     */
bool kt_edit_stream_appending(kt_sink *o, kt_src *src, uint64_t events_end, kt_edit_append_fn append, void *arg);

/* The appended events of a copy that holds its inflated input whole,
 * made whole (extra called until it returns 0) and given to o in one
 * piece, the first one's ',' left out when first: ISA-L deflates text
 * that comes in other pieces into other bytes, and the overlays' writer
 * always gave them in one (the arrows of critical-path -o are 2-4 % of
 * the input on the shared traces).  False with o->failed set when they
 * cannot be made.                                                        */
bool kt_edit_append_whole(kt_sink *o, kt_edit_extra_fn extra, void *user, const kt_edit_doc *d, bool first);

#endif
