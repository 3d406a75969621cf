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
static void set_widths(lxw_worksheet *ws, const kt_table *t)
{
    for (size_t c = 0; c < kt_table_ncols(t); c++) {
        size_t w = strlen(kt_table_col_name(t, c));
        for (size_t r = 0; r < kt_table_nrows(t); r++) {
            size_t cw = cell_width(t, r, c);
            if (cw > w) w = cw;
        }
        double width = (double)w + 2 > WIDTH_MAX ? WIDTH_MAX : (double)w + 2;
        worksheet_set_column(ws, (lxw_col_t)c, (lxw_col_t)c, width, NULL);
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

/* Header, then the rows; the first libxlsxwriter error. */
static lxw_error write_rows(lxw_worksheet *ws, const kt_table *t, lxw_format *bold)
{
    size_t ncols = kt_table_ncols(t);
    lxw_error e = LXW_NO_ERROR;
    for (size_t c = 0; c < ncols && !e; c++) e = worksheet_write_string(ws, 0, (lxw_col_t)c, kt_table_col_name(t, c), bold);
    for (size_t r = 0; r < kt_table_nrows(t) && !e; r++)
        for (size_t c = 0; c < ncols && !e; c++) e = write_cell(ws, (lxw_row_t)(r + 1), (lxw_col_t)c, t, r, c);
    worksheet_freeze_panes(ws, 1, 0);
    if (!e && ncols) e = worksheet_autofilter(ws, 0, 0, (lxw_row_t)kt_table_nrows(t), (lxw_col_t)(ncols - 1));
    return e;
}

static kt_status write_sheet(lxw_workbook *wb, lxw_format *bold, const kt_table *t, char *err, size_t errlen)
{
    const char *name = kt_table_name(t);
    lxw_worksheet *ws = kt_table_nrows(t) < LXW_ROW_MAX ? workbook_add_worksheet(wb, name) : NULL;
    if (!ws) {
        snprintf(err, errlen, "table %s (%zu rows) does not fit an Excel sheet", name, kt_table_nrows(t));
        return KT_EINPUT;
    }
    set_widths(ws, t);
    lxw_error e = write_rows(ws, t, bold);
    if (e) {
        snprintf(err, errlen, "sheet %s: %s", name, lxw_strerror(e));
        return KT_EINPUT;
    }
    return KT_OK;
}

/* Every sheet into the workbook at tmp. */
static kt_status write_book(const char *tmp, const kt_tables *ts, char *err, size_t errlen)
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
    for (size_t k = 0; k < kt_tables_count(ts) && st == KT_OK; k++)
        st = write_sheet(wb, bold, kt_tables_get(ts, k), err, errlen);
    lxw_error e = workbook_close(wb);
    if (st == KT_OK && e) {
        snprintf(err, errlen, "writing %s: %s", tmp, lxw_strerror(e));
        st = KT_EINPUT;
    }
    return st;
}

kt_status kt_xlsx_write(const char *path, const kt_tables *ts, char *err, size_t errlen)
{
    char *tmp = NULL;
    kt_status st = sqlite_target_begin(path, &tmp, err, errlen);
    if (st != KT_OK) return st;
    st = write_book(tmp, ts, err, errlen);
    if (st == KT_OK && rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        st = KT_EINPUT;
    }
    if (st != KT_OK) remove(tmp);
    free(tmp);
    return st;
}
