/*
 * oracle.h — what oracle tests need: loading a trace and reading the
 * reference tools' CSV outputs.
 *
 * Oracle tests compare our tables with HTA's / TraceLens's CSV files
 * (pandas to_csv: a header row, RFC 4180 quoting for names with commas).
 */
#ifndef KT_ORACLE_H
#define KT_ORACLE_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>

/* kt_load of one path; NULL (and a test failure) when it fails. */
kt_trace *kt_test_load(const char *path, bool hta_compat);

typedef struct kt_csv {
    char **header;
    char **cells; /* row-major, nrows × ncols */
    size_t nrows, ncols;
    char *text; /* the file, fields unquoted in place */
} kt_csv;

/* NULL when the file is absent or unreadable. */
kt_csv *kt_csv_read(const char *path);
void kt_csv_free(kt_csv *c);
/* Column index by header name, or -1. */
long kt_csv_col(const kt_csv *c, const char *name);
const char *kt_csv_str(const kt_csv *c, size_t row, size_t col);
/* The cell as a number; NaN when empty. */
double kt_csv_num(const kt_csv *c, size_t row, size_t col);

#endif
