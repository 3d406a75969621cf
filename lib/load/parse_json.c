/*
 * parse_json.c — the JSON scanner primitives: strings, values, numbers,
 * object members.
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

static bool is_scalar_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

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
    while (p < end && is_scalar_char((unsigned char)*p)) p++;
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

bool kt_key_is(const kt_pair *pr, const char *lit, size_t len)
{
    return pr->klen == len && memcmp(pr->key, lit, len) == 0;
}

/* ---- numbers ------------------------------------------------------------------ */
static const double pow10_tab[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

static double scale10(double m, int e)
{
    while (e > 22) { m *= 1e22; e -= 22; }
    while (e < -22) { m /= 1e22; e += 22; }
    return e >= 0 ? m * pow10_tab[e] : m / pow10_tab[-e];
}

/* Decimal digits of a JSON number: up to 19 significant digits in m, the
 * power of ten they are scaled by, and whether digits were dropped.      */
typedef struct decimal {
    bool neg, frac_or_exp, dropped;
    uint64_t m;
    int ndigits;     /* significant digits kept in m                       */
    int64_t exp10;   /* value = m * 10^exp10, plus the dropped digits       */
} decimal;

static const char *scan_decimal(const char *s, const char *end, decimal *d)
{
    memset(d, 0, sizeof *d);
    const char *p = s;
    if (p < end && (*p == '-' || *p == '+')) d->neg = *p++ == '-';
    const char *digits = p;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (d->ndigits < 19) {
            if (d->m || *p != '0') d->ndigits++;
            d->m = d->m * 10 + (uint64_t)(*p - '0');
        } else {
            d->dropped |= *p != '0';
            d->exp10++;
        }
    }
    bool any = p > digits;
    if (p < end && *p == '.') {
        d->frac_or_exp = true;
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            any = true;
            if (d->ndigits < 19) {
                if (d->m || *p != '0') d->ndigits++;
                d->m = d->m * 10 + (uint64_t)(*p - '0');
                d->exp10--;
            } else {
                d->dropped |= *p != '0';
            }
        }
    }
    if (!any) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        d->frac_or_exp = true;
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        if (p >= end || *p < '0' || *p > '9') return NULL;
        int64_t e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (e < 100000) e = e * 10 + (*p - '0');
        d->exp10 += eneg ? -e : e;
    }
    return p;
}

/* m · 10^e is correctly rounded by one multiplication or division when m
 * and the power of ten are exact doubles (Clinger's fast path).            */
static bool exact_fast_path(const decimal *d)
{
    return !d->dropped && d->m <= (UINT64_C(1) << 53) && d->exp10 >= -22 && d->exp10 <= 22;
}

/* Longer mantissas (17-19 digits, e.g. bandwidth args) round twice above;
 * strtod rounds once, as Python's float() does for HTA.  strtod reads the
 * radix character of the process locale (',' under de_DE), and a library
 * must not depend on that: the number is handed over without one, as
 * digits and a power of ten ("12.5e3" → "125e2").                          */
static double correctly_rounded(const char *s, const char *p, double approx)
{
    char buf[96];
    size_t k = 0;
    int64_t shift = 0, exp = 0;
    bool in_frac = false, eneg = false;
    const char *q = s;
    for (; q < p && *q != 'e' && *q != 'E'; q++) {
        if (*q == '.') {
            in_frac = true;
            continue;
        }
        if (k + 24 >= sizeof buf) return approx;
        buf[k++] = *q;
        shift -= in_frac;
    }
    if (q < p) q++;
    if (q < p && (*q == '-' || *q == '+')) eneg = *q++ == '-';
    for (; q < p; q++)
        if (exp < 100000) exp = exp * 10 + (*q - '0');
    snprintf(buf + k, sizeof buf - k, "e%lld", (long long)((eneg ? -exp : exp) + shift));
    return strtod(buf, NULL);
}

const char *kt_parse_number(const char *s, const char *end, kt_num *out)
{
    decimal d;
    const char *p = scan_decimal(s, end, &d);
    if (!p) return NULL;
    out->f = scale10((double)d.m, (int)(d.exp10 < -400 ? -400 : d.exp10 > 400 ? 400 : d.exp10));
    if (d.neg) out->f = -out->f;
    if (d.frac_or_exp && !exact_fast_path(&d)) out->f = correctly_rounded(s, p, out->f);
    if (d.frac_or_exp) {
        out->kind = KT_NUM_FLOAT;
        out->i = kt_double_to_i64(out->f, 0);
        return p;
    }
    if (d.exp10 != 0 || d.m > (uint64_t)INT64_MAX + d.neg) {
        out->kind = KT_NUM_BIGINT;
        out->i = 0;
        return p;
    }
    out->kind = KT_NUM_INT;
    out->i = d.neg ? (int64_t)(0 - d.m) : (int64_t)d.m;
    return p;
}

static const uint64_t pow10_u64[] = { 1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
                                      1000000ull, 10000000ull, 100000000ull, 1000000000ull,
                                      10000000000ull, 100000000000ull, 1000000000000ull,
                                      10000000000000ull, 100000000000000ull,
                                      1000000000000000ull, 10000000000000000ull,
                                      100000000000000000ull, 1000000000000000000ull,
                                      10000000000000000000ull };

const char *kt_parse_us_as_ns(const char *s, const char *end, int64_t *ns, bool *rounded,
                              bool *overflow)
{
    decimal d;
    const char *p = scan_decimal(s, end, &d);
    *rounded = false;
    *overflow = false;
    if (!p) return NULL;
    int64_t scale = d.exp10 + 3; /* µs → ns */
    uint64_t v;
    if (scale >= 0) {
        if (scale > 19 || (d.m && d.m > UINT64_MAX / pow10_u64[scale])) {
            *overflow = d.m != 0;
            v = 0;
        } else {
            v = d.m * pow10_u64[scale];
        }
        *rounded = d.dropped; /* only when > 19 digits, i.e. overflow anyway */
    } else if (-scale > 19) { /* far below 1 ns */
        v = 0;
        *rounded = d.m != 0;
    } else {
        uint64_t div = pow10_u64[-scale], r = d.m % div;
        v = d.m / div + (r >= div - r); /* round half up (on the magnitude) */
        *rounded = r != 0 || d.dropped;
    }
    if (v > (uint64_t)INT64_MAX) {
        *overflow = true;
        v = 0;
    }
    *ns = d.neg ? -(int64_t)v : (int64_t)v;
    return p;
}
