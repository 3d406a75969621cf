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
#include "table/number_text.h"

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
 * its unit needs (-1: unknown); json: every digit.  Returns the length.  */
static size_t format_float(double v, int precision, int decimals, bool json, char *buf, size_t n)
{
    if (!isfinite(v)) snprintf(buf, n, isnan(v) ? "" : v > 0 ? "inf" : "-inf");
    else if (json) {
        snprintf(buf, n, "%.15g", v);  /* shortest form that round-trips */
        if (strtod(buf, NULL) != v) snprintf(buf, n, "%.17g", v);
    } else if (precision >= 0) {
        int digits = decimals >= 0 && decimals < precision ? decimals : precision;
        size_t len = n < KT_NUMBER_TEXT_MAX ? 0 : kt_fixed_text(buf, v, digits);
        if (len) return len;
        snprintf(buf, n, "%.*f", digits, v);
    } else {
        int digits = decimals >= 0 ? decimals : 6;
        if (n < KT_NUMBER_TEXT_MAX || !kt_fixed_text(buf, v, digits)) snprintf(buf, n, "%.*f", digits, v);
        strip_zeros(buf);
    }
    return strlen(buf);
}

/* decimals: unit_decimals of the column (found once per column by callers
 * printing many rows: it parses the column name).  Returns the length.   */
static size_t cell_text(const kt_table *t, size_t r, size_t c, int decimals, bool json, char *buf, size_t n)
{
    if (kt_table_is_null(t, r, c)) { buf[0] = '\0'; return 0; }
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT:
        if (n >= KT_NUMBER_TEXT_MAX) return kt_int_text(buf, kt_table_int(t, r, c));
        snprintf(buf, n, "%lld", (long long)kt_table_int(t, r, c));
        break;
    case KT_COL_FLOAT:
        return format_float(kt_table_float(t, r, c), kt_table_col_precision(t, c), decimals, json, buf, n);
    case KT_COL_STR: snprintf(buf, n, "%s", kt_table_str(t, r, c)); break;
    }
    return strlen(buf);
}

char *cell_display(const kt_table *t, size_t row, size_t col, int decimals)
{
    if (kt_table_col_type(t, col) == KT_COL_STR && !kt_table_is_null(t, row, col))
        return strdup(kt_table_str(t, row, col));
    char buf[64];
    cell_text(t, row, col, decimals, false, buf, sizeof buf);
    return strdup(buf);
}

/* Large tables are put together in a buffer and written 64 KiB at a time:
 * a stdio call per cell, each taking the stream's lock, cost more than
 * formatting the numbers (kineta queue's CSV: ~150 instructions per cell
 * in fputs alone).                                                        */
typedef struct out_buf {
    FILE *f;
    size_t n;
    char b[1 << 16];
} out_buf;

/* Only f and n: the 64 KiB are written before they are read (an
 * initializer would clear them on every call of print_json_string).      */
static void ob_start(out_buf *o, FILE *f)
{
    o->f = f;
    o->n = 0;
}

static void ob_flush(out_buf *o)
{
    if (o->n) fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

static void ob_write(out_buf *o, const char *s, size_t n)
{
    if (o->n + n > sizeof o->b) {
        ob_flush(o);
        if (n > sizeof o->b) {
            fwrite(s, 1, n, o->f);
            return;
        }
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
}

static void ob_puts(out_buf *o, const char *s) { ob_write(o, s, strlen(s)); }

static void ob_putc(out_buf *o, char c)
{
    if (o->n == sizeof o->b) ob_flush(o);
    o->b[o->n++] = c;
}

static void ob_json_string(out_buf *o, const char *s)
{
    ob_putc(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const unsigned char *plain = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\') p++;
        ob_write(o, (const char *)plain, (size_t)(p - plain));
        if (!*p) break;
        char esc[8];
        if (*p == '"' || *p == '\\') snprintf(esc, sizeof esc, "\\%c", *p);
        else if (*p == '\n') snprintf(esc, sizeof esc, "\\n");
        else if (*p == '\t') snprintf(esc, sizeof esc, "\\t");
        else snprintf(esc, sizeof esc, "\\u%04x", *p);
        ob_puts(o, esc);
    }
    ob_putc(o, '"');
}

void print_json_string(const char *s, FILE *f)
{
    out_buf o;
    ob_start(&o, f);
    ob_json_string(&o, s);
    ob_flush(&o);
}

static void ob_cell(out_buf *o, const kt_table *t, size_t row, size_t col, int decimals, bool json)
{
    char buf[64];
    if (kt_table_is_null(t, row, col)) { ob_puts(o, json ? "null" : ""); return; }
    if (kt_table_col_type(t, col) == KT_COL_STR) {
        const char *s = kt_table_str(t, row, col);
        if (json) ob_json_string(o, s);
        else if (strpbrk(s, ",\"\n\r")) {
            ob_putc(o, '"');
            for (; *s; s++) { if (*s == '"') ob_putc(o, '"'); ob_putc(o, *s); }
            ob_putc(o, '"');
        } else ob_puts(o, s);
        return;
    }
    if (json && kt_table_col_type(t, col) == KT_COL_FLOAT && !isfinite(kt_table_float(t, row, col))) {
        ob_puts(o, "null");
        return;
    }
    ob_write(o, buf, cell_text(t, row, col, decimals, json, buf, sizeof buf));
}

void print_cell(const kt_table *t, size_t row, size_t col, FILE *f, bool json)
{
    out_buf o;
    ob_start(&o, f);
    ob_cell(&o, t, row, col, unit_decimals(column_unit(t, col)), json);
    ob_flush(&o);
}

void print_table_csv(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    int *dec = malloc((nc ? nc : 1) * sizeof *dec);
    out_buf *o = malloc(sizeof *o);
    if (!dec || !o) {
        free(dec);
        free(o);
        return;
    }
    ob_start(o, f);
    for (size_t c = 0; c < nc; c++) {
        if (c) ob_putc(o, ',');
        ob_puts(o, kt_table_col_name(t, c));
        dec[c] = unit_decimals(column_unit(t, c));
    }
    ob_putc(o, '\n');
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c) ob_putc(o, ',');
            ob_cell(o, t, r, c, dec[c], false);
        }
        ob_putc(o, '\n');
    }
    ob_flush(o);
    free(o);
    free(dec);
}

void print_table_json_keys(const kt_table *t, bool hta_names, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    char (*keys)[128] = calloc(nc ? nc : 1, sizeof *keys);
    out_buf *o = malloc(sizeof *o);
    if (!keys || !o) {
        free(keys);
        free(o);
        fputs("null", f);
        return;
    }
    ob_start(o, f);
    for (size_t c = 0; c < nc; c++) column_json_key(t, c, hta_names, keys[c], sizeof keys[c]);
    ob_putc(o, '[');
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        ob_puts(o, r ? ",\n  {" : "\n  {");
        for (size_t c = 0; c < nc; c++) {
            if (c) ob_putc(o, ',');
            ob_json_string(o, keys[c]);
            ob_putc(o, ':');
            ob_cell(o, t, r, c, -1, true); /* json: every digit, decimals unused */
        }
        ob_putc(o, '}');
    }
    ob_puts(o, kt_table_nrows(t) ? "\n]" : "]");
    ob_flush(o);
    free(o);
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
