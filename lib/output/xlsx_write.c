/*
 * xlsx_write.c — kt_tables as an Excel workbook (why: xlsx_write.h).
 *
 * libxlsxwriter streams each sheet (constant_memory: one row held at a
 * time), so the column widths, which precede the rows in the file, are
 * measured in a first pass over the cells.
 */
#include "output/xlsx_write.h"
#include "output/sqlite_target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#define WIDTH_MAX 80.0

typedef struct sheet_src {
    const kt_table *const *parts; /* one per set */
    const int *ranks;
    size_t n;
    size_t lead; /* 1: a rank column first */
} sheet_src;

/* The characters a cell shows: its text, or the number as libxlsxwriter
 * writes it (16 significant digits).                                     */
static size_t cell_width(const kt_table *t, size_t r, size_t c)
{
    char buf[48];
    if (kt_table_is_null(t, r, c)) return 0;
    switch (kt_table_col_type(t, c)) {
    case KT_COL_STR: return strlen(kt_table_str(t, r, c));
    case KT_COL_INT: return (size_t)snprintf(buf, sizeof buf, "%lld", (long long)kt_table_int(t, r, c));
    default: return (size_t)snprintf(buf, sizeof buf, "%.16G", kt_table_float(t, r, c));
    }
}

/* Each column as wide as its header or widest cell, plus a margin. */
static void set_widths(lxw_worksheet *ws, const sheet_src *s)
{
    const kt_table *t0 = s->parts[0];
    if (s->lead) worksheet_set_column(ws, 0, 0, 6, NULL);
    for (size_t c = 0; c < kt_table_ncols(t0); c++) {
        size_t w = strlen(kt_table_col_name(t0, c));
        for (size_t i = 0; i < s->n; i++)
            for (size_t r = 0; r < kt_table_nrows(s->parts[i]); r++) {
                size_t cw = cell_width(s->parts[i], r, c);
                if (cw > w) w = cw;
            }
        double width = (double)w + 2 > WIDTH_MAX ? WIDTH_MAX : (double)w + 2;
        worksheet_set_column(ws, (lxw_col_t)(c + s->lead), (lxw_col_t)(c + s->lead), width, NULL);
    }
}

static lxw_error write_cell(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, const kt_table *t, size_t r, size_t c)
{
    if (kt_table_is_null(t, r, c)) return LXW_NO_ERROR;
    switch (kt_table_col_type(t, c)) {
    case KT_COL_STR: return worksheet_write_string(ws, row, col, kt_table_str(t, r, c), NULL);
    case KT_COL_INT: return worksheet_write_number(ws, row, col, (double)kt_table_int(t, r, c), NULL);
    default: return worksheet_write_number(ws, row, col, kt_table_float(t, r, c), NULL);
    }
}

/* Header, then every part's rows; the first libxlsxwriter error. */
static lxw_error write_rows(lxw_worksheet *ws, const sheet_src *s, lxw_format *bold)
{
    const kt_table *t0 = s->parts[0];
    size_t ncols = kt_table_ncols(t0);
    lxw_error e = s->lead ? worksheet_write_string(ws, 0, 0, "rank", bold) : LXW_NO_ERROR;
    for (size_t c = 0; c < ncols && !e; c++)
        e = worksheet_write_string(ws, 0, (lxw_col_t)(c + s->lead), kt_table_col_name(t0, c), bold);
    lxw_row_t row = 1;
    for (size_t i = 0; i < s->n && !e; i++)
        for (size_t r = 0; r < kt_table_nrows(s->parts[i]) && !e; r++, row++) {
            if (s->lead) e = worksheet_write_number(ws, row, 0, s->ranks[i], NULL);
            for (size_t c = 0; c < ncols && !e; c++)
                e = write_cell(ws, row, (lxw_col_t)(c + s->lead), s->parts[i], r, c);
        }
    worksheet_freeze_panes(ws, 1, 0);
    if (!e && ncols) e = worksheet_autofilter(ws, 0, 0, row - 1, (lxw_col_t)(ncols + s->lead - 1));
    return e;
}

/* The sheet of table name: its part in every set, which must have the
 * first set's columns.                                                   */
static kt_status write_sheet(lxw_workbook *wb, lxw_format *bold, const char *name, const kt_tables *const *sets,
                             const int *ranks, size_t n, char *err, size_t errlen)
{
    const kt_table **parts = malloc(n * sizeof *parts);
    if (!parts) return KT_ENOMEM;
    size_t nrows = 0;
    for (size_t i = 0; i < n; i++) {
        parts[i] = kt_tables_find(sets[i], name);
        if (!parts[i] || kt_table_ncols(parts[i]) != kt_table_ncols(parts[0])) {
            snprintf(err, errlen, "table %s differs between ranks", name);
            free(parts);
            return KT_EUSAGE;
        }
        nrows += kt_table_nrows(parts[i]);
    }
    kt_status st = KT_OK;
    lxw_worksheet *ws = nrows < LXW_ROW_MAX ? workbook_add_worksheet(wb, name) : NULL;
    if (!ws) {
        snprintf(err, errlen, "table %s (%zu rows) does not fit an Excel sheet", name, nrows);
        st = KT_EINPUT;
    } else {
        sheet_src s = { parts, ranks, n, n > 1 };
        set_widths(ws, &s);
        lxw_error e = write_rows(ws, &s, bold);
        if (e) {
            snprintf(err, errlen, "sheet %s: %s", name, lxw_strerror(e));
            st = KT_EINPUT;
        }
    }
    free(parts);
    return st;
}

/* Every sheet into the workbook at tmp. */
static kt_status write_book(const char *tmp, const kt_tables *const *sets, const int *ranks, size_t n, char *err,
                            size_t errlen)
{
    lxw_workbook_options opt = { .constant_memory = LXW_TRUE, .tmpdir = NULL };
    lxw_workbook *wb = workbook_new_opt(tmp, &opt);
    if (!wb) {
        snprintf(err, errlen, "cannot create %s", tmp);
        return KT_EINPUT;
    }
    lxw_format *bold = workbook_add_format(wb);
    format_set_bold(bold);
    kt_status st = KT_OK;
    for (size_t k = 0; k < kt_tables_count(sets[0]) && st == KT_OK; k++)
        st = write_sheet(wb, bold, kt_table_name(kt_tables_get(sets[0], k)), sets, ranks, n, err, errlen);
    lxw_error e = workbook_close(wb);
    if (st == KT_OK && e) {
        snprintf(err, errlen, "writing %s: %s", tmp, lxw_strerror(e));
        st = KT_EINPUT;
    }
    return st;
}

kt_status kt_xlsx_write(const char *path, const kt_tables *const *sets, const int *ranks, size_t n, char *err,
                        size_t errlen)
{
    char *tmp = NULL;
    if (n == 0) return KT_EUSAGE;
    kt_status st = sqlite_target_begin(path, &tmp, err, errlen);
    if (st != KT_OK) return st;
    st = write_book(tmp, sets, ranks, n, err, errlen);
    if (st == KT_OK && rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        st = KT_EINPUT;
    }
    if (st != KT_OK) remove(tmp);
    free(tmp);
    return st;
}
