/*
 * trace_edit.h — a copy of a trace file with some of its events edited:
 * members put into chosen events' args, their names replaced, complete
 * events left out, extra events appended to traceEvents: the one writer
 * of trace copies (overlay_write.h applies an analysis's kt_overlay
 * through it).
 *
 * Overlays must open in Perfetto next to the original and keep everything
 * it had, so events are located by the byte offsets the loader recorded
 * (the args objects', events_open, events_end) and nothing is re-parsed or
 * re-serialized (as HTA does, turning ints into floats and dropping
 * fields): every kept event keeps its bytes, plus the edits.  A plain
 * input is read (pread) a window at a time, never mapped (a file another
 * program cuts short is an input error, not a SIGBUS), and the copy is
 * written by a second thread while the next window is read and edited,
 * that thread reading a part of each window too (write_behind.h); a gzip input is inflated in a background thread and
 * copied a piece at a time as it is inflated (trace_edit_gzip.h), unless
 * the copy leaves events out or its offsets do not fit the file (then it
 * is held whole in memory).  The edited events are found from the
 * loader's args offsets when it gives them, as the copy goes, in the
 * window it reads; the numbers of the events an appended event reads are
 * kept on the way in a gzip input.  An overlay that leaves events out,
 * or whose offsets do not fit the file, walks the whole array instead, a
 * piece at a time just before the piece is copied (a plain input's
 * pieces read through the same window).  A copy that only appends events (the counter
 * tracks of `kineta counters` and `kineta memory`) is the same copy with
 * no event edited.  The copy is written beside out_path under a name of
 * its own (".partial" appended) and renamed once whole.
 */
#ifndef KT_TRACE_EDIT_H
#define KT_TRACE_EDIT_H

#include "../kineta.h"

#include <stdbool.h>

/* The input as the writer sees it, for callers that need values as written
 * (HTA computes overlay times from the file's float µs, not rounded ones). */
typedef struct kt_edit_doc kt_edit_doc;
/* The number a top-level key of the event whose args object starts at
 * args_off has in the file; false if there is none (in a gzip input read
 * as it is inflated, for the lookups and lookup_keys of kt_trace_edit).  */
bool kt_edit_event_number(const kt_edit_doc *d, uint64_t args_off, const char *key, double *out);
/* The events to append, each preceded by ',': written into buf whole,
 * while room for one more (at most KT_EDIT_EVENT_MAX bytes) remains of
 * cap; returns the bytes written, 0 when there are no more, SIZE_MAX on
 * failure.  Called until it returns 0, once the input is read.          */
typedef size_t (*kt_edit_extra_fn)(void *user, const kt_edit_doc *d, char *buf, size_t cap);
#define KT_EDIT_EVENT_MAX ((size_t)2048)

/* What to change in one marked event; all-zero = nothing. */
typedef struct kt_event_edit {
    const char *add_args;      /* JSON members ("k": v, ...) put first in args */
    size_t add_args_len;
    const char *name;          /* new name: JSON string text without quotes;
                                  NULL keeps it (so does an event without a
                                  string name)                              */
    size_t name_len;
} kt_event_edit;
/* Called for each marked event in file order (args_off: its mark); *edit
 * arrives zeroed, its strings must stay valid until the next call.        */
typedef void (*kt_event_edit_fn)(void *user, uint64_t args_off, kt_event_edit *edit);

typedef struct kt_trace_edit {
    const char *in_path;
    uint64_t events_open;      /* offset of the '[' opening traceEvents      */
    uint64_t events_end;       /* offset of the ']' closing traceEvents      */
    uint64_t nevents;          /* its entries as the loader counted them, to
                                  size the event index once (0: unknown)    */
    const uint64_t *args_at;   /* the loader's args objects of the file's   */
    size_t nargs;              /* nargs events in file order (kt_events'
                                  args_at, 0: none), or NULL: with them an
                                  overlay that keeps every event finds the
                                  edited ones from there instead of walking
                                  all of traceEvents (event_locate.h)       */
    const char *out_path;      /* gzip-compressed iff the input is gzip      */
    const uint64_t *marks;     /* ascending offsets of the '{' of the args
                                  objects of the events to edit             */
    size_t nmarks;
    kt_event_edit_fn edit;     /* what to change in each                     */
    bool only_marked;          /* leave out complete events ("ph": "X")
                                  without a mark, except those whose cat is
                                  in keep_cats                               */
    const char *const *keep_cats; /* NULL-terminated, or NULL              */
    kt_edit_extra_fn extra;    /* events to append, or NULL                  */
    bool extra_at_close;       /* right before the ']' (after the blanks that
                                  precede it), else right after the last
                                  event                                     */
    bool extra_looks_up;       /* extra reads events' numbers
                                  (kt_edit_event_number)                    */
    const uint64_t *lookups;   /* the args objects of the events whose    */
    size_t nlookups;           /* numbers extra reads, ascending, and the
                                  keys it reads (NULL-terminated): a gzip
                                  input is then not held whole, the numbers
                                  are kept as the copy passes the events
                                  (without them extra_looks_up holds it)  */
    const char *const *lookup_keys;
    void *user;
} kt_trace_edit;

typedef struct kt_edit_result {
    size_t edited;             /* events edited                              */
    uint64_t json_bytes;       /* uncompressed bytes written                 */
    uint64_t held;             /* the most bytes of the input (inflated) held
                                  in memory at once (a plain file read
                                  through windows: both windows)           */
    bool walked;               /* the events were found by walking the whole
                                  array, not from the loader's offsets     */
} kt_edit_result;

/* KT_OK fills *res.  KT_EUSAGE when out_path is the input;
 * KT_EINPUT when the input cannot be read or no longer matches the
 * offsets; KT_EANALYSIS when the output cannot be written or extra fails
 * (err says why).  On failure the partial copy is removed and a file
 * already at out_path is left as it was.                                 */
kt_status kt_write_trace_edit(const kt_trace_edit *c, kt_edit_result *res, char *err, size_t errlen);

#endif
