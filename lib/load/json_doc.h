/*
 * json_doc.h — reading a whole JSON document held in memory, by value.
 *
 * The Kineto parser streams traceEvents through a window because that list
 * is the whole file; other profilers' JSON (rocprofv3, JAX's Chrome trace)
 * nest their records under a few keys and refer between sections (kernel
 * ids, agent handles, string tables), so their readers hold the document
 * and look values up (or stream the document, walking it by the same
 * steps: json_stream.h).  A value is its text span; lookups and iteration use
 * the loader's scanner (parse_json.c), so the same lenient rules apply.
 * The document must be followed by KT_WIN_PAD zero bytes.
 */
#ifndef KT_JSON_DOC_H
#define KT_JSON_DOC_H

#include "load_internal.h"

typedef struct kt_jv {
    const char *s, *e; /* the value's text; s == NULL: absent */
} kt_jv;

/* The document's top value (absent when it is not JSON).  A document cut
 * short or broken inside is read up to the break: *damaged_at is then its
 * length (else -1), and lookups and iteration stop where it breaks.     */
kt_jv kt_jv_root(const char *data, size_t len, int64_t *damaged_at);

static inline bool kt_jv_ok(kt_jv v) { return v.s != NULL; }
static inline bool kt_jv_is(kt_jv v, char c) { return v.s && *v.s == c; }
/* Member key of an object (absent when v is no object or lacks it). */
kt_jv kt_jv_get(kt_jv obj, const char *key);
/* Items of an array or values of an object, in order: *it starts NULL;
 * false at the end or where the JSON breaks.                           */
bool kt_jv_next(kt_jv v, const char **it, kt_jv *item);
/* The same for an object with its keys (raw text between the quotes). */
bool kt_jv_next_member(kt_jv obj, const char **it, kt_pair *pr, kt_jv *val);
/* The same in one pass, for large documents: an object or array value is
 * handed over before its end is known (its span runs on to the
 * container's end; walk it or look into it, never read it as a scalar).
 * A caller that walked such a value to its end sets *it to where the
 * walk's own iterator ended; otherwise the value is skipped on the next
 * call.  At the closing bracket *it is past it.                        */
bool kt_jv_walk(kt_jv arr, const char **it, kt_jv *item);
bool kt_jv_walk_member(kt_jv obj, const char **it, kt_pair *pr, kt_jv *val);
/* The document's top value for one walk, not checked first (a pass less
 * over a large document): the span runs one byte past the text, onto the
 * padding's first zero byte, so that a walk closing at the text's last
 * byte ends before the span's end and one that breaks ends at it.
 * Absent when the text starts with neither '{' nor '['.              */
kt_jv kt_jv_walk_root(const char *data, size_t len);
/* After the walk of v ended at it: true when it broke (cut short or
 * broken JSON), false when it reached v's closing bracket.            */
static inline bool kt_jv_walk_broke(kt_jv v, const char *it) { return it == v.e; }
/* The walks' steps over text ending at end (eof: no more comes after
 * it), shared with the streamed walks (json_stream.h).  KT_SCAN_MORE:
 * the text ends first (read more, step again from the same place);
 * KT_SCAN_ERR: the JSON breaks there.  kt_walk_step: from it (NULL:
 * before the first, at first) past the separator, *at the next item or
 * member, or past the closing bracket (*closed).  kt_walk_item and
 * kt_walk_member: the item or member at q as kt_jv_walk and
 * kt_jv_walk_member hand it over, *it after it (a container: at it). */
kt_scan_res kt_walk_step(const char *it, const char *first, char close, const char *end, bool eof,
                         const char **at, bool *closed);
kt_scan_res kt_walk_item(const char *q, const char *end, bool eof, kt_jv *item, const char **it);
kt_scan_res kt_walk_member(const char *q, const char *end, bool eof, kt_pair *pr, kt_jv *val, const char **it);
/* An integer value (also one written as a string of digits). */
bool kt_jv_int(kt_jv v, int64_t *out);
int64_t kt_jv_int_or(kt_jv v, int64_t dflt);
/* A string's text decoded into *buf (grown as needed; free it). */
bool kt_jv_str(kt_jv v, char **buf, size_t *cap, const char **text, size_t *n);

#endif
