/*
 * table.h — building result tables (internal side of kt_table).
 *
 * Analyses fill rows with kt_table_add_row + kt_table_set_*; allocation
 * failures are remembered in the table (kt_table_failed) so analysis code
 * can stay linear and check once before returning.
 */
#ifndef KT_TABLE_H
#define KT_TABLE_H

#include "../kineta.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

kt_table *kt_table_new(const char *name);
void kt_table_free(kt_table *t);
/* Add a column (before any row). precision: digits for KT_COL_FLOAT, -1 =
 * shortest round-trip.  Returns the column index.                          */
size_t kt_table_add_col(kt_table *t, const char *name, kt_col_type type, int precision);
/* The unit of a column whose name does not say it (HTA's "sum", "mean",
 * ...): "us", "ms", "ns", "GB/s", "%".  unit must outlive the table (a
 * string literal).                                                         */
void kt_table_set_unit(kt_table *t, size_t col, const char *unit);
/* Room for nrows rows in all (after the columns): spares the regrowth of
 * large tables whose size is known.  Failure is remembered as above.      */
void kt_table_reserve(kt_table *t, size_t nrows);
/* Append a row whose cells are all null; set them with the setters below. */
static inline void kt_table_add_row(kt_table *t);
static inline void kt_table_set_int(kt_table *t, size_t col, int64_t v);   /* last row */
static inline void kt_table_set_float(kt_table *t, size_t col, double v);  /* NaN → null */
static inline void kt_table_set_str(kt_table *t, size_t col, const char *s); /* copied */
/* Filling a long table: kt_table_row appends a row and returns its cells,
 * which kt_row_* set without going back to the table (see below).        */
typedef struct kt_row kt_row;
static inline kt_row kt_table_row(kt_table *t);
static inline void kt_row_int(kt_row r, size_t col, int64_t v);
static inline void kt_row_float(kt_row r, size_t col, double v); /* NaN → null */
static inline void kt_row_str(kt_table *t, kt_row r, size_t col, const char *s);
/* The text of the given string cell of an earlier row, shared, not copied:
 * for a column that repeats one string over many rows (a device label).  */
static inline void kt_row_str_of(const kt_table *t, kt_row r, size_t col, size_t row);
bool kt_table_failed(const kt_table *t);
/* A footnote (kt_table_note): one line, printf-style; failure is
 * remembered as above.                                                   */
