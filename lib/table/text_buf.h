/*
 * text_buf.h — a growing NUL-terminated string, for text built piece by
 * piece (Python reprs of op shapes, the replay IR's JSON and scripts).
 * An allocation failure sets failed and later puts do nothing, so a
 * builder checks once at the end.
 */
#ifndef KT_TEXT_BUF_H
#define KT_TEXT_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kt_tbuf {
    char *s;          /* malloc'd, NUL-terminated once anything is put */
    size_t n, cap;
    bool failed;
} kt_tbuf;

void kt_tbuf_put(kt_tbuf *b, const char *s, size_t n);
void kt_tbuf_puts(kt_tbuf *b, const char *s);

#endif
