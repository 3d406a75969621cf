/*
 * text_buf.c — a growing string (text_buf.h).
 */
#include "table/text_buf.h"

#include <stdlib.h>
#include <string.h>

void kt_tbuf_put(kt_tbuf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void kt_tbuf_puts(kt_tbuf *b, const char *s) { kt_tbuf_put(b, s, strlen(s)); }
