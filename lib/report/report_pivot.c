/*
 * report_pivot.c — stacked bars from a long-format analysis table (rows
 * of bar key, segment name, value: kernel_type_by_rank, idle_time, ...),
 * the shape most of the analyses' tables have.
 */
#include "report/report_sections.h"

#include <stdlib.h>
#include <string.h>

#define BAR_LABEL 40

typedef struct pivot {
    double *keys;       /* distinct bar keys */
    size_t nbars;
    const char **segs;  /* distinct segment names */
    size_t nsegs;
    double *v;          /* nbars x nsegs */
    char *label_text;
    const char **labels;
} pivot;

static void pivot_free(pivot *p)
{
    free(p->keys), free(p->segs), free(p->v), free(p->label_text), free(p->labels);
}

static size_t find_key(const double *keys, size_t n, double k)
{
    size_t i = 0;
    while (i < n && keys[i] != k) i++;
    return i;
}

static size_t find_seg(const char *const *segs, size_t n, const char *s)
{
    size_t i = 0;
    while (i < n && strcmp(segs[i], s)) i++;
    return i;
}

static size_t row_at(const size_t *rows, size_t i)
{
    return rows ? rows[i] : i;
}

/* Distinct keys and segments of the rows. */
static void pivot_axes(pivot *p, const kt_table *t, const size_t *rows, size_t n, long bar_col, long seg_col,
                       const char *const *segs, size_t nsegs)
{
    for (size_t i = 0; i < nsegs; i++) p->segs[p->nsegs++] = segs[i];
    for (size_t i = 0; i < n; i++) {
        size_t r = row_at(rows, i);
        double k = rp_num(t, r, bar_col);
        if (find_key(p->keys, p->nbars, k) == p->nbars) p->keys[p->nbars++] = k;
        const char *s = seg_col < 0 ? NULL : rp_str(t, r, seg_col);
        if (s && !segs && find_seg(p->segs, p->nsegs, s) == p->nsegs) p->segs[p->nsegs++] = s;
    }
}

kt_status rp_pivot_bars(rp_html *h, const char *title, const char *x_label, const kt_table *t, const size_t *rows,
                        size_t n, long bar_col, const char *bar_prefix, long seg_col, const char *const *segs,
                        size_t nsegs, long val_col, rp_unit unit)
{
    if (!rows) n = kt_table_nrows(t);
    size_t cap = n + nsegs + 1;
    pivot p = { .keys = malloc(cap * sizeof(double)), .segs = malloc(cap * sizeof(char *)) };
    if (!p.keys || !p.segs) {
        pivot_free(&p);
        return KT_ENOMEM;
    }
    pivot_axes(&p, t, rows, n, bar_col, seg_col, segs, nsegs);
    p.v = calloc(p.nbars * p.nsegs + 1, sizeof *p.v);
    p.label_text = malloc((p.nbars + 1) * BAR_LABEL);
    p.labels = malloc((p.nbars + 1) * sizeof *p.labels);
    if (!p.v || !p.label_text || !p.labels) {
        pivot_free(&p);
        return KT_ENOMEM;
    }
    for (size_t b = 0; b < p.nbars; b++) {
        snprintf(p.label_text + b * BAR_LABEL, BAR_LABEL, "%s%.15g", bar_prefix, p.keys[b]);
        p.labels[b] = p.label_text + b * BAR_LABEL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = row_at(rows, i), s = seg_col < 0 ? 0 : find_seg(p.segs, p.nsegs, rp_str(t, r, seg_col));
        double v = rp_num(t, r, val_col);
        if (s < p.nsegs && v > 0) p.v[find_key(p.keys, p.nbars, rp_num(t, r, bar_col)) * p.nsegs + s] += v;
    }
    rp_stacked_bars(h, title, x_label, p.labels, p.nbars, p.segs, p.nsegs, p.v, unit);
    pivot_free(&p);
    return KT_OK;
}
