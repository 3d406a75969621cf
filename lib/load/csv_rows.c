/*
 * csv_rows.c — CSV rows in memory, columns by header name (csv_rows.h).
 *
 * Each row is copied into one buffer with quotes removed (and doubled
 * quotes undoubled), its fields pointing into it: rows are short, and a
 * field's text is then always plain.
 */
#include "csv_rows.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The end of the row starting at p, outside quotes (its '\n', or end):
 * each line up to a '\n' is found by memchr, and ends the row when the
 * row's quotes so far are balanced.                                     */
static const char *row_end(const char *p, const char *end)
{
    bool quoted = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        size_t quotes = 0;
        for (const char *q = p; q < nl; q++) quotes += *q == '"';
        quoted ^= quotes & 1;
        if (!quoted) return nl;
        p = nl + 1;
    }
    return end;
}

/* Room in the scratch buffer for a row of n bytes. */
static bool scratch_room(kt_csv *c, size_t n)
{
    if (n <= c->cap) return true;
    char *s = realloc(c->scratch, n);
    if (!s) {
        c->oom = true;
        return false;
    }
    c->scratch = s;
    c->cap = n;
    return true;
}

/* The row's first max fields, unquoted into the scratch buffer; the
 * rest of the row is skipped.                                          */
static bool read_row(kt_csv *c, kt_csv_field *out, size_t *nout, size_t max)
{
    if (c->p >= c->end) return false;
    const char *p = c->p, *e = row_end(p, c->end);
    if (!scratch_room(c, (size_t)(e - p) + 1)) return false;
    char *o = c->scratch;
    size_t nf = 0;
    c->line++;
    for (;;) {
        char *start = o;
        bool quoted = false;
        for (; p < e; p++) {
            if (*p == '"') {
                if (quoted && p + 1 < e && p[1] == '"') *o++ = *p++;
                else quoted = !quoted;
            } else if (*p == ',' && !quoted) {
                break;
            } else {
                *o++ = *p;
            }
        }
        size_t n = (size_t)(o - start);
        if (n && start[n - 1] == '\r' && p >= e) n--;
        if (nf < KT_CSV_MAX_FIELDS) out[nf++] = (kt_csv_field){ start, n };
        if (p >= e || nf >= max) break;
        p++; /* the ',' */
    }
    c->p = e < c->end ? e + 1 : e;
    *nout = nf;
    return true;
}

bool kt_csv_open(kt_csv *c, const char *text, size_t len)
{
    *c = (kt_csv){ .p = text, .end = text + len };
    if (!read_row(c, c->head, &c->nhead, KT_CSV_MAX_FIELDS)) return false;
    /* the header outlives the rows: give it its own copy */
    size_t total = 0;
    for (size_t i = 0; i < c->nhead; i++) total += c->head[i].n + 1;
    char *h = malloc(total ? total : 1);
    if (!h) {
        c->oom = true;
        c->nhead = 0;
        return false;
    }
    c->head_text = h;
    for (size_t i = 0; i < c->nhead; i++) {
        memcpy(h, c->head[i].s, c->head[i].n);
        h[c->head[i].n] = '\0';
        c->head[i].s = h;
        h += c->head[i].n + 1;
    }
    return c->nhead > 0;
}

void kt_csv_close(kt_csv *c)
{
    free(c->scratch);
    free(c->head_text);
    c->scratch = c->head_text = NULL;
}

bool kt_csv_next_cols(kt_csv *c, size_t ncols)
{
    while (read_row(c, c->f, &c->nf, ncols ? ncols : 1))
        if (!(c->nf == 1 && c->f[0].n == 0)) return true; /* blank lines */
    return false;
}

bool kt_csv_next(kt_csv *c) { return kt_csv_next_cols(c, KT_CSV_MAX_FIELDS); }

int kt_csv_col(const kt_csv *c, const char *const *names)
{
    for (; *names; names++)
        for (size_t i = 0; i < c->nhead; i++)
            if (c->head[i].n == strlen(*names) && !strncasecmp(c->head[i].s, *names, c->head[i].n)) return (int)i;
    return -1;
}

kt_csv_field kt_csv_get(const kt_csv *c, int col)
{
    if (col < 0 || (size_t)col >= c->nf) return (kt_csv_field){ "", 0 };
    return c->f[col];
}

bool kt_csv_int(const kt_csv *c, int col, int64_t *out)
{
    kt_csv_field f = kt_csv_get(c, col);
    size_t i = f.n;
    while (i > 0 && f.s[i - 1] >= '0' && f.s[i - 1] <= '9') i--;
    if (i == f.n || f.n - i > 18) return false;
    bool neg = i > 0 && f.s[i - 1] == '-';
    /* only "123", "-123" or "<word> 123" (rocprofv3's "Agent 4") */
    if (!(i == 0 || (neg && i == 1) || (!neg && f.s[i - 1] == ' '))) return false;
    int64_t v = 0;
    for (size_t k = i; k < f.n; k++) v = v * 10 + (f.s[k] - '0');
    *out = neg ? -v : v;
    return true;
}
