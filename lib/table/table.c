/*
 * table.c — named, typed result tables: the one shape every analysis returns.
 *
 * A single representation lets the CLI print any analysis as text, CSV or
 * JSON without knowing it, and lets C callers read results without parsing.
 */
#include "table.h"
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kt_tables {
    kt_table **t;
    size_t n, cap;
};

kt_table *kt_table_new(const char *name)
{
    kt_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (!(t->name = strdup(name))) { free(t); return NULL; }
    return t;
}

void kt_table_free(kt_table *t)
{
    if (!t) return;
    for (kt_chunk *k = t->strings, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    for (size_t c = 0; c < t->ncols; c++) free(t->cols[c].name);
    kt_table_free_notes(t);
    free(t->cols);
    free(t->vals);
    free(t->nulls);
    free(t->name);
    free(t);
}

size_t kt_table_add_col(kt_table *t, const char *name, kt_col_type type, int precision)
{
    kt_column *c = t->nrows ? NULL : realloc(t->cols, (t->ncols + 1) * sizeof *c);
    char *n = c ? strdup(name) : NULL;
    if (!n) { t->failed = true; return t->ncols; }
    t->cols = c;
    t->cols[t->ncols] = (kt_column){ .name = n, .type = type, .precision = precision };
    t->cap_rows = 0; /* rows reserved so far were one column narrower */
    return t->ncols++;
}

/* The index of cell (row, col) in vals and nulls. */
static size_t at(const kt_table *t, size_t row, size_t col) { return row * t->ncols + col; }

/* Room for rows rows, every cell past the last row null (false, t failed,
 * without memory).  A null cell's value is never read: only the flags are
 * set.                                                                   */
static bool grow_rows(kt_table *t, size_t rows)
{
    kt_cell *v = realloc(t->vals, rows * t->ncols * sizeof *v + 1);
    if (v) t->vals = v;
    uint8_t *n = v ? realloc(t->nulls, rows * t->ncols + 1) : NULL;
    if (!n) {
        t->failed = true;
        return false;
    }
    t->nulls = n;
    t->cap_rows = rows;
    size_t used = t->nrows * t->ncols;
    memset(t->nulls + used, 1, rows * t->ncols - used);
    kt_prefault(t->vals + used, (rows * t->ncols - used) * sizeof *t->vals); /* rows are filled in */
    return true;
}

/* Reserved again and again (a series per queue), the room at least
 * doubles: growing it by each series copied the whole table each time.  */
void kt_table_reserve(kt_table *t, size_t nrows)
{
    if (t->failed || nrows <= t->cap_rows || t->ncols == 0) return;
    grow_rows(t, t->cap_rows && nrows < 2 * t->cap_rows ? 2 * t->cap_rows : nrows);
}

/* String text is copied into chunks of this size (table.h: kt_chunk). */
#define CHUNK_BYTES (64 * 1024)

/* Out of the inline path: a string that does not fit the current chunk. */
void kt_table_put_str_slow(kt_table *t, size_t i, const char *s, size_t len)
{
    kt_chunk *k = t->strings;
    size_t cap = len > CHUNK_BYTES / 4 ? len : CHUNK_BYTES;
    if (!(k = malloc(sizeof *k + cap))) { t->failed = true; return; }
    *k = (kt_chunk){ .used = 0, .cap = cap };
    if (cap == len && t->strings) { /* keep filling the current chunk */
        k->next = t->strings->next;
        t->strings->next = k;
    } else {
        k->next = t->strings;
        t->strings = k;
    }
    t->vals[i].s = memcpy(k->text, s, len);
    k->used = len;
    t->nulls[i] = 0;
}

bool kt_table_grow(kt_table *t)
{
    return grow_rows(t, t->cap_rows ? t->cap_rows * 2 : 16);
}

void kt_table_set_unit(kt_table *t, size_t col, const char *unit)
{
    if (col < t->ncols) t->cols[col].unit = unit;
}

bool kt_table_failed(const kt_table *t) { return !t || t->failed; }

void kt_table_put_float(kt_table *t, size_t row, size_t col, double v)
{
    size_t i = at(t, row, col);
    t->vals[i].f = v;
    t->nulls[i] = 0;
}

const char *kt_table_name(const kt_table *t) { return t->name; }
size_t kt_table_ncols(const kt_table *t) { return t->ncols; }
size_t kt_table_nrows(const kt_table *t) { return t->nrows; }
const char *kt_table_col_name(const kt_table *t, size_t col) { return t->cols[col].name; }
kt_col_type kt_table_col_type(const kt_table *t, size_t col) { return t->cols[col].type; }
int kt_table_col_precision(const kt_table *t, size_t col) { return t->cols[col].precision; }
const char *kt_table_col_unit(const kt_table *t, size_t col) { return t->cols[col].unit; }

int kt_table_is_null(const kt_table *t, size_t row, size_t col) { return t->nulls[at(t, row, col)]; }
int64_t kt_table_int(const kt_table *t, size_t row, size_t col)
{
    size_t i = at(t, row, col);
    if (t->nulls[i]) return 0;
    return t->cols[col].type == KT_COL_FLOAT ? (int64_t)t->vals[i].f : t->vals[i].i;
}
double kt_table_float(const kt_table *t, size_t row, size_t col)
{
    size_t i = at(t, row, col);
    if (t->nulls[i]) return NAN;
    return t->cols[col].type == KT_COL_INT ? (double)t->vals[i].i : t->vals[i].f;
}
const char *kt_table_str(const kt_table *t, size_t row, size_t col)
{
    size_t i = at(t, row, col);
    return t->nulls[i] || t->cols[col].type != KT_COL_STR ? "" : t->vals[i].s;
}

long kt_table_col_index(const kt_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c].name, name) == 0) return (long)c;
    return -1;
}

