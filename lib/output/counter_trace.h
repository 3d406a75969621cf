/*
 * counter_trace.h — a copy of a trace file with extra events appended to
 * its traceEvents array (the counter tracks of `kineta counters`).
 *
 * The original bytes go through unchanged — no re-parsing or
 * re-serializing as HTA does — so the copy keeps every event byte for byte
 * and is written at disk/compression speed: a plain input is copied inside
 * the kernel (copy_file_range); a gzip input is inflated in a background
 * thread (the loader's source reader) while this thread deflates it again
 * with ISA-L at level 1.
 */
#ifndef KT_COUNTER_TRACE_H
#define KT_COUNTER_TRACE_H

#include "../kineta.h"

#include <stdbool.h>

/* Writes the JSON text of the extra events into buf (at most cap bytes,
 * whole events only, each preceded by a comma: they follow the trace's own
 * events); returns the bytes written, 0 when there are no more.           */
typedef size_t (*kt_events_text_fn)(void *user, char *buf, size_t cap);

typedef struct kt_trace_copy {
    const char *in_path;
    uint64_t events_end;  /* offset of the ']' closing traceEvents in the
                             decompressed JSON (the loader records it)     */
    const char *out_path; /* gzip-compressed iff the input is gzip        */
    kt_events_text_fn text;
    void *user;
} kt_trace_copy;

/* KT_EINPUT when the input cannot be read or no longer has ']' at
 * events_end; KT_EUSAGE when out_path is the input itself; KT_EANALYSIS
 * when the output cannot be written (err says why, the partial output is
 * removed).  *json_bytes = uncompressed bytes written.                    */
kt_status kt_write_trace_copy(const kt_trace_copy *c, uint64_t *json_bytes, char *err, size_t errlen);

#endif
