/*
 * scan_inline.h — the scanner's innermost steps, inlined into every caller.
 *
 * These run for every key and value of every event (tens of millions of
 * times per GB), so a call per step and the store-to-load round trips of
 * out-parameters through memory cost more than the work itself; inlining
 * them into the event loop roughly doubled the parse rate.  Included by
 * load_internal.h only.
 */
#ifndef KT_SCAN_INLINE_H
#define KT_SCAN_INLINE_H

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Blanks: JSON's four, and (leniently) any other byte below 0x21 between
 * tokens.  Usually zero or one byte; indentation runs go 16 at a time.   */
static inline const char *kt_skip_ws(const char *s, const char *end)
{
    /* *end is readable (the window's zero padding, or data past a
     * sub-range), so the bound is checked only once a blank was found.   */
    if ((unsigned char)*s > ' ' || s >= end) return s;
    if ((unsigned char)s[1] > ' ' || s + 1 >= end) return s + 1;
#ifdef __SSE2__
    for (s += 2; s < end; s += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)s);
        __m128i blank = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(' ')), _mm_set1_epi8(' '));
        unsigned mask = ~(unsigned)_mm_movemask_epi8(blank) & 0xffff;
        if (mask) return s + __builtin_ctz(mask) < end ? s + __builtin_ctz(mask) : end;
    }
    return end;
#else
    while (s < end && (unsigned char)*s <= ' ') s++;
    return s;
#endif
}

static inline bool kt_is_digit(char c) { return (unsigned)(c - '0') < 10; }

/* A byte of a number or literal (a scalar runs until the first other). */
static inline bool kt_is_scalar_char(char c)
{
    return kt_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

/* The bits of the bytes at q equal to pat's (16 readable bytes each). */
static inline uint32_t kt_eq16(const char *q, const char *pat)
{
#ifdef __SSE2__
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)q),
                                                      _mm_loadu_si128((const __m128i *)pat)));
#else
    uint32_t same = 0;
    for (unsigned i = 0; i < 16; i++) same |= (uint32_t)(q[i] == pat[i]) << i;
    return same;
#endif
}

/* Which of the 32 bytes at s and t (all readable) are equal: bit i for
 * byte i.  Masked by a kt_want32, one mask answers for any prefix.     */
static inline uint32_t kt_same32(const char *s, const char *t)
{
    return kt_eq16(s, t) | kt_eq16(s + 16, t + 16) << 16;
}

/* s[0..n) == t[0..n) for n <= 32, where 32 bytes at both are readable
 * (window text has 64 zero bytes after it; memo keys are 32-byte arrays):
 * two 16-byte compares instead of a call to memcmp; want: the n bytes'
 * bits (kt_want32), when the caller keeps it.                            */
static inline bool kt_eq_upto32_want(const char *s, const char *t, size_t n, uint32_t want)
{
#ifdef __SSE2__
    (void)n;
    return (kt_same32(s, t) & want) == want;
#else
    (void)want;
    return memcmp(s, t, n) == 0;
#endif
}

/* The mask of n <= 32 bytes for kt_eq_upto32_want. */
static inline uint32_t kt_want32(size_t n) { return (uint32_t)(((uint64_t)1 << n) - 1); }

static inline bool kt_eq_upto32(const char *s, const char *t, size_t n)
{
    return kt_eq_upto32_want(s, t, n, kt_want32(n));
}

/* Slot of text s[0..n) (n <= KT_MEMO_TEXT, s[0] readable) in a memo of
 * 1 << bits entries; salt separates otherwise equal texts (ph).  Length,
 * first and last bytes tell a trace's categories apart in a few adds (on
 * the shared traces, 2 % of the events fall in a slot two categories
 * share, against 6 % with a multiplicative hash of the first 8 bytes). */
static inline unsigned kt_memo_slot(const char *s, size_t n, unsigned salt, unsigned bits)
{
    unsigned h = (unsigned)n * 5 + (unsigned char)s[0] * 3 + (unsigned char)s[n ? n - 1 : 0] + salt * 11;
    return h & ((1u << bits) - 1);
}

