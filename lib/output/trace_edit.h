/*
 * trace_edit.h — a copy of a trace file with some of its events edited:
 * a key inserted into chosen events' args, complete events left out, and
 * extra events appended to traceEvents (the overlay of `kineta
 * critical-path`; any "mark these events, add arrows" overlay fits).
 *
 * Events are located by the byte offsets the loader recorded (args_off,
 * events_end), so no event is re-parsed or re-serialized: every kept event
 * keeps its bytes, plus the inserted key.  A plain input is mapped; a gzip
 * input is held decompressed in memory while the copy is written.
 */
#ifndef KT_TRACE_EDIT_H
#define KT_TRACE_EDIT_H

#include "../kineta.h"

#include <stdbool.h>

typedef struct kt_trace_edit {
    const char *in_path;
    uint64_t events_end;       /* offset of the ']' closing traceEvents      */
    const char *out_path;      /* gzip-compressed iff the input is gzip      */
    const uint64_t *marks;     /* ascending offsets of the '{' of the args
                                  objects to edit                            */
    size_t nmarks;
    const char *mark_text;     /* inserted after that '{', e.g. "\"critical\":1" */
    bool only_marked;          /* leave out complete events ("ph": "X")
                                  without a mark, except those whose cat is
                                  in keep_cats                               */
    const char *const *keep_cats; /* NULL-terminated, or NULL              */
    const char *extra;         /* events to append, each preceded by ','     */
    size_t extra_len;
} kt_trace_edit;

/* *marked = args objects edited.  KT_EUSAGE when out_path is the input;
 * KT_EINPUT when the input cannot be read or no longer matches the
 * offsets; KT_EANALYSIS when the output cannot be written (err says why;
 * a partial output is removed).                                           */
kt_status kt_write_trace_edit(const kt_trace_edit *c, size_t *marked, char *err, size_t errlen);

#endif
