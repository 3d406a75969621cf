/*
 * strings.c — turning raw JSON string bytes into interned text.
 *
 * Most strings in a trace need no work (no escapes, plain ASCII), so they
 * are interned straight from the window.  Escapes are decoded, invalid
 * UTF-8 is replaced by U+FFFD (so every string we hand out is valid UTF-8
 * and every writer can emit it), and each kind of repair is reported once.
 * Interning goes through a small per-thread cache because the shared
 * string table takes a lock and the same few thousand names repeat
 * millions of times.
 */
#include "load_internal.h"

#include <stdlib.h>
#include <string.h>

static bool scratch_reserve(kt_parser *p, size_t n)
{
    if (n <= p->scratch_cap) return true;
    size_t cap = p->scratch_cap ? p->scratch_cap : 4096;
    while (cap < n) cap *= 2;
    char *b = realloc(p->scratch, cap);
    if (!b) return false;
    p->scratch = b;
    p->scratch_cap = cap;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int hex4(const char *s, const char *end)
{
    if (end - s < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[i]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* \uXXXX (with surrogate pairs) at s (after the backslash-u). */
static const char *unicode_escape(const char *s, const char *end, uint32_t *cp, bool *bad)
{
    int hi = hex4(s, end);
    if (hi < 0) { *bad = true; return NULL; }
    s += 4;
    if (hi >= 0xD800 && hi <= 0xDBFF && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
        int lo = hex4(s + 2, end);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
            return s + 6;
        }
    }
    if (hi >= 0xD800 && hi <= 0xDFFF) { /* lone surrogate */
        *bad = true;
        *cp = 0xFFFD;
    } else {
        *cp = (uint32_t)hi;
    }
    return s;
}

/* The character a one-letter escape stands for, or 0. */
static char simple_escape(char c)
{
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

/* Decode escapes of s into o; returns the end of the output (*bad: some
 * escape was kept as written). */
static char *unescape_to(const char *s, size_t len, char *o, bool *bad_out)
{
    const char *end = s + len;
    bool bad = false;
    while (s < end) {
        const char *b = memchr(s, '\\', (size_t)(end - s));
        size_t n = b ? (size_t)(b - s) : (size_t)(end - s);
        memcpy(o, s, n);
        o += n;
        s += n;
        if (!b) break;
        if (s + 1 >= end) { /* a trailing lone backslash: keep it */
            *o++ = '\\';
            bad = true;
            break;
        }
        char c = s[1], plain = simple_escape(c);
        if (plain) {
            *o++ = plain;
            s += 2;
        } else if (c == 'u') {
            uint32_t cp = 0;
            const char *t = unicode_escape(s + 2, end, &cp, &bad);
            if (t) {
                o = put_utf8(o, cp);
                s = t;
            } else { /* keep the malformed escape as written */
                *o++ = '\\';
                s++;
            }
        } else { /* unknown escape: keep it as written */
            *o++ = '\\';
            s++;
            bad = true;
        }
    }
    *bad_out = bad;
    return o;
}

static char *unescape(kt_parser *p, const char *s, size_t len, char *o)
{
    bool bad;
    o = unescape_to(s, len, o, &bad);
    if (bad)
        kt_pdiag_note(p, KT_PD_BAD_ESCAPE, -1, "invalid escape sequence in a string (kept as written)");
    return o;
}

/* Length of a valid UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s, const unsigned char *end)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if ((size_t)(end - s) < n) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

static bool utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s, *end = u + len;
    while (u < end) {
        size_t n = utf8_seq(u, end);
        if (!n) return false;
        u += n;
    }
    return true;
}

/* Copy s to o replacing every invalid byte by U+FFFD. */
static char *utf8_repair(const char *s, size_t len, char *o)
{
    const unsigned char *u = (const unsigned char *)s, *end = u + len;
    while (u < end) {
        size_t n = utf8_seq(u, end);
        if (n) {
            memcpy(o, u, n);
            o += n;
            u += n;
        } else {
            o = put_utf8(o, 0xFFFD);
            u++;
        }
    }
    return o;
}

bool kt_string_text(kt_parser *p, const char *s, size_t len, unsigned flags, const char **out,
                    size_t *outlen)
{
    int64_t off = kt_offset_of(p, s);
    if (flags & KT_STR_CTRL)
        kt_pdiag_note(p, KT_PD_CTRL, off, "raw control character in a string (kept)");
    if (flags & KT_STR_QUOTE)
        kt_pdiag_note(p, KT_PD_QUOTE, off, "unescaped quote inside a string (kept as part of it)");
    *out = s;
    *outlen = len;
    if (!(flags & (KT_STR_ESC | KT_STR_HIGH))) return true;
    if (!scratch_reserve(p, 4 * len + 16)) return false;
    const char *text = s;
    size_t n = len;
    char *half = p->scratch + 3 * len + 8; /* unescape lands after room for repair */
    if (flags & KT_STR_ESC) {
        n = (size_t)(unescape(p, s, len, half) - half);
        text = half;
    }
    if ((flags & KT_STR_HIGH) || (flags & KT_STR_ESC)) {
        if (!utf8_valid(text, n)) {
            kt_pdiag_note(p, KT_PD_UTF8, off, "invalid UTF-8 in a string (bytes replaced by U+FFFD)");
            n = (size_t)(utf8_repair(text, n, p->scratch) - p->scratch);
            text = p->scratch;
        }
    }
    *out = text;
    *outlen = n;
    return true;
}

static uint64_t load64(const char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* Up to 7 bytes as a word, without a byte loop through memory (that made
 * the store-to-load stall the top cost of interning).                     */
static uint64_t load_short(const char *s, size_t n)
{
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return a | (uint64_t)b << 32;
    }
    if (!n) return 0;
    return (uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 | (uint64_t)(uint8_t)s[n - 1] << 16;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

/* Cache hash: short strings whole; long ones (kernel names run to
 * hundreds of bytes) by length, head, middle and tail — collisions only
 * cost a cache miss, the strings are compared anyway.                     */
static uint64_t fast_hash(const char *s, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ull;
    if (n >= 32) {
        h = mix(mix(mix(h, load64(s)), load64(s + 8)), load64(s + n / 2 - 4));
        return mix(mix(h, load64(s + n - 16)), load64(s + n - 8));
    }
    if (n < 8) return mix(h, load_short(s, n));
    for (size_t i = 0; i + 8 <= n; i += 8) h = mix(h, load64(s + i));
    return mix(h, load64(s + n - 8));
}

uint32_t kt_intern(kt_parser *p, const char *s, size_t len)
{
    uint64_t h = fast_hash(s, len);
    kt_icache_entry *c = &p->cache->e[h & (KT_ICACHE_SIZE - 1)];
    if (c->id != KT_NONE && c->hash == h && c->len == len && kt_same_text(c->str, s, len)) return c->id;
    uint32_t id = kt_strtab_intern(p->strs, s, len);
    if (id != KT_NONE) *c = (kt_icache_entry){ h, kt_strtab_get(p->strs, id), (uint32_t)len, id };
    return id;
}

uint32_t kt_intern_json(kt_parser *p, const char *s, size_t len, unsigned flags)
{
    if (!flags) return kt_intern(p, s, len); /* nearly always: nothing to decode */
    const char *t;
    size_t n;
    if (!kt_string_text(p, s, len, flags, &t, &n)) return KT_NONE;
    return kt_intern(p, t, n);
}

size_t kt_decode_json_string(const char *s, size_t len, char *out)
{
    bool bad;
    char *half = out + 3 * len + 8;
    size_t n = (size_t)(unescape_to(s, len, half, &bad) - half);
    if (utf8_valid(half, n)) {
        memmove(out, half, n);
        return n;
    }
    return (size_t)(utf8_repair(half, n, out) - out);
}
