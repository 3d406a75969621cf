/*
 * event_spans.h — where each event of a traceEvents array starts and ends
 * in the file's text, found 64 bytes at a time.
 *
 * Overlay writers copy a trace with a few events edited: they need every
 * event's bytes but none of its values.  Walking a gigabyte byte by byte
 * (or 16 at a time, stopping at each of the ~10 quotes of an event) cost
 * more than the copy itself; masks of quotes, strings and brackets for a
 * whole 64-byte block leave one step per bracket outside strings.
 */
#ifndef KT_EVENT_SPANS_H
#define KT_EVENT_SPANS_H

#include <stdbool.h>
#include <stddef.h>

/* One top-level object of the array: text[start, end), end after its '}'. */
typedef struct kt_span {
    size_t start, end;
} kt_span;

typedef struct kt_spans {
    kt_span *s;
    size_t n, cap;
} kt_spans;

/* The objects of the array whose '[' is text[open] and whose ']' is
 * text[close] (open < close < len).  False when the brackets between them
 * do not balance or text[open] is no '[' (the loader skipped damaged
 * events there; copying such bytes would not make a trace) or on ENOMEM.
 * Other values in the array (numbers, strings) are not objects: skipped. */
bool kt_find_event_spans(const char *text, size_t len, size_t open, size_t close, kt_spans *out);

/* The block loops (kt_find_event_spans takes the fastest this CPU has;
 * one the CPU lacks falls back to the portable one); tests run each
 * against the same reference.                                            */
typedef enum { KT_SPANS_PORTABLE, KT_SPANS_AVX2 } kt_spans_simd;
bool kt_spans_simd_available(kt_spans_simd simd);
bool kt_find_event_spans_using(kt_spans_simd simd, const char *text, size_t len, size_t open, size_t close,
                               kt_spans *out);

/* The same walk in pieces, for a writer that copies each piece while its
 * bytes are still in the cache instead of reading the gigabyte twice.
 * kt_spans_walk_start empties out and checks the brackets at open and
 * close (false: not an array there); each kt_spans_walk_on appends the
 * objects that end before upto, or somewhat past it (the walk goes by
 * whole 64-byte blocks), or all that remain when upto is past close;
 * false once the brackets do not balance.  The caller may empty out
 * between calls.  kt_spans_walk_ok: the array was walked to its ']' and
 * it balances (kt_find_event_spans's answer).  The fields are the walk's. */
typedef struct kt_spans_walker {
    size_t close;
    kt_spans *out;          /* NULL: objects are not listed (obj only)  */
    int depth;
    size_t obj;
    bool in_string, escape_carry, broken;
    bool close_in_string; /* the ']' at close is inside a string        */
} kt_spans_walker;

typedef struct kt_spans_walk {
    kt_spans_walker state;
    const char *text;       /* the bytes [base, len) of the file         */
    size_t base, len, at;   /* at: the next block to read                */
    kt_spans_simd simd;
    bool done;              /* walked past close, or broken              */
} kt_spans_walk;

bool kt_spans_walk_start(kt_spans_walk *w, const char *text, size_t len, size_t open, size_t close, kt_spans *out);
bool kt_spans_walk_start_using(kt_spans_simd simd, kt_spans_walk *w, const char *text, size_t len, size_t open,
                               size_t close, kt_spans *out);
bool kt_spans_walk_on(kt_spans_walk *w, size_t upto);
/* The same over a piece of the file read by the caller: piece holds its
 * bytes [base, base + n), from w->at on (base <= w->at) to upto or, when
 * upto is past close, to 64 bytes past close or the end of the file.  A
 * walk started with text NULL (the caller checked the brackets at open
 * and close; len: the file's length) goes only by pieces.               */
bool kt_spans_walk_piece(kt_spans_walk *w, const char *piece, size_t base, size_t n, size_t upto);
bool kt_spans_walk_ok(const kt_spans_walk *w);

/* Where the object of the array that is open at text[to] starts (its
 * '{'): text[from, to) read the same way, from a byte outside any string
 * at depth 1 (between the array's values) or 2 (inside one of its
 * objects); SIZE_MAX when to is not directly inside an object of the
 * array, lies in a string, or the brackets do not balance.  An overlay
 * finds an edited event from the end of the previous one's args
 * (event_locate.h).                                                      */
size_t kt_object_start_before(const char *text, size_t len, size_t from, size_t to, int depth);
size_t kt_object_start_before_using(kt_spans_simd simd, const char *text, size_t len, size_t from, size_t to,
                                    int depth);

/* Room for n spans in one allocation with its pages faulted in, for a
 * caller that knows how many objects the array holds (the loader counted
 * them): growing by doubling faulted every page of the list one by one
 * and moved it; false without memory.                                    */
bool kt_spans_reserve(kt_spans *v, size_t n);
void kt_spans_free(kt_spans *v);

#endif
