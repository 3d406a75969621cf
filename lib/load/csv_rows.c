/*
 * csv_rows.c — CSV rows in memory, columns by header name (csv_rows.h).
 *
 * A field's text is always plain: a field without quotes, or quoted with
 * none inside, points into the text itself; any other is copied into the
 * row's scratch buffer with its quotes removed (doubled ones undoubled).
 */
#include "csv_rows.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Eight bytes as a word, the first in the low byte on any host. */
static inline uint64_t load8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The top bit of each byte of w that is c, exactly (no carry crosses a
 * byte: each byte's low seven bits are added apart from its top bit).  */
static uint64_t bytes_equal(uint64_t w, char c)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t x = w ^ (0x0101010101010101ull * (unsigned char)c);
    return ~(((x & low7) + low7) | x) & ~low7;
}

/* Whether [p, e) holds an odd number of quotes: the words' quote masks
 * folded into one parity bit.                                          */
static bool odd_quotes(const char *p, const char *e)
{
    uint64_t acc = 0;
    for (; e - p >= 8; p += 8) acc ^= bytes_equal(load8(p), '"');
    acc ^= acc >> 32;
    acc ^= acc >> 16;
    acc ^= acc >> 8;
    bool odd = (acc >> 7) & 1;
    for (; p < e; p++) odd ^= *p == '"';
    return odd;
}

/* The first ',', '"' or '\n' in [p, e), or e. */
static const char *field_stop(const char *p, const char *e)
{
    for (; e - p >= 8; p += 8) {
        uint64_t w = load8(p), m = bytes_equal(w, ',') | bytes_equal(w, '"') | bytes_equal(w, '\n');
        if (m) return p + (__builtin_ctzll(m) >> 3);
    }
    while (p < e && *p != ',' && *p != '"' && *p != '\n') p++;
    return p;
}

/* The end of the row starting at p, outside quotes (its '\n', or end):
 * each line up to a '\n' is found by memchr, and ends the row when the
 * row's quotes so far are balanced.                                     */
static const char *row_end(const char *p, const char *end)
{
    bool quoted = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        quoted ^= odd_quotes(p, nl);
        if (!quoted) return nl;
        p = nl + 1;
    }
    return end;
}

/* Room in the scratch buffer for a row of n bytes. */
static bool scratch_room(kt_csv *c, size_t n)
{
    if (n <= c->cap) return true;
    char *s = realloc(c->scratch, n);
    if (!s) {
        c->oom = true;
        return false;
    }
    c->scratch = s;
    c->cap = n;
    return true;
}

/* The row at p read in one pass, its fields pointing into the text, when
 * each is unquoted without quotes or quoted with none inside (a profiler's
 * rows): the row's end (its '\n', or end), or NULL for another row.     */
static const char *plain_row(const char *p, const char *end, kt_csv_field *out, size_t *nout, size_t max)
{
    size_t nf = 0;
    for (;;) {
        kt_csv_field f;
        const char *stop; /* the ',' or '\n' after the field, or end */
        bool cr_outside = false;
        if (p < end && *p == '"') {
            const char *z = memchr(p + 1, '"', (size_t)(end - p - 1));
            if (!z) return NULL;
            f = (kt_csv_field){ p + 1, (size_t)(z - p - 1) };
            stop = z + 1;
            if (stop < end && *stop == '\r' && (stop + 1 == end || stop[1] == '\n')) stop++, cr_outside = true;
            if (stop < end && *stop != ',' && *stop != '\n') return NULL;
        } else {
            stop = field_stop(p, end);
            if (stop < end && *stop == '"') return NULL;
            f = (kt_csv_field){ p, (size_t)(stop - p) };
        }
        bool last = stop >= end || *stop == '\n';
        if (last && !cr_outside && f.n && f.s[f.n - 1] == '\r') f.n--; /* CRLF */
        if (nf < KT_CSV_MAX_FIELDS) out[nf++] = f;
        *nout = nf;
        if (last) return stop;
        if (nf >= max) return row_end(stop + 1, end);
        p = stop + 1;
    }
}

/* A field with quotes anywhere, unquoted (doubled quotes undoubled) into
 * the scratch buffer at *o; its end (the ',' or e).                     */
static const char *unquote_field(const char *p, const char *e, char **o, kt_csv_field *f)
{
    char *start = *o, *w = *o;
    bool quoted = false;
    for (; p < e; p++) {
        if (*p == '"') {
            if (quoted && p + 1 < e && p[1] == '"') *w++ = *p++;
            else quoted = !quoted;
        } else if (*p == ',' && !quoted) {
            break;
        } else {
            *w++ = *p;
        }
    }
    size_t n = (size_t)(w - start);
    if (n && start[n - 1] == '\r' && p >= e) n--;
    *f = (kt_csv_field){ start, n };
    *o = w;
    return p;
}

/* Any row: its end found first (quotes balanced), then each field
 * unquoted into the scratch buffer; NULL on OOM.                     */
