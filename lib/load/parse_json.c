/*
 * parse_json.c — the JSON scanner primitives: strings, values, object
 * members (numbers: model/json_number.c).
 *
 * Why not a JSON library: a DOM costs 2-3x the file in memory and runs at
 * 0.3-0.8 GB/s on the target machines (performance-notes.md §2).  A trace is
 * a flat list of small objects of which we keep a handful of fields, so a
 * scanner that walks each object once, skips what it does not need with
 * SIMD, and parses numbers straight into integers is both faster and
 * tolerant of the damage real traces carry (unescaped quotes, control
 * characters, integers beyond int64).  All functions work on a window whose
 * data is followed by KT_WIN_PAD zero bytes, so vector loads never fault.
 */
#include "load_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bit i set when byte i of the 16 at s is a quote or a bracket. */
static inline unsigned structural_mask_16(const char *s)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* '[' → '{', ']' → '}' */
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                             _mm_or_si128(_mm_cmpeq_epi8(lower, _mm_set1_epi8('{')),
                                          _mm_cmpeq_epi8(lower, _mm_set1_epi8('}'))));
    return (unsigned)_mm_movemask_epi8(m);
#else
    unsigned mask = 0;
    for (unsigned i = 0; i < 16; i++) {
        char c = s[i];
        if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') mask |= 1u << i;
    }
    return mask;
#endif
}

/* The string whose opening quote is at q: the position after its closing
 * quote, its flags added to *flags.                                       */
static inline kt_scan_res skip_string(const char *q, const char *end, bool eof, const char **after, unsigned *flags)
{
    const char *e = kt_short_plain_string(q, end); /* "float", "": one compare */
    if (e) {
        *after = e;
        return KT_SCAN_OK;
    }
    const char *close;
    unsigned fl;
    kt_scan_res r = kt_scan_string(q + 1, end, eof, &close, &fl);
    if (r != KT_SCAN_OK) return r;
    *flags |= fl;
    *after = close + 1;
    return KT_SCAN_OK;
}

/* Skip a nested object/array: count brackets, skip strings.  The brackets
 * of a 16-byte block are taken from one mask, bit by bit: the shape lists
 * of traces recorded with shapes ("Input Dims": [[1, 77, 768], [768]])
 * are mostly brackets, and a load per bracket made skipping them a tenth
 * of such a load.                                                          */
static kt_scan_res skip_nested(const char *s, const char *end, bool eof, const char **next,
                               unsigned *flags)
{
    size_t depth = 0;
    for (const char *p = s; p < end;) {
        const char *block = p;
        unsigned mask = structural_mask_16(block);
        p = block + 16;
        for (; mask; mask &= mask - 1) {
            const char *q = block + __builtin_ctz(mask);
            if (q >= end) return eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
            if (*q == '"') {
                kt_scan_res r = skip_string(q, end, eof, &p, flags);
                if (r != KT_SCAN_OK) return r;
                break; /* the next block starts after the string */
            }
            if (*q == '{' || *q == '[') {
                depth++;
            } else if (--depth == 0) {
                *next = q + 1;
                return KT_SCAN_OK;
            }
        }
    }
    return eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
}

kt_scan_res kt_skip_value(const char *s, const char *end, bool eof, const char **next,
                          unsigned *flags)
{
    *flags = 0;
    if (s >= end) return eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
    char c = *s;
    if (c == '"') return skip_string(s, end, eof, next, flags);
    if (c == '{' || c == '[') return skip_nested(s, end, eof, next, flags);
    const char *p = s;
    if (end - s >= 24) { /* numbers: their digits 8 at a time */
        uint64_t v;
        p += c == '-';
        p += kt_digits16(p, &v);
    }
    while (p < end && kt_is_scalar_char(*p)) p++;
    if (p == s) return KT_SCAN_ERR;
    if (p >= end && !eof) return KT_SCAN_MORE;
    *next = p;
    return KT_SCAN_OK;
}

/* ---- object members ---------------------------------------------------------- */
kt_scan_res kt_obj_next(kt_obj *o, kt_pair *pr, bool *done)
{
    if (o->closed) {
        *done = true;
        return KT_SCAN_OK;
    }
    kt_scan_res r = kt_member_key(o, pr, done);
    if (r != KT_SCAN_OK || *done) return r;
    r = kt_member_skip(o, pr);
    if (r != KT_SCAN_OK) return r;
    return kt_member_sep(o, pr->vend, &o->closed);
}
