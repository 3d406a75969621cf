/*
 * table_notes.c — a table's footnotes (table.h): plain lines, and counted
 * ones whose figures are kept beside their text so that the per-rank
 * tables of one job can be merged into what a single load would print.
 */
#include "table/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append a note taking text (and fmt); on failure frees them. */
static kt_note *push(kt_table *t, char *text, char *fmt)
{
    kt_note *notes = text ? realloc(t->notes, (t->nnotes + 1) * sizeof *notes) : NULL;
    if (!notes) {
        free(text);
        free(fmt);
        t->failed = true;
        return NULL;
    }
    t->notes = notes;
    notes[t->nnotes] = (kt_note){ .text = text, .fmt = fmt };
    return &notes[t->nnotes++];
}

void kt_table_add_note(kt_table *t, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text) vsnprintf(text, (size_t)len + 1, fmt, again);
    va_end(again);
    push(t, text, NULL);
}

/* fmt with each "%lld" replaced by the next count and "%%" by '%'. */
static char *render(const char *fmt, const int64_t *counts, size_t n)
{
    size_t cap = strlen(fmt) + 1 + n * 21, k = 0, used = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (const char *p = fmt; *p; p++) {
        if (p[0] == '%' && p[1] == '%') {
            out[k++] = '%';
            p++;
        } else if (!strncmp(p, "%lld", 4) && used < n) {
            k += (size_t)snprintf(out + k, cap - k, "%lld", (long long)counts[used++]);
            p += 3;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    return out;
}

void kt_table_add_count_note(kt_table *t, const char *fmt, size_t n, const int64_t *counts)
{
    if (n > KT_NOTE_COUNTS) n = KT_NOTE_COUNTS;
    char *copy = strdup(fmt);
    kt_note *note = push(t, copy ? render(fmt, counts, n) : NULL, copy);
    if (!note) return;
    memcpy(note->counts, counts, n * sizeof *counts);
    note->ncounts = n;
}

bool kt_table_note_counts(const kt_table *t, size_t i, const char **fmt, size_t *n, const int64_t **counts)
{
    if (!t || i >= t->nnotes || !t->notes[i].fmt) return false;
    *fmt = t->notes[i].fmt;
    *n = t->notes[i].ncounts;
    *counts = t->notes[i].counts;
    return true;
}

/* dst's note that src's note i merges into, or NULL. */
static kt_note *same_note(kt_table *dst, const kt_note *s)
{
    for (size_t i = 0; i < dst->nnotes; i++) {
        kt_note *d = &dst->notes[i];
        if (s->fmt ? d->fmt && !strcmp(d->fmt, s->fmt) && d->ncounts == s->ncounts
                   : !d->fmt && !strcmp(d->text, s->text))
            return d;
    }
    return NULL;
}

void kt_table_merge_notes(kt_table *dst, const kt_table *src)
{
    for (size_t i = 0; i < src->nnotes; i++) {
        const kt_note *s = &src->notes[i];
        kt_note *d = same_note(dst, s);
        if (!d && s->fmt) {
            kt_table_add_count_note(dst, s->fmt, s->ncounts, s->counts);
        } else if (!d) {
            push(dst, strdup(s->text), NULL);
        } else if (s->fmt) {
            for (size_t k = 0; k < s->ncounts; k++) d->counts[k] += s->counts[k];
            char *text = render(d->fmt, d->counts, d->ncounts);
            if (!text) {
                dst->failed = true;
                continue;
            }
            free(d->text);
            d->text = text;
        }
    }
}

size_t kt_table_nnotes(const kt_table *t) { return t ? t->nnotes : 0; }
const char *kt_table_note(const kt_table *t, size_t i) { return t && i < t->nnotes ? t->notes[i].text : NULL; }

void kt_table_free_notes(kt_table *t)
{
    for (size_t i = 0; i < t->nnotes; i++) {
        free(t->notes[i].text);
        free(t->notes[i].fmt);
    }
    free(t->notes);
}
