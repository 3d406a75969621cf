/*
 * diags.c — the loader's problem reports.
 *
 * A library must not print, yet users need to know what was wrong with their
 * file (name, byte offset, what was recovered).  Reports are collected here
 * and the caller decides how to show them.
 */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool kt_diags_add(kt_diags *d, kt_diag_level lvl, const char *file, int64_t offset,
                  const char *fmt, ...)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        kt_diag *nd = realloc(d->d, cap * sizeof *nd);
        if (!nd) return false;
        d->d = nd;
        d->cap = cap;
    }
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *msg = strdup(buf);
    char *f = file ? strdup(file) : NULL;
    if (!msg || (file && !f)) { free(msg); free(f); return false; }
    d->d[d->n++] = (kt_diag){ .level = lvl, .file = f, .offset = offset, .message = msg };
    return true;
}

void kt_diags_begin(kt_diags **diags)
{
    if (diags) *diags = NULL;
}

void kt_diags_fail(kt_diags **diags, const char *file, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!diags || !buf[0]) return;
    if (!*diags && !(*diags = calloc(1, sizeof **diags))) return;
    kt_diags_add(*diags, KT_DIAG_ERROR, file, -1, "%s", buf);
}

void kt_diags_clear(kt_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free((char *)d->d[i].file);
        free((char *)d->d[i].message);
    }
    free(d->d);
    memset(d, 0, sizeof *d);
}

size_t kt_diags_count(const kt_diags *d) { return d ? d->n : 0; }
const kt_diag *kt_diags_get(const kt_diags *d, size_t i) { return d && i < d->n ? &d->d[i] : NULL; }
const kt_diags *kt_trace_diags(const kt_trace *t) { return &t->diags; }

void kt_diags_free(kt_diags *d)
{
    if (!d) return;
    kt_diags_clear(d);
    free(d);
}

const char *kt_status_str(kt_status s)
{
    switch (s) {
    case KT_OK: return "ok";
    case KT_EANALYSIS: return "analysis error";
    case KT_EUSAGE: return "usage error";
    case KT_EINPUT: return "input unreadable";
    case KT_ENOMEM: return "out of memory";
    }
    return "unknown status";
}