void kt_table_add_note(kt_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A footnote whose figures add up over ranks: fmt holds n (at most
 * KT_NOTE_COUNTS) "%lld" and no other conversion but "%%".  Tables of
 * single ranks concatenated (kt_tables_append) sum the counts of their
 * notes of one fmt, so a job mapped rank by rank (--stream-ranks) says
 * what one load of it says.                                              */
#define KT_NOTE_COUNTS 4
void kt_table_add_count_note(kt_table *t, const char *fmt, size_t n, const int64_t *counts);
/* A counted note's fmt and counts (false for a plain one). */
bool kt_table_note_counts(const kt_table *t, size_t i, const char **fmt, size_t *n, const int64_t **counts);
/* src's footnotes into dst: a counted note whose fmt dst has adds to it,
 * a plain note dst has already is not repeated, others are appended.   */
void kt_table_merge_notes(kt_table *dst, const kt_table *src);
/* Columns cols[0..k) (numeric) of rows [r0, r1) read as kt_table_floats
 * reads one, into dst[j][0 .. r1 - r0) (a column may be listed twice), a
 * few hundred rows at a time for every column: one walk over the
 * row-major cells from memory, where a call per column walks them all k
 * times (the report reads five columns of its million-row series, a
 * block of rows at a time).
 * KT_EUSAGE, nothing read, when a column is absent or a string column, or
 * the rows are not the table's.                                          */
kt_status kt_table_floats_rows(const kt_table *t, const size_t *cols, size_t k, size_t r0, size_t r1,
                               double *const *dst);
/* Overwrite one float cell of an existing row (lib/scale re-expresses
 * merged times); v must not be NaN.                                     */
void kt_table_put_float(kt_table *t, size_t row, size_t col, double v);

kt_tables *kt_tables_new(void);
/* kt_tables_find for the tables' owner, to add to a table (a footnote). */
kt_table *kt_tables_find_mut(kt_tables *ts, const char *name);
/* Takes ownership of t (frees it on failure). */
bool kt_tables_add(kt_tables *ts, kt_table *t);
/* Appends every row of src to dst (scale/table_concat.c); KT_EANALYSIS when
 * their columns differ (names, types, precision).                        */
kt_status kt_table_append_rows(kt_table *dst, const kt_table *src);
/* The usual end of an analysis: *out = a new list of tb[0..n), taking
 * ownership of them all; KT_ENOMEM (all freed) if any failed or is NULL.   */
kt_status kt_tables_from(kt_table **tb, size_t n, kt_tables **out);

/* The representation, here so that the setters above are inline: the long
 * tables (path edges, series, launches) set 10^5-10^6 cells, and a call per
 * cell was a tenth of what the report spends on top of the load.          */

/* A cell's value; whether it is null is kept apart, one byte per cell:
 * a 16-byte {value, flag} cell doubled the memory of the long tables
 * (series, paths) that the report holds side by side.                   */
typedef union kt_cell {
    int64_t i;
    double f;
    char *s;
} kt_cell;

typedef struct kt_column {
    char *name;
    kt_col_type type;
    int precision;
    const char *unit; /* a string literal, or NULL */
} kt_column;

/* String cells live in chunks owned by the table: one allocation per
 * 64 KiB of text instead of one per cell (tables of 10^5 rows with
 * several string columns spent most of their time in malloc).           */
typedef struct kt_chunk {
    struct kt_chunk *next;
    size_t used, cap;
    char text[];
} kt_chunk;

typedef struct kt_note {
    char *text;        /* the line as printed */
    char *fmt;         /* a counted note's format, else NULL */
    int64_t counts[KT_NOTE_COUNTS];
    size_t ncounts;
} kt_note;

struct kt_table {
    char *name;
    kt_column *cols;
    size_t ncols;
    kt_cell *vals;   /* row-major, nrows x ncols */
    uint8_t *nulls;  /* the same cells: 1 = null */
    size_t nrows, cap_rows;
    bool failed;
    kt_chunk *strings; /* newest first */
    kt_note *notes;    /* footnotes (table_notes.c) */
    size_t nnotes;
};

/* The out-of-line halves: room for more rows, their cells null (false: t
 * failed), and a string that does not fit the newest chunk put in cell i. */
bool kt_table_grow(kt_table *t);
void kt_table_put_str_slow(kt_table *t, size_t i, const char *s, size_t len);
void kt_table_free_notes(kt_table *t);

/* The cells past the last row are null already (kt_table_grow flags them
 * as it makes room): clearing each row's as it was added was a fortieth of
 * `kineta report`.                                                       */
static inline void kt_table_add_row(kt_table *t)
{
    if (t->failed || (t->nrows == t->cap_rows && !kt_table_grow(t))) return;
    t->nrows++;
}

/* The index of the last row's cell col, or SIZE_MAX (no row, failed). */
static inline size_t kt_table_last_cell(const kt_table *t, size_t col)
{
    if (t->failed || t->nrows == 0 || col >= t->ncols) return SIZE_MAX;
    return (t->nrows - 1) * t->ncols + col;
}

static inline void kt_table_set_int(kt_table *t, size_t col, int64_t v)
{
    size_t i = kt_table_last_cell(t, col);
    if (i == SIZE_MAX) return;
    t->vals[i].i = v;
    t->nulls[i] = 0;
}

static inline void kt_table_set_float(kt_table *t, size_t col, double v)
{
    size_t i = kt_table_last_cell(t, col);
    if (i == SIZE_MAX) return;
    t->vals[i].f = v;
    t->nulls[i] = v != v; /* NaN: null */
}

/* s (NULL: "") copied into cell i. */
static inline void kt_table_put_str(kt_table *t, size_t i, const char *s)
{
    if (!s) s = "";
    size_t len = strlen(s) + 1;
    kt_chunk *k = t->strings;
    if (!k || k->cap - k->used < len) {
        kt_table_put_str_slow(t, i, s, len);
        return;
    }
    t->vals[i].s = memcpy(k->text + k->used, s, len);
    k->used += len;
    t->nulls[i] = 0;
}

static inline void kt_table_set_str(kt_table *t, size_t col, const char *s)
{
    size_t i = kt_table_last_cell(t, col);
    if (i != SIZE_MAX) kt_table_put_str(t, i, s);
}

/* A row's cells, NULL when the table has failed (the setters then do
 * nothing).  Held by value, the two pointers stay in registers: a cell
 * store through the table may alias its own fields (an int64_t cell and
 * size_t nrows, a null flag and anything), so each kt_table_set_* has to
 * reload the table and recheck the row, three times the work per cell.   */
struct kt_row {
    kt_cell *v;
    uint8_t *null;
    size_t first; /* the index of its first cell */
};

static inline kt_row kt_table_row(kt_table *t)
{
    kt_table_add_row(t);
    if (t->failed) return (kt_row){ NULL, NULL, 0 };
    size_t first = (t->nrows - 1) * t->ncols;
    return (kt_row){ t->vals + first, t->nulls + first, first };
}

static inline void kt_row_int(kt_row r, size_t col, int64_t v)
{
    if (!r.v) return;
    r.v[col].i = v;
    r.null[col] = 0;
}

static inline void kt_row_float(kt_row r, size_t col, double v)
{
    if (!r.v) return;
    r.v[col].f = v;
    r.null[col] = v != v;
}

static inline void kt_row_str(kt_table *t, kt_row r, size_t col, const char *s)
{
    if (r.v) kt_table_put_str(t, r.first + col, s);
}

static inline void kt_row_str_of(const kt_table *t, kt_row r, size_t col, size_t row)
{
    if (!r.v) return;
    size_t i = row * t->ncols + col;
    r.v[col].s = t->vals[i].s;
    r.null[col] = t->nulls[i];
}

#endif
