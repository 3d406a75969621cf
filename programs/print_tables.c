/*
 * print_tables.c — rendering result tables as aligned text, CSV or JSON.
 *
 * Text is for people (every table, titled, fitted to the terminal:
 * text_table.c); CSV is one table (--table) so it can be piped into other
 * tools; JSON is one object with a key per table, each an array of row
 * objects keyed by column.  Text and CSV round numbers to what their unit
 * needs (column_labels.c); JSON keeps every digit.
 */
#include "cli.h"
#include "column_labels.h"
#include "output/number_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "1.500" -> "1.5", "2.000" -> "2", "-0.000" -> "0". */
static void strip_zeros(char *buf)
{
    char *dot = strchr(buf, '.');
    if (!dot) return;
    char *end = buf + strlen(buf);
    while (end > dot + 1 && end[-1] == '0') *--end = '\0';
    if (end == dot + 1) *dot = '\0';
    if (!strcmp(buf, "-0")) strcpy(buf, "0");
}

/* precision: the column's digits (-1: as many as needed); decimals: what
 * its unit needs (-1: unknown); json: every digit.                        */
static void format_float(double v, int precision, int decimals, bool json, char *buf, size_t n)
{
    if (!isfinite(v)) snprintf(buf, n, isnan(v) ? "" : v > 0 ? "inf" : "-inf");
    else if (json) {
        snprintf(buf, n, "%.15g", v);  /* shortest form that round-trips */
        if (strtod(buf, NULL) != v) snprintf(buf, n, "%.17g", v);
    } else if (precision >= 0) {
        int digits = decimals >= 0 && decimals < precision ? decimals : precision;
        if (n < KT_NUMBER_TEXT_MAX || !kt_fixed_text(buf, v, digits)) snprintf(buf, n, "%.*f", digits, v);
    } else {
        int digits = decimals >= 0 ? decimals : 6;
        if (n < KT_NUMBER_TEXT_MAX || !kt_fixed_text(buf, v, digits)) snprintf(buf, n, "%.*f", digits, v);
        strip_zeros(buf);
    }
}

/* decimals: unit_decimals of the column (found once per column by callers
 * printing many rows: it parses the column name).                         */
static void cell_text(const kt_table *t, size_t r, size_t c, int decimals, bool json, char *buf, size_t n)
{
    if (kt_table_is_null(t, r, c)) { buf[0] = '\0'; return; }
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT:
        if (n >= KT_NUMBER_TEXT_MAX) kt_int_text(buf, kt_table_int(t, r, c));
        else snprintf(buf, n, "%lld", (long long)kt_table_int(t, r, c));
        break;
    case KT_COL_FLOAT:
        format_float(kt_table_float(t, r, c), kt_table_col_precision(t, c), decimals, json, buf, n);
        break;
    case KT_COL_STR: snprintf(buf, n, "%s", kt_table_str(t, r, c)); break;
    }
}

char *cell_display(const kt_table *t, size_t row, size_t col, int decimals)
{
    if (kt_table_col_type(t, col) == KT_COL_STR && !kt_table_is_null(t, row, col))
        return strdup(kt_table_str(t, row, col));
    char buf[64];
    cell_text(t, row, col, decimals, false, buf, sizeof buf);
    return strdup(buf);
}

void print_json_string(const char *s, FILE *f)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void print_cell_d(const kt_table *t, size_t row, size_t col, int decimals, FILE *f, bool json)
{
    char buf[64];
    if (kt_table_is_null(t, row, col)) { fputs(json ? "null" : "", f); return; }
    if (kt_table_col_type(t, col) == KT_COL_STR) {
        const char *s = kt_table_str(t, row, col);
        if (json) print_json_string(s, f);
        else if (strpbrk(s, ",\"\n\r")) {
            fputc('"', f);
            for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
            fputc('"', f);
        } else fputs(s, f);
        return;
    }
    if (json && kt_table_col_type(t, col) == KT_COL_FLOAT && !isfinite(kt_table_float(t, row, col))) {
        fputs("null", f);
        return;
    }
    cell_text(t, row, col, decimals, json, buf, sizeof buf);
    fputs(buf, f);
}

void print_cell(const kt_table *t, size_t row, size_t col, FILE *f, bool json)
{
    print_cell_d(t, row, col, unit_decimals(column_unit(t, col)), f, json);
}

void print_table_csv(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    int *dec = malloc((nc ? nc : 1) * sizeof *dec);
    if (!dec) return;
    for (size_t c = 0; c < nc; c++) {
        fprintf(f, "%s%s", c ? "," : "", kt_table_col_name(t, c));
        dec[c] = unit_decimals(column_unit(t, c));
    }
    fputc('\n', f);
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c) fputc(',', f);
            print_cell_d(t, r, c, dec[c], f, false);
        }
        fputc('\n', f);
    }
    free(dec);
}

void print_table_json_keys(const kt_table *t, bool hta_names, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    char (*keys)[128] = calloc(nc ? nc : 1, sizeof *keys);
    if (!keys) { fputs("null", f); return; }
    for (size_t c = 0; c < nc; c++) column_json_key(t, c, hta_names, keys[c], sizeof keys[c]);
    fputc('[', f);
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        fputs(r ? ",\n  {" : "\n  {", f);
        for (size_t c = 0; c < nc; c++) {
            if (c) fputc(',', f);
            print_json_string(keys[c], f);
            fputc(':', f);
            print_cell_d(t, r, c, -1, f, true); /* json: every digit, decimals unused */
        }
        fputc('}', f);
    }
    fputs(kt_table_nrows(t) ? "\n]" : "]", f);
    free(keys);
}

void print_table_json(const kt_table *t, FILE *f)
{
    print_table_json_keys(t, false, f);
}

void print_table_text(const kt_table *t, FILE *f)
{
    text_style st = { .width = terminal_width(f) };
    print_table_text_styled(t, &st, f);
}

/* Whether t is printed: every table, or only the one --table names. */
static bool wanted(const cli_ctx *ctx, const kt_table *t)
{
    return !ctx->table || !strcmp(ctx->table, kt_table_name(t));
}

int print_tables(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, FILE *f)
{
    size_t n = kt_tables_count(ts);
    if (ctx->table && !kt_tables_find(ts, ctx->table)) {
        fprintf(stderr, "kineta %s: no table '%s'; tables:", cmd->name, ctx->table);
        for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", kt_table_name(kt_tables_get(ts, i)));
        fprintf(stderr, "\n");
        return 2;
    }
    if (ctx->format == FMT_CSV) {
        const kt_table *t = ctx->table ? kt_tables_find(ts, ctx->table) : kt_tables_get(ts, 0);
        if (t) print_table_csv(t, f);
    } else if (ctx->format == FMT_JSON) {
        bool first = true;
        fputc('{', f);
        for (size_t i = 0; i < n; i++) {
            const kt_table *t = kt_tables_get(ts, i);
            if (!wanted(ctx, t)) continue;
            fputs(first ? "\n" : ",\n", f);
            first = false;
            print_json_string(kt_table_name(t), f);
            fputs(": ", f);
            print_table_json_keys(t, ctx->hta_compat, f);
        }
        fputs("\n}\n", f);
    } else {
        text_style st = text_style_for(ctx, f);
        bool first = true;
        for (size_t i = 0; i < n; i++) {
            const kt_table *t = kt_tables_get(ts, i);
            if (!wanted(ctx, t)) continue;
            if (!first) fputc('\n', f);
            first = false;
            print_table_text_styled(t, &st, f);
        }
    }
    return 0;
}
