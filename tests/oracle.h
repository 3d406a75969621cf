/*
 * oracle.h — comparing against HTA's and TraceLens's outputs in ../shared.
 *
 * Oracle tests read reference CSVs and load the matching real traces; these
 * helpers keep that plumbing (CSV quoting, oracle dir → trace path) in one
 * place.  Every function returns NULL when ../shared is absent or a file is
 * missing, so callers NEED_SHARED() first.
 */
#ifndef KT_ORACLE_H
#define KT_ORACLE_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>

/* A CSV file read whole (RFC 4180 quoting): rows of fields, row 0 = header. */
typedef struct fx_csv {
    char ***row;
    size_t *ncols;
    size_t nrows;
} fx_csv;

/* path relative to the shared dir; NULL if absent or unreadable. */
fx_csv *fx_csv_read(const char *rel);
void fx_csv_free(fx_csv *c);
/* Column index of a header name, or -1. */
long fx_csv_col(const fx_csv *c, const char *name);
/* Field (row >= 1 for data) of column name; "" when missing. */
const char *fx_csv_get(const fx_csv *c, size_t row, const char *name);

/* The trace (relative to the shared dir) HTA ran on for oracle/hta/<dir>
 * (mapping in ../shared/oracle/README.md), or NULL.                       */
const char *fx_hta_trace(const char *oracle_dir);
/* Load a trace relative to the shared dir; NULL on failure (a failed CHECK). */
kt_trace *fx_load_shared(const char *rel, bool hta_compat);
/* The same for any path (e.g. a trace a test wrote). */
kt_trace *fx_load_path(const char *path, bool hta_compat);
/* fx_load_shared, but loaded once per test run and shared by every test
 * asking for the same (rel, hta_compat): oracle tests of several analyses
 * read the same large traces.  Freed at exit; do not free or modify it.    */
const kt_trace *fx_shared_trace(const char *rel, bool hta_compat);

/* Every *.json and *.gz file under ../shared/traces, sorted; *n gets the
 * count.  Free with fx_free_paths.                                        */
char **fx_shared_trace_files(size_t *n);
void fx_free_paths(char **paths, size_t n);

#endif
