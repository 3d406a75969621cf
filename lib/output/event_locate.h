/*
 * event_locate.h — the bytes of one event of traceEvents, found from the
 * loader's args offsets instead of a walk over the whole array.
 *
 * An overlay that edits a few events and keeps the others needs only the
 * edited events' bounds: the bytes between them are copied as they are.
 * The loader recorded where each event's top-level args object lies; the
 * end of the previous event's args is a place outside any string, inside
 * that event, so reading from there to the next args object meets only
 * the rest of one event, the separator and the next event's first members
 * (about 150 bytes in Kineto's layout), not the whole array: read 64 bytes
 * at a time by the array walk's block loop (kt_object_start_before,
 * event_spans.h).
 */
#ifndef KT_EVENT_LOCATE_H
#define KT_EVENT_LOCATE_H

#include "event_spans.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A rank's args objects in file order: event i's is text[off, off + len)
 * ('{' to '}') where at[i] == kt_args_at(off, len) (model.h), at[i] == 0
 * when it has none.                                                       */
typedef struct kt_args_index {
    const uint64_t *at;
    size_t n;
    uint32_t *with_args;  /* the events that have args (kt_args_index_init) */
    size_t nwith;
    size_t open, close;   /* traceEvents' '[' and ']'                       */
} kt_args_index;

/* Keeps at (not copied); false when the offsets are not ascending in
 * event order or leave traceEvents' brackets text[open], text[close]
 * (then only a walk over the array can find events), or without memory.  */
bool kt_args_index_init(kt_args_index *a, const uint64_t *at, size_t n, size_t open, size_t close);
void kt_args_index_free(kt_args_index *a);

/* The event whose top-level args object opens at text[args_off] (text:
 * the file the index was loaded from, at least close + 1 bytes): false
 * when args_off is not one of the index's or the bytes there do not fit
 * it (the file changed).  hint (NULL: none) carries the search from one
 * call to the next: start it at 0 for offsets asked for in file order.   */
bool kt_locate_event(const char *text, const kt_args_index *a, uint64_t args_off, size_t *hint, kt_span *out);

/* The same on a piece of that file: text holds its bytes [base, base +
 * n).  When the piece lacks bytes the search reads, false with *need the
 * bytes to read (need->end: at most; the event may end sooner), else
 * *need is all-zero (args_off is not the index's, or the file changed). */
bool kt_locate_event_in(const char *text, uint64_t base, size_t n, const kt_args_index *a, uint64_t args_off,
                        size_t *hint, kt_span *out, kt_span *need);

/* The closing quote of the JSON string whose text starts at s (an odd run
 * of backslashes before a quote escapes it), or end.                     */
const char *kt_json_string_end(const char *s, const char *end);
/* How a byte outside strings changes the depth: one load, no compares. */
extern const signed char kt_json_bracket_step[256];

#endif
