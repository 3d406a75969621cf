/* oracle.c — see oracle.h. */
#include "oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kt_trace *kt_test_load(const char *path, bool hta_compat)
{
    kt_load_options o = { .hta_compat = hta_compat };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    if (kt_load(&path, 1, &o, &t, &fail) != KT_OK) {
        kt_test_fail(__FILE__, __LINE__, "cannot load %s", path);
        kt_diags_free(fail);
    }
    return t;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            buf = nb;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

/* Next field at *p (quoted or not), unquoted in place; sets *eol at the
 * end of a line.                                                           */
static char *field(char **p, int *eol)
{
    char *s = *p, *out = s, *start = s;
    if (*s == '"') {
        for (s++; *s; s++) {
            if (*s == '"' && s[1] == '"') { *out++ = '"'; s++; }
            else if (*s == '"') { s++; break; }
            else *out++ = *s;
        }
    } else {
        while (*s && *s != ',' && *s != '\n' && *s != '\r') *out++ = *s++;
    }
    if (*s == '\r') s++;
    *eol = *s == '\n' || !*s;
    if (*s) s++;
    *out = '\0';
    *p = s;
    return start;
}

kt_csv *kt_csv_read(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text) return NULL;
    kt_csv *c = calloc(1, sizeof *c);
    char **cells = malloc((len + 2) * sizeof *cells); /* at most one field per byte */
    if (!c || !cells) { free(c); free(cells); free(text); return NULL; }
    char *p = text;
    size_t n = 0, ncols = 0;
    int eol = 0;
    while (*p && !eol) cells[ncols++] = field(&p, &eol);
    n = ncols;
    while (*p) {
        size_t k = 0;
        eol = 0;
        while (*p && !eol) { cells[n++] = field(&p, &eol); k++; }
        if (k != ncols) n -= k; /* blank or ragged line: dropped */
    }
    c->text = text;
    c->header = cells;
    c->cells = cells + ncols;
    c->ncols = ncols;
    c->nrows = ncols ? (n - ncols) / ncols : 0;
    return c;
}

void kt_csv_free(kt_csv *c)
{
    if (!c) return;
    free(c->text);
    free(c->header);
    free(c);
}

long kt_csv_col(const kt_csv *c, const char *name)
{
    for (size_t i = 0; i < c->ncols; i++)
        if (!strcmp(c->header[i], name)) return (long)i;
    return -1;
}

const char *kt_csv_str(const kt_csv *c, size_t row, size_t col) { return c->cells[row * c->ncols + col]; }

double kt_csv_num(const kt_csv *c, size_t row, size_t col)
{
    const char *s = kt_csv_str(c, row, col);
    return *s ? strtod(s, NULL) : NAN;
}
