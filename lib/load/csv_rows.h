/*
 * csv_rows.h — rows of a CSV text in memory (RFC 4180: quoted fields,
 * doubled quotes, CRLF or LF), with columns found by header name.
 *
 * Profilers' CSV outputs change their column sets between versions
 * (rocprofv3 adds Stream_Id, renames LDS_Block_Size to Lds_Block_Size,
 * prepends a GUID): readers look columns up by name, case-insensitively,
 * never by position.
 */
#ifndef KT_CSV_ROWS_H
#define KT_CSV_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KT_CSV_MAX_FIELDS 64

typedef struct kt_csv_field {
    const char *s;
    size_t n;
} kt_csv_field;

typedef struct kt_csv {
    const char *p, *end;
    kt_csv_field f[KT_CSV_MAX_FIELDS];
    size_t nf;                 /* fields of the current row               */
    kt_csv_field head[KT_CSV_MAX_FIELDS];
    size_t nhead;
    char *scratch;             /* the current row's fields that had quotes inside, unquoted */
    char *head_text;           /* the header's names                      */
    size_t cap;
    uint64_t line;             /* the current row's line number (1: header) */
    bool oom;
} kt_csv;

/* Start on text[0..len) and read its header row (false: no header). */
bool kt_csv_open(kt_csv *c, const char *text, size_t len);
void kt_csv_close(kt_csv *c);
/* The next data row into c->f (false at the end). */
bool kt_csv_next(kt_csv *c);
/* The same, reading only the row's first ncols fields (the others read
 * as ""): a cheaper pass for a column near the start of long rows.     */
bool kt_csv_next_cols(kt_csv *c, size_t ncols);
/* Column of the first of the names (a NULL-terminated list) present, or -1. */
int kt_csv_col(const kt_csv *c, const char *const *names);
/* Field col of the current row ("" when col < 0 or past the row). */
kt_csv_field kt_csv_get(const kt_csv *c, int col);
/* An integer field; "Agent 4" style text reads as its trailing number. */
bool kt_csv_int(const kt_csv *c, int col, int64_t *out);

#endif
