/*
 * trace_rewrite.h — a copy of a trace file in which chosen events get
 * extra args members or a new name, and extra events are appended to
 * traceEvents (the overlays of `kineta patterns` and of the critical path).
 *
 * Overlays must open in Perfetto next to the original and keep everything
 * the original had, so the file is streamed through a small JSON scanner
 * (strings, nesting; nothing is parsed into values) and only the bytes of
 * an edited event change: no re-serialising as HTA does (which turns ints
 * into floats and drops fields).  Events are identified to the caller by
 * the offsets the loader keeps: the offset of an event's args object in
 * the decompressed JSON is kt_events.args_off.
 */
#ifndef KT_TRACE_REWRITE_H
#define KT_TRACE_REWRITE_H

#include "counter_trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event of traceEvents as written (strings: the JSON text between the
 * quotes, escapes kept; NULL when the key is absent or not a string).    */
typedef struct kt_event_view {
    uint64_t ordinal;      /* position in traceEvents                     */
    uint64_t offset;       /* its '{' in the decompressed JSON            */
    uint64_t args_off;     /* its args object's '{'; 0 = no args object    */
    const char *ph, *name, *cat;
    size_t ph_len, name_len, cat_len;
} kt_event_view;

/* What to change in one event; all-zero = nothing. */
typedef struct kt_event_edit {
    const char *add_args;  /* JSON members ("k": v, ...) put first in args;
                              an args object is added when there is no
                              args key (args that are not an object: left) */
    size_t add_args_len;
    const char *name;      /* new name: JSON string text without quotes   */
    size_t name_len;
} kt_event_edit;

/* Called for every event in file order; *edit arrives zeroed.  Its strings
 * must stay valid until the next call.                                    */
typedef void (*kt_event_edit_fn)(void *user, const kt_event_view *ev, kt_event_edit *edit);

typedef struct kt_trace_rewrite {
    const char *in_path;
    uint64_t events_open;   /* kt_rank.events_open, the '[' of traceEvents
                               (0: found by scanning)                      */
    const char *out_path;   /* gzip-compressed iff the input is gzip       */
    kt_event_edit_fn edit;  /* may be NULL                                 */
    kt_events_text_fn append; /* events to append (as counter_trace.h), or NULL */
    void *user;
} kt_trace_rewrite;

/* KT_EUSAGE when out_path is the input; KT_EINPUT when the input cannot be
 * read or has no traceEvents array; KT_EANALYSIS when the output cannot be
 * written (err says why; the partial output is removed).  *json_bytes =
 * uncompressed bytes written, *nevents = events seen in traceEvents.      */
kt_status kt_rewrite_trace(const kt_trace_rewrite *c, uint64_t *json_bytes, uint64_t *nevents, char *err,
                           size_t errlen);

#endif
