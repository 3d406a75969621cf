/*
 * partial_wire.c — partial results on the wire: kt_tables to bytes and back.
 *
 * MPI processes map their ranks and send the tables to process 0, which
 * reduces them; the bytes cross machines, so the format is fixed (little
 * endian, versioned, every length checked on reading) and a damaged or
 * foreign buffer is an error, never a crash.  Layout:
 *   "KTPART" u16 version, u32 ntables; per table: str name, u32 ncols,
 *   u64 nrows, per column: str name, u8 type, i32 precision, str unit
 *   (length UINT32_MAX: none); then cells row-major: u8 null, and unless
 *   null an i64, an f64 (IEEE bits) or a str; then u32 nnotes, per
 *   footnote: str text, str fmt (none: a plain note), u8 ncounts and as
 *   many i64.  str = u32 length + bytes.
 */
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC "KTPART"
#define WIRE_VERSION 2
#define NO_UNIT UINT32_MAX

typedef struct wbuf {
    unsigned char *p;
    size_t len, cap;
    bool failed;
} wbuf;

static void put(wbuf *b, const void *src, size_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) { b->failed = true; return; }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void put_u(wbuf *b, uint64_t v, size_t bytes)
{
    unsigned char le[8];
    for (size_t i = 0; i < bytes; i++) le[i] = (unsigned char)(v >> (8 * i));
    put(b, le, bytes);
}

static void put_str(wbuf *b, const char *s)
{
    if (!s) { put_u(b, NO_UNIT, 4); return; }
    size_t n = strlen(s);
    put_u(b, n, 4);
    put(b, s, n);
}

static void put_cell(wbuf *b, const kt_table *t, size_t r, size_t c)
{
    bool null = kt_table_is_null(t, r, c);
    put_u(b, null, 1);
    if (null) return;
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT: put_u(b, (uint64_t)kt_table_int(t, r, c), 8); break;
    case KT_COL_FLOAT: {
        double f = kt_table_float(t, r, c);
        uint64_t bits;
        memcpy(&bits, &f, 8);
        put_u(b, bits, 8);
        break;
    }
    case KT_COL_STR: put_str(b, kt_table_str(t, r, c)); break;
    }
}

static void put_table(wbuf *b, const kt_table *t)
{
    put_str(b, kt_table_name(t));
    put_u(b, kt_table_ncols(t), 4);
    put_u(b, kt_table_nrows(t), 8);
    for (size_t c = 0; c < kt_table_ncols(t); c++) {
        put_str(b, kt_table_col_name(t, c));
        put_u(b, (uint64_t)kt_table_col_type(t, c), 1);
        put_u(b, (uint32_t)kt_table_col_precision(t, c), 4);
        put_str(b, kt_table_col_unit(t, c));
    }
    for (size_t r = 0; r < kt_table_nrows(t); r++)
        for (size_t c = 0; c < kt_table_ncols(t); c++) put_cell(b, t, r, c);
    put_u(b, kt_table_nnotes(t), 4);
    for (size_t i = 0; i < kt_table_nnotes(t); i++) {
        const char *fmt = NULL;
        size_t n = 0;
        const int64_t *counts = NULL;
        kt_table_note_counts(t, i, &fmt, &n, &counts);
        put_str(b, kt_table_note(t, i));
        put_str(b, fmt);
        put_u(b, n, 1);
        for (size_t k = 0; k < n; k++) put_u(b, (uint64_t)counts[k], 8);
    }
}

kt_status kt_tables_serialize(const kt_tables *ts, unsigned char **buf, size_t *len)
{
    wbuf b = { 0 };
    put(&b, WIRE_MAGIC, 6);
    put_u(&b, WIRE_VERSION, 2);
    put_u(&b, kt_tables_count(ts), 4);
    for (size_t i = 0; i < kt_tables_count(ts); i++) put_table(&b, kt_tables_get(ts, i));
    if (b.failed) {
        free(b.p);
        return KT_ENOMEM;
    }
    *buf = b.p;
    *len = b.len;
    return KT_OK;
}

/* ---- reading: every read checks the bytes left ------------------------- */
typedef struct rbuf {
    const unsigned char *p;
    size_t left;
    bool bad;
} rbuf;

static uint64_t get_u(rbuf *b, size_t bytes)
{
    if (b->bad || b->left < bytes) { b->bad = true; return 0; }
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) v |= (uint64_t)b->p[i] << (8 * i);
    b->p += bytes;
    b->left -= bytes;
    return v;
}

/* A string of the buffer, NUL-terminated into a malloc'd copy (NULL on a
 * damaged buffer; *none for the "no unit" length).                       */