kt_tables *kt_tables_new(void) { return calloc(1, sizeof(kt_tables)); }

bool kt_tables_add(kt_tables *ts, kt_table *t)
{
    if (!t || t->failed) { kt_table_free(t); return false; }
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 4;
        kt_table **nt = realloc(ts->t, cap * sizeof *nt);
        if (!nt) { kt_table_free(t); return false; }
        ts->t = nt;
        ts->cap = cap;
    }
    ts->t[ts->n++] = t;
    return true;
}

kt_status kt_tables_from(kt_table **tb, size_t n, kt_tables **out)
{
    kt_tables *ts = kt_tables_new();
    size_t i = 0;
    while (ts && i < n && kt_tables_add(ts, tb[i])) i++;
    if (ts && i == n) {
        *out = ts;
        return KT_OK;
    }
    for (size_t j = ts ? i + 1 : 0; j < n; j++) kt_table_free(tb[j]);
    kt_tables_free(ts);
    *out = NULL;
    return KT_ENOMEM;
}

size_t kt_tables_count(const kt_tables *ts) { return ts ? ts->n : 0; }
const kt_table *kt_tables_get(const kt_tables *ts, size_t i) { return i < ts->n ? ts->t[i] : NULL; }
const kt_table *kt_tables_find(const kt_tables *ts, const char *name)
{
    for (size_t i = 0; i < ts->n; i++)
        if (strcmp(ts->t[i]->name, name) == 0) return ts->t[i];
    return NULL;
}

kt_table *kt_tables_find_mut(kt_tables *ts, const char *name)
{
    for (size_t i = 0; i < ts->n; i++)
        if (strcmp(ts->t[i]->name, name) == 0) return ts->t[i];
    return NULL;
}

void kt_tables_free(kt_tables *ts)
{
    if (!ts) return;
    for (size_t i = 0; i < ts->n; i++) kt_table_free(ts->t[i]);
    free(ts->t);
    free(ts);
}

/* Bulk column reads for bindings: one pass over the row-major cells. */
kt_status kt_table_ints(const kt_table *t, size_t col, int64_t *dst, uint8_t *nulls)
{
    if (!t || col >= t->ncols || t->cols[col].type == KT_COL_STR) return KT_EUSAGE;
    bool is_float = t->cols[col].type == KT_COL_FLOAT;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = at(t, r, col);
        dst[r] = t->nulls[i] ? 0 : is_float ? (int64_t)t->vals[i].f : t->vals[i].i;
        if (nulls) nulls[r] = t->nulls[i];
    }
    return KT_OK;
}

#define FLOATS_OF_ROWS 256 /* rows read at a time: their cells stay in the L1 cache for every column */

/* Column col of rows [r0, r1) into dst[0 .. r1 - r0), as kt_table_floats
 * reads it.                                                              */
static void floats_of_rows(const kt_table *t, size_t col, size_t r0, size_t r1, double *dst)
{
    size_t stride = t->ncols, i = r0 * stride + col;
    if (t->cols[col].type == KT_COL_FLOAT)
        for (size_t r = 0; r < r1 - r0; r++, i += stride) dst[r] = t->nulls[i] ? NAN : t->vals[i].f;
    else
        for (size_t r = 0; r < r1 - r0; r++, i += stride) dst[r] = t->nulls[i] ? NAN : (double)t->vals[i].i;
}

kt_status kt_table_floats_rows(const kt_table *t, const size_t *cols, size_t k, size_t r0, size_t r1,
                               double *const *dst)
{
    if (!t || r0 > r1 || r1 > t->nrows) return KT_EUSAGE;
    for (size_t j = 0; j < k; j++)
        if (cols[j] >= t->ncols || t->cols[cols[j]].type == KT_COL_STR) return KT_EUSAGE;
    for (size_t b0 = r0; b0 < r1; b0 += FLOATS_OF_ROWS) {
        size_t b1 = r1 - b0 < FLOATS_OF_ROWS ? r1 : b0 + FLOATS_OF_ROWS;
        for (size_t j = 0; j < k; j++) floats_of_rows(t, cols[j], b0, b1, dst[j] + (b0 - r0));
    }
    return KT_OK;
}

kt_status kt_table_floats(const kt_table *t, size_t col, double *dst, uint8_t *nulls)
{
    if (!t || col >= t->ncols || t->cols[col].type == KT_COL_STR) return KT_EUSAGE;
    floats_of_rows(t, col, 0, t->nrows, dst);
    for (size_t r = 0; nulls && r < t->nrows; r++) nulls[r] = t->nulls[at(t, r, col)];
    return KT_OK;
}