static inline bool kt_memo_hit(const kt_memo_key *k, const char *s, size_t n)
{
    return k->valid && k->len == n && kt_eq_upto32(s, k->text, n);
}

static inline void kt_memo_set(kt_memo_key *k, const char *s, size_t n)
{
    memset(k->text, 0, sizeof k->text);
    memcpy(k->text, s, n);
    k->len = (uint8_t)n;
    k->valid = true;
}

/* A pattern for kt_match16: the text in 16 zero-padded bytes, its length. */
#define KT_PATTERN(text) ((const char[16]){ text }), (unsigned)(sizeof text - 1)

/* q + len when the len bytes at q (len <= 16) are those of pat (16
 * readable bytes), else NULL; q + 16 must be readable (the data is
 * followed by zero padding).  One compare for a whole separator pattern;
 * want: the len bytes' bits (kt_want32), when the caller keeps it.   */
static inline const char *kt_match16_want(const char *q, const char *end, const char *pat, unsigned len,
                                          unsigned want)
{
    return q + len < end && (kt_eq16(q, pat) & want) == want ? q + len : NULL;
}

/* Whether the bytes at q (16 readable) start with m's pattern; never when
 * nothing is learnt (miss 0).                                            */
static inline bool kt_sep_at(const kt_sep_memo *m, const char *q)
{
    return (kt_eq16(q, m->pat) | m->miss) == UINT32_MAX;
}

/* The n (1-16) bytes at from as m's pattern. */
static inline void kt_sep_set(kt_sep_memo *m, const char *from, size_t n)
{
    memset(m->pat, 0, sizeof m->pat);
    memcpy(m->pat, from, n);
    m->len = (unsigned)n;
    m->miss = ~kt_want32(n);
}

static inline const char *kt_match16(const char *q, const char *end, const char *pat, unsigned len)
{
    return kt_match16_want(q, end, pat, len, kt_want32(len));
}

/* A closing quote must be followed by one of these (after blanks), else it
 * is an unescaped quote inside the string (old Kineto wrote those).       */
static inline bool kt_ends_string(char c) { return c == ',' || c == ':' || c == '}' || c == ']'; }

/* Offset of the next quote, backslash, control or non-ASCII byte in the 16
 * bytes at s, or 16.  Bytes past the data are zero, i.e. "control".      */
static inline unsigned kt_special_in_16(const char *s)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))); /* signed: <0x20 or >=0x80 */
    unsigned mask = (unsigned)_mm_movemask_epi8(m);
    return mask ? (unsigned)__builtin_ctz(mask) : 16;
#else
    for (unsigned i = 0; i < 16; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
    }
    return 16;
#endif
}

/* The first quote, backslash, control or non-ASCII byte at or after s
 * (at or past end when there is none before it): where a plain string
 * starting at s ends.                                                     */
static inline const char *kt_special_from(const char *s, const char *end)
{
    unsigned k;
    while ((k = kt_special_in_16(s)) == 16 && s < end) s += 16;
    return s + k;
}

/* s points after the opening quote; *close gets the closing quote. */
static inline kt_scan_res kt_scan_string(const char *s, const char *end, bool eof,
                                         const char **close, unsigned *flags)
{
    unsigned fl = 0;
    const char *p = s;
    for (;;) {
        unsigned k = kt_special_in_16(p);
        p += k;
        if (k == 16) continue;
        if (p >= end) return eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            const char *t = p + 1;
            if (t < end && kt_ends_string(*t)) { /* the usual case: '":' or '",' */
                *close = p;
                *flags = fl;
                return KT_SCAN_OK;
            }
            t = kt_skip_ws(t, end);
            if (t >= end && !eof) return KT_SCAN_MORE;
            if (t >= end || kt_ends_string(*t)) {
                *close = p;
                *flags = fl;
                return KT_SCAN_OK;
            }
            fl |= KT_STR_QUOTE;
            p++;
        } else if (c == '\\') {
            fl |= KT_STR_ESC;
            if (p + 1 >= end) return eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
            p += 2;
        } else {
            fl |= c >= 0x80 ? KT_STR_HIGH : KT_STR_CTRL;
            p++;
        }
    }
}