static char *get_str(rbuf *b, bool *none)
{
    uint64_t n = get_u(b, 4);
    *none = !b->bad && n == NO_UNIT;
    if (b->bad || *none) return NULL;
    if (n > b->left) { b->bad = true; return NULL; }
    char *s = malloc(n + 1);
    if (!s) { b->bad = true; return NULL; }
    memcpy(s, b->p, n);
    s[n] = '\0';
    b->p += n;
    b->left -= n;
    return s;
}

/* kt_table_set_unit keeps the pointer: units are the library's literals. */
static const char *known_unit(const char *u)
{
    static const char *const units[] = { "us", "ms", "ns", "GB/s", "%" };
    for (size_t i = 0; u && i < sizeof units / sizeof *units; i++)
        if (!strcmp(u, units[i])) return units[i];
    return NULL;
}

static bool get_column(rbuf *b, kt_table *t)
{
    bool none;
    char *name = get_str(b, &none);
    uint64_t type = get_u(b, 1);
    int precision = (int)(int32_t)(uint32_t)get_u(b, 4);
    char *unit = get_str(b, &none);
    bool ok = !b->bad && name && type <= KT_COL_STR && (none || known_unit(unit));
    if (ok) {
        size_t c = kt_table_add_col(t, name, (kt_col_type)type, precision);
        if (!none) kt_table_set_unit(t, c, known_unit(unit));
    }
    free(name);
    free(unit);
    return ok;
}

static bool get_cell(rbuf *b, kt_table *t, size_t c)
{
    uint64_t null = get_u(b, 1);
    if (b->bad || null > 1) return false;
    if (null) return true;
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT: kt_table_set_int(t, c, (int64_t)get_u(b, 8)); break;
    case KT_COL_FLOAT: {
        uint64_t bits = get_u(b, 8);
        double f;
        memcpy(&f, &bits, 8);
        kt_table_set_float(t, c, f);
        break;
    }
    case KT_COL_STR: {
        bool none;
        char *s = get_str(b, &none);
        if (s) kt_table_set_str(t, c, s);
        free(s);
        return s != NULL;
    }
    }
    return !b->bad;
}

/* A footnote, counted or plain, as written (false: damaged). */
static bool get_note(rbuf *b, kt_table *t)
{
    bool none, plain;
    char *text = get_str(b, &none);
    char *fmt = get_str(b, &plain);
    uint64_t n = get_u(b, 1);
    int64_t counts[KT_NOTE_COUNTS];
    for (uint64_t k = 0; k < n && k < KT_NOTE_COUNTS; k++) counts[k] = (int64_t)get_u(b, 8);
    bool ok = !b->bad && text && (fmt || (plain && n == 0)) && n <= KT_NOTE_COUNTS;
    if (ok && fmt) kt_table_add_count_note(t, fmt, (size_t)n, counts);
    else if (ok) kt_table_add_note(t, "%s", text);
    free(text);
    free(fmt);
    return ok;
}

static kt_table *get_table(rbuf *b)
{
    bool none;
    char *name = get_str(b, &none);
    uint64_t ncols = get_u(b, 4), nrows = get_u(b, 8);
    /* every cell takes at least its null byte: bounds nrows before reserving */
    bool sane = name && !b->bad && ncols > 0 && ncols < 65536 && nrows <= b->left / ncols;
    kt_table *t = sane ? kt_table_new(name) : NULL;
    free(name);
    bool ok = t != NULL;
    for (uint64_t c = 0; ok && c < ncols; c++) ok = get_column(b, t);
    if (ok) kt_table_reserve(t, nrows);
    for (uint64_t r = 0; ok && r < nrows; r++) {
        kt_table_add_row(t);
        for (size_t c = 0; ok && c < ncols; c++) ok = get_cell(b, t, c);
    }
    uint64_t nnotes = ok ? get_u(b, 4) : 0;
    ok = ok && !b->bad;
    for (uint64_t i = 0; ok && i < nnotes; i++) ok = get_note(b, t);
    if (ok && !kt_table_failed(t)) return t;
    kt_table_free(t);
    return NULL;
}

kt_status kt_tables_deserialize(const unsigned char *buf, size_t len, kt_tables **out)
{
    *out = NULL;
    rbuf b = { buf, len, false };
    if (len < 6 || memcmp(buf, WIRE_MAGIC, 6)) return KT_EINPUT;
    b.p += 6;
    b.left -= 6;
    uint64_t version = get_u(&b, 2), n = get_u(&b, 4);
    if (b.bad || version != WIRE_VERSION) return KT_EINPUT;
    kt_tables *ts = kt_tables_new();
    if (!ts) return KT_ENOMEM;
    for (uint64_t i = 0; i < n; i++) {
        kt_table *t = get_table(&b);
        if (!t || !kt_tables_add(ts, t)) {
            kt_tables_free(ts);
            return KT_EINPUT;
        }
    }
    if (b.left) {
        kt_tables_free(ts);
        return KT_EINPUT;
    }
    *out = ts;
    return KT_OK;
}
