/*
 * print_tables.c — rendering result tables as aligned text, CSV or JSON.
 *
 * Text is for people (every table, titled, columns aligned); CSV is one table
 * (--table) so it can be piped into other tools; JSON is one object with a
 * key per table, each an array of row objects keyed by column name.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void format_float(double v, int precision, char *buf, size_t n)
{
    if (!isfinite(v)) snprintf(buf, n, isnan(v) ? "" : v > 0 ? "inf" : "-inf");
    else if (precision >= 0) snprintf(buf, n, "%.*f", precision, v);
    else {
        snprintf(buf, n, "%.15g", v);  /* shortest form that round-trips */
        if (strtod(buf, NULL) != v) snprintf(buf, n, "%.17g", v);
    }
}

static void cell_text(const kt_table *t, size_t r, size_t c, char *buf, size_t n)
{
    if (kt_table_is_null(t, r, c)) { buf[0] = '\0'; return; }
    switch (kt_table_col_type(t, c)) {
    case KT_COL_INT: snprintf(buf, n, "%lld", (long long)kt_table_int(t, r, c)); break;
    case KT_COL_FLOAT: format_float(kt_table_float(t, r, c), kt_table_col_precision(t, c), buf, n); break;
    case KT_COL_STR: snprintf(buf, n, "%s", kt_table_str(t, r, c)); break;
    }
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

void print_cell(const kt_table *t, size_t row, size_t col, FILE *f, bool json)
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
    cell_text(t, row, col, buf, sizeof buf);
    fputs(buf, f);
}

void print_table_csv(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    for (size_t c = 0; c < nc; c++) fprintf(f, "%s%s", c ? "," : "", kt_table_col_name(t, c));
    fputc('\n', f);
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        for (size_t c = 0; c < nc; c++) {
            if (c) fputc(',', f);
            print_cell(t, r, c, f, false);
        }
        fputc('\n', f);
    }
}

void print_table_json(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t);
    fputc('[', f);
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        fputs(r ? ",\n  {" : "\n  {", f);
        for (size_t c = 0; c < nc; c++) {
            if (c) fputc(',', f);
            print_json_string(kt_table_col_name(t, c), f);
            fputc(':', f);
            print_cell(t, r, c, f, true);
        }
        fputc('}', f);
    }
    fputs(kt_table_nrows(t) ? "\n]" : "]", f);
}

/* Aligned text: numbers right-aligned, strings left-aligned; very long
 * strings are cut in the middle so a table stays readable.                */
#define TEXT_MAX 80
void print_table_text(const kt_table *t, FILE *f)
{
    size_t nc = kt_table_ncols(t), nr = kt_table_nrows(t);
    size_t *w = calloc(nc ? nc : 1, sizeof *w);
    if (!w) return;
    char buf[4096];
    for (size_t c = 0; c < nc; c++) w[c] = strlen(kt_table_col_name(t, c));
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++) {
            cell_text(t, r, c, buf, sizeof buf);
            size_t l = strlen(buf);
            if (l > TEXT_MAX) l = TEXT_MAX;
            if (l > w[c]) w[c] = l;
        }
    fprintf(f, "== %s (%zu rows)\n", kt_table_name(t), nr);
    for (size_t c = 0; c < nc; c++)
        fprintf(f, "%s%-*s", c ? "  " : "", (int)w[c], kt_table_col_name(t, c));
    fputc('\n', f);
    for (size_t r = 0; r < nr; r++) {
        for (size_t c = 0; c < nc; c++) {
            cell_text(t, r, c, buf, sizeof buf);
            size_t l = strlen(buf);
            if (l > TEXT_MAX) {  /* keep head and tail: both identify kernels */
                memmove(buf + TEXT_MAX / 2 - 1, "...", 3);
                memmove(buf + TEXT_MAX / 2 + 2, buf + l - (TEXT_MAX / 2 - 2), TEXT_MAX / 2 - 1);
            }
            bool left = kt_table_col_type(t, c) == KT_COL_STR;
            fprintf(f, "%s%*s", c ? "  " : "", left ? -(int)w[c] : (int)w[c], buf);
        }
        fputc('\n', f);
    }
    free(w);
}

int print_tables(const cli_ctx *ctx, const cli_command *cmd, const kt_tables *ts, FILE *f)
{
    size_t n = kt_tables_count(ts);
    if (ctx->format == FMT_CSV) {
        const kt_table *t = ctx->table ? kt_tables_find(ts, ctx->table) : kt_tables_get(ts, 0);
        if (t) print_table_csv(t, f);
        else if (ctx->table) {
            fprintf(stderr, "kineta %s: no table '%s'; tables:", cmd->name, ctx->table);
            for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", kt_table_name(kt_tables_get(ts, i)));
            fprintf(stderr, "\n");
            return 2;
        }
    } else if (ctx->format == FMT_JSON) {
        fputc('{', f);
        for (size_t i = 0; i < n; i++) {
            const kt_table *t = kt_tables_get(ts, i);
            fputs(i ? ",\n" : "\n", f);
            print_json_string(kt_table_name(t), f);
            fputs(": ", f);
            print_table_json(t, f);
        }
        fputs("\n}\n", f);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (i) fputc('\n', f);
            print_table_text(kt_tables_get(ts, i), f);
        }
    }
    return 0;
}