/* The end of the string starting at the quote s when it is short and plain
 * (a category, "X") and ends with '",' '":' etc., found by one 16-byte
 * compare; NULL otherwise (then kt_scan_string decides).                  */
static inline const char *kt_short_plain_string(const char *s, const char *end)
{
    unsigned k = kt_special_in_16(s + 1);
    return s + 2 + k < end && s[1 + k] == '"' && kt_ends_string(s[2 + k]) ? s + 2 + k : NULL;
}

/* The bytes of x (in memory order) that are not decimal digits, each
 * marked in its high nibble; 0 when all 8 are digits (SWAR, no branch per
 * byte).  Bytes after the first non-digit may be marked wrongly (a carry
 * out of it), so only the lowest mark is exact.                          */
static inline uint64_t kt_non_digits(uint64_t x)
{
    uint64_t a = x ^ 0x3030303030303030ull; /* a digit byte becomes 0-9 */
    return (a | (a + 0x0606060606060606ull)) & 0xF0F0F0F0F0F0F0F0ull;
}

/* How many of the 8 bytes of x (in memory order) are decimal digits before
 * the first that is not.                                                   */
static inline unsigned kt_leading_digits(uint64_t x)
{
    uint64_t bad = kt_non_digits(x);
    return bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
}

/* The value of the first n (1-8) digit bytes of x. */
static inline uint64_t kt_digits_value(uint64_t x, unsigned n)
{
    uint64_t v = (x ^ 0x3030303030303030ull) << (8 * (8 - n)); /* the n digits last, zeros before */
    v = (v * 10) + (v >> 8);
    return (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >> 32;
}

/* Leading decimal digits of the 8 bytes at p (readable): their count (0-8)
 * and *val their value.  Numbers are most of a trace's bytes (ts, dur,
 * pid, tid, ids).                                                           */
static inline unsigned kt_digits8(const char *p, uint64_t *val)
{
    uint64_t x;
    memcpy(&x, p, 8);
    unsigned n = kt_leading_digits(x);
    *val = n ? kt_digits_value(x, n) : 0;
    return n;
}

static const uint64_t kt_pow10_8[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* Up to 16 leading digits at p (16 readable bytes) → *v; their count. */
static inline unsigned kt_digits16(const char *p, uint64_t *v)
{
    unsigned n = kt_digits8(p, v);
    if (n < 8) return n;
    uint64_t lo;
    unsigned m = kt_digits8(p + 8, &lo);
    *v = *v * kt_pow10_8[m] + lo;
    return 8 + m;
}

/* The end of the integer at s when it is short (< 16 digits) and followed
 * by a separator or a blank (an id, a count); NULL otherwise (then
 * kt_skip_value decides).  Needs 24 readable bytes.                      */
static inline const char *kt_plain_int_end(const char *s, const char *end)
{
    const char *d = s + (*s == '-');
    uint64_t v;
    unsigned n = kt_digits16(d, &v);
    const char *e = d + n;
    return n > 0 && n < 16 && e < end && (kt_ends_string(*e) || (unsigned char)*e <= ' ') ? e : NULL;
}

static inline kt_scan_res kt_obj_stop(kt_obj *o, const char *at, bool incomplete)
{
    o->err = at;
    return !incomplete ? KT_SCAN_ERR : o->eof ? KT_SCAN_TRUNC : KT_SCAN_MORE;
}

/* The next member's key (pr->v = the value's first byte), or *closed when
 * the object's '}' comes instead.                                          */
static inline __attribute__((always_inline)) kt_scan_res kt_member_key(kt_obj *o, kt_pair *pr,
                                                                        bool *closed)
{
    const char *q = kt_skip_ws(o->q, o->end);
    *closed = false;
    if (q >= o->end) return kt_obj_stop(o, q, true);
    if (*q == '}') {
        o->trailing_comma |= o->after_comma;
        o->q = q + 1;
        *closed = true;
        return KT_SCAN_OK;
    }
    if (*q != '"') return kt_obj_stop(o, q, false);
    const char *close;
    unsigned k = kt_special_in_16(q + 1); /* the usual key: short, plain, '":' */
    pr->key = q + 1;
    if (q + 2 + k < o->end && memcmp(q + 1 + k, "\":", 2) == 0) { /* one 16-bit compare */
        pr->klen = k;
        pr->kflags = 0;
        q += 3 + k;
    } else {
        kt_scan_res r = kt_scan_string(q + 1, o->end, o->eof, &close, &pr->kflags);
        if (r != KT_SCAN_OK) return kt_obj_stop(o, q, r == KT_SCAN_MORE || r == KT_SCAN_TRUNC);
        pr->klen = (size_t)(close - pr->key);
        q = kt_skip_ws(close + 1, o->end);
        if (q >= o->end) return kt_obj_stop(o, q, true);
        if (*q != ':') return kt_obj_stop(o, q, false);
        q++;
    }
    q = kt_skip_ws(q, o->end);
    if (q >= o->end) return kt_obj_stop(o, q, true);
    o->after_comma = false;
    pr->v = q;
    o->q = q;
    return KT_SCAN_OK;
}

/* A key written as expected, found by one masked 8-byte compare: w holds
 * the quoted key and its ':' ("\"ph\":"), mask covers its len bytes (at
 * most 8; the 16 bytes after a key's quote are always readable).  True
 * with pr and o as kt_member_key leaves them; false (nothing changed)
 * when the text differs, then kt_member_key decides.                   */
static inline __attribute__((always_inline)) bool kt_member_key_expected(kt_obj *o, kt_pair *pr,
                                                                          uint64_t w, uint64_t mask,
                                                                          unsigned len)
{
    const char *q = kt_skip_ws(o->q, o->end);
    uint64_t x;
    memcpy(&x, q, 8);
    if (q + len >= o->end || (x & mask) != w) return false;
    const char *v = kt_skip_ws(q + len, o->end);
    if (v >= o->end) return false;
    pr->key = q + 1;
    pr->klen = len - 3;
    pr->kflags = 0;
    o->after_comma = false;
    pr->v = v;
    o->q = v;
    return true;
}

/* '"key":' as the (word, mask, length) that kt_member_key_expected and
 * the Kineto parser's fast_key compare in one step.                      */
#define KB(c, i) ((uint64_t)(unsigned char)(c) << (8 * (i)))
#define KEY1(a) (KB('"', 0) | KB(a, 1) | KB('"', 2) | KB(':', 3)), 0xFFFFFFFFull, 4
#define KEY2(a, b) (KB('"', 0) | KB(a, 1) | KB(b, 2) | KB('"', 3) | KB(':', 4)), 0xFFFFFFFFFFull, 5
#define KEY3(a, b, c) (KB('"', 0) | KB(a, 1) | KB(b, 2) | KB(c, 3) | KB('"', 4) | KB(':', 5)), 0xFFFFFFFFFFFFull, 6
#define KEY4(a, b, c, d) \
    (KB('"', 0) | KB(a, 1) | KB(b, 2) | KB(c, 3) | KB(d, 4) | KB('"', 5) | KB(':', 6)), 0xFFFFFFFFFFFFFFull, 7

/* Skip the value of pr (sets pr->vend / pr->vflags): short plain strings
 * inline, everything else through kt_skip_value.                          */
static inline kt_scan_res kt_member_skip(kt_obj *o, kt_pair *pr)
{
    const char *e = *pr->v == '"' ? kt_short_plain_string(pr->v, o->end) : kt_plain_int_end(pr->v, o->end);
    if (e) {
        pr->vend = e;
        pr->vflags = 0;
        return KT_SCAN_OK;
    }
    kt_scan_res r = kt_skip_value(pr->v, o->end, o->eof, &pr->vend, &pr->vflags);
    if (r != KT_SCAN_OK) o->err = pr->v;
    return r;
}

/* After a value ending at vend: the ',' or the closing '}' (*closed). */
static inline kt_scan_res kt_member_sep(kt_obj *o, const char *vend, bool *closed)
{
    const char *q = kt_skip_ws(vend, o->end);
    if (q >= o->end) return kt_obj_stop(o, q, true);
    if (*q == ',') {
        o->after_comma = true;
        o->comma = q;
    } else if (*q != '}') {
        return kt_obj_stop(o, q, false);
    }
    *closed = *q == '}';
    o->q = q + 1;
    return KT_SCAN_OK;
}

/* Microseconds as written → ns: the plain "123" and "123.456" forms inline,
 * everything else (more digits, exponents, signs) through the general path. */
static inline const char *kt_us_to_ns(const char *s, const char *end, int64_t *ns, bool *rounded,
                                      bool *overflow)
{
    static const int64_t frac_scale[4] = { 1000, 100, 10, 1 };
    if (end - s >= 26) { /* the usual "1700008032422.732": whole 8-byte steps */
        uint64_t v, frac = 0;
        unsigned n = kt_digits16(s, &v), nd = 0;
        const char *p = s + n;
        /* up to 16 digits: absolute µs since 1970 ("1669783687389324") have 16 */
        if (n > 0 && (n < 16 || v < (uint64_t)INT64_MAX / 1000)) {
            if (*p == '.') nd = kt_digits8(p + 1, &frac);
            const char *f = *p == '.' ? p + 1 + nd : p;
            if ((*p != '.' || (nd > 0 && nd <= 3)) && !kt_is_digit(*f) && *f != 'e' && *f != 'E') {
                *ns = (int64_t)v * 1000 + (int64_t)frac * frac_scale[nd];
                *rounded = *overflow = false;
                return f;
            }
        }
        return kt_parse_us_as_ns(s, end, ns, rounded, overflow);
    }
    const char *p = s;
    int64_t v = 0;
    while (p < end && kt_is_digit(*p) && p - s < 16) v = v * 10 + (*p++ - '0');
    if (p > s && p - s < 16 && p < end) {
        int64_t frac = 0;
        const char *f = p;
        if (*p == '.')
            for (f = p + 1; f < end && kt_is_digit(*f) && f - p <= 3; f++) frac = frac * 10 + (*f - '0');
        int nd = f > p ? (int)(f - p - 1) : 0;
        if ((*p != '.' || nd > 0) && f < end && !kt_is_digit(*f) && *f != 'e' && *f != 'E') {
            *ns = v * 1000 + frac * frac_scale[nd];
            *rounded = *overflow = false;
            return f;
        }
    }
    return kt_parse_us_as_ns(s, end, ns, rounded, overflow);
}

/* A JSON number: plain integers inline, the rest through kt_parse_number. */
static inline __attribute__((always_inline)) const char *kt_number(const char *s, const char *end,
                                                                    kt_num *out)
{
    const char *p = s + (s < end && *s == '-');
    const char *d = p;
    if (end - p >= 24) { /* room for 16 digits and the byte after them */
        uint64_t u;
        unsigned n = kt_digits16(p, &u);
        p += n;
        if (n > 0 && n < 16 && *p != '.' && *p != 'e' && *p != 'E') {
            out->kind = KT_NUM_INT;
            out->i = d > s ? -(int64_t)u : (int64_t)u;
            out->f = (double)out->i;
            return p;
        }
        return kt_parse_number(s, end, out);
    }
    int64_t v = 0;
    while (p < end && kt_is_digit(*p) && p - d < 18) v = v * 10 + (*p++ - '0');
    if (p > d && p < end && !kt_is_digit(*p) && *p != '.' && *p != 'e' && *p != 'E') {
        out->kind = KT_NUM_INT;
        out->i = d > s ? -v : v;
        out->f = (double)out->i;
        return p;
    }
    return kt_parse_number(s, end, out);
}

#endif /* KT_SCAN_INLINE_H */