static const char *quoted_row(kt_csv *c, kt_csv_field *out, size_t *nout, size_t max)
{
    const char *p = c->p, *e = row_end(p, c->end);
    if (!scratch_room(c, (size_t)(e - p) + 1)) return NULL;
    char *o = c->scratch;
    size_t nf = 0;
    for (;;) {
        kt_csv_field f;
        p = unquote_field(p, e, &o, &f);
        if (nf < KT_CSV_MAX_FIELDS) out[nf++] = f;
        if (p >= e || nf >= max) break;
        p++; /* the ',' */
    }
    *nout = nf;
    return e;
}

/* The row's first max fields; the rest of the row is skipped. */
static bool read_row(kt_csv *c, kt_csv_field *out, size_t *nout, size_t max)
{
    if (c->p >= c->end) return false;
    const char *e = plain_row(c->p, c->end, out, nout, max);
    if (!e && !(e = quoted_row(c, out, nout, max))) return false;
    c->line++;
    c->p = e < c->end ? e + 1 : e;
    return true;
}

bool kt_csv_open(kt_csv *c, const char *text, size_t len)
{
    *c = (kt_csv){ .p = text, .end = text + len };
    if (!read_row(c, c->head, &c->nhead, KT_CSV_MAX_FIELDS)) return false;
    /* the header outlives the rows: give it its own copy */
    size_t total = 0;
    for (size_t i = 0; i < c->nhead; i++) total += c->head[i].n + 1;
    char *h = malloc(total ? total : 1);
    if (!h) {
        c->oom = true;
        c->nhead = 0;
        return false;
    }
    c->head_text = h;
    for (size_t i = 0; i < c->nhead; i++) {
        memcpy(h, c->head[i].s, c->head[i].n);
        h[c->head[i].n] = '\0';
        c->head[i].s = h;
        h += c->head[i].n + 1;
    }
    return c->nhead > 0;
}

void kt_csv_close(kt_csv *c)
{
    free(c->scratch);
    free(c->head_text);
    c->scratch = c->head_text = NULL;
}

bool kt_csv_next_cols(kt_csv *c, size_t ncols)
{
    while (read_row(c, c->f, &c->nf, ncols ? ncols : 1))
        if (!(c->nf == 1 && c->f[0].n == 0)) return true; /* blank lines */
    return false;
}

bool kt_csv_next(kt_csv *c) { return kt_csv_next_cols(c, KT_CSV_MAX_FIELDS); }

int kt_csv_col(const kt_csv *c, const char *const *names)
{
    for (; *names; names++)
        for (size_t i = 0; i < c->nhead; i++)
            if (c->head[i].n == strlen(*names) && !strncasecmp(c->head[i].s, *names, c->head[i].n)) return (int)i;
    return -1;
}

kt_csv_field kt_csv_get(const kt_csv *c, int col)
{
    if (col < 0 || (size_t)col >= c->nf) return (kt_csv_field){ "", 0 };
    return c->f[col];
}

/* The value of eight digits, the first the most significant: digit
 * pairs, then quads, then the eight, each by one multiply (SWAR).     */
static uint64_t eight_digits(uint64_t w)
{
    w -= 0x3030303030303030ull;
    w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffull;
    w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffull;
    return (w * 10000 + (w >> 32)) & 0xffffffffull;
}

/* Whether all eight bytes of w are digits. */
static bool all_digits(uint64_t w)
{
    return (w & 0xf0f0f0f0f0f0f0f0ull) == 0x3030303030303030ull &&
           ((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) == 0x3030303030303030ull;
}

/* Digits only ("1550151853029637"), the common case, in one pass. */
static bool plain_int(kt_csv_field f, int64_t *out)
{
    if (f.n == 0 || f.n > 18) return false;
    int64_t v = 0;
    size_t k = 0;
    for (; f.n - k >= 8; k += 8) {
        uint64_t w = load8(f.s + k);
        if (!all_digits(w)) return false;
        v = v * 100000000 + (int64_t)eight_digits(w);
    }
    for (; k < f.n; k++) {
        unsigned d = (unsigned)(f.s[k] - '0');
        if (d > 9) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool kt_csv_int(const kt_csv *c, int col, int64_t *out)
{
    kt_csv_field f = kt_csv_get(c, col);
    if (plain_int(f, out)) return true;
    size_t i = f.n;
    while (i > 0 && f.s[i - 1] >= '0' && f.s[i - 1] <= '9') i--;
    if (i == f.n || f.n - i > 18) return false;
    bool neg = i > 0 && f.s[i - 1] == '-';
    /* only "123", "-123" or "<word> 123" (rocprofv3's "Agent 4") */
    if (!(i == 0 || (neg && i == 1) || (!neg && f.s[i - 1] == ' '))) return false;
    int64_t v = 0;
    for (size_t k = i; k < f.n; k++) v = v * 10 + (f.s[k] - '0');
    *out = neg ? -v : v;
    return true;
}
