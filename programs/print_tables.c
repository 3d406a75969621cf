/*
 * print_tables.c — rendering result tables as aligned text, CSV or JSON.
 *
 * Text is for people (every table, titled, fitted to the terminal:
 * text_table.c, summaries first: tables_shown.c); CSV is one table (--table) so it can be piped into other
 * tools; JSON is one object with a key per table, each an array of row
 * objects keyed by column.  Text rounds numbers to what their unit needs
 * (column_labels.c); CSV and JSON, read by programs, keep every digit
 * (the shortest decimal that reads back to the same double).
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
 * its unit needs (-1: unknown); exact: every digit (csv, json), precision
 * and decimals unused.  Returns the length.                               */
static size_t format_float(double v, int precision, int decimals, bool exact, char *buf, size_t n)
{
    if (!isfinite(v)) snprintf(buf, n, isnan(v) ? "" : v > 0 ? "inf" : "-inf");
    else if (exact) {
        if (n >= KT_NUMBER_TEXT_MAX) return kt_shortest_text(buf, v);
        snprintf(buf, n, "%.17g", v);
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
static size_t cell_text(const kt_table *t, size_t r, size_t c, int decimals, bool exact, char *buf, size_t n)
{
    if (kt_table_is_null(t, r, c)) { buf[0] = '\0'; return 0; }
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT:
        if (n >= KT_NUMBER_TEXT_MAX) return kt_int_text(buf, kt_table_int(t, r, c));
        snprintf(buf, n, "%lld", (long long)kt_table_int(t, r, c));
        break;
    case KT_COL_FLOAT:
        return format_float(kt_table_float(t, r, c), kt_table_col_precision(t, c), decimals, exact, buf, n);
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

/* A cell as the machine formats write it: every digit; json: its syntax
 * (null, escaped strings), else csv's (empty, quoted strings).           */
static void ob_cell(out_buf *o, const kt_table *t, size_t row, size_t col, bool json)
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
    ob_write(o, buf, cell_text(t, row, col, -1, true, buf, sizeof buf));
}

void print_cell(const kt_table *t, size_t row, size_t col, FILE *f, bool json)
{
    out_buf o;
    ob_start(&o, f);
    ob_cell(&o, t, row, col, json);
    ob_flush(&o);
}

void print_table_csv(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    out_buf *o = malloc(sizeof *o);
    if (!o) return;
    ob_start(o, f);
    for (size_t c = 0; c < nc; c++) {
        if (c) ob_putc(o, ',');
        ob_puts(o, kt_table_col_name(t, c));
    }
    ob_putc(o, '\n');
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c) ob_putc(o, ',');
            ob_cell(o, t, r, c, false);
        }
        ob_putc(o, '\n');
    }
    ob_flush(o);
    free(o);
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
            ob_cell(o, t, r, c, true);
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

/* CSV has no place for them: on stderr, naming the table (-q: none). */
static void print_notes_stderr(const cli_ctx *ctx, const kt_table *t)
{
    for (size_t i = 0; !ctx->quiet && i < kt_table_nnotes(t); i++)
        fprintf(stderr, "kineta: note: %s: %s\n", kt_table_name(t), kt_table_note(t, i));
}

/* JSON: "footnotes": {"table": ["...", ...]} after the tables, when any
 * printed table has some (no table is named "footnotes").               */
static void print_notes_json(const cli_ctx *ctx, const kt_tables *ts, FILE *f)
{
    bool first = true;
    for (size_t i = 0; i < kt_tables_count(ts); i++) {
        const kt_table *t = kt_tables_get(ts, i);
        if ((ctx->table && strcmp(ctx->table, kt_table_name(t))) || !kt_table_nnotes(t)) continue;
        fputs(first ? ",\n\"footnotes\": {" : ",", f);
        first = false;
        print_json_string(kt_table_name(t), f);
        fputs(": [", f);
        for (size_t k = 0; k < kt_table_nnotes(t); k++) {
            if (k) fputc(',', f);
            print_json_string(kt_table_note(t, k), f);
        }
        fputc(']', f);
    }
    if (!first) fputc('}', f);
}

/* Whether t is printed in json: every table, or only the one --table names. */
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
        if (t) note_tables_left_out(ctx, cmd, ts, t);
        if (t) print_notes_stderr(ctx, t);
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
        print_notes_json(ctx, ts, f);
        fputs("\n}\n", f);
    } else {
        print_tables_text(ctx, cmd, ts, f);
    }
    return 0;
}
