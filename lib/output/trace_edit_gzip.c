/*
 * trace_edit_gzip.c — see trace_edit_gzip.h.  Kept apart from
 * trace_edit.c, whose copy loop is tuned for a mapped plain file: here
 * the input arrives as inflated pieces.
 */
#include "trace_edit_gzip.h"

#include <stdio.h>
#include <stdlib.h>

#define CHUNK (4u << 20)

kt_status kt_edit_read_whole(kt_src *src, const char *path, char **doc, size_t *len, char *err, size_t errlen)
{
    if (kt_src_is_gzip(src)) kt_src_start_prefetch(src); /* inflated while this thread stores it */
    size_t cap = CHUNK, n = 0;
    char *buf = malloc(cap + 1);
    ptrdiff_t got = 0;
    while (buf && (got = kt_src_read(src, buf + n, cap - n)) > 0) {
        n += (size_t)got;
        if (n == cap) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown, cap *= 2;
        }
    }
    if (got < 0) snprintf(err, errlen, "cannot read %s: %s", path, kt_src_error(src));
    if (!buf || got < 0) {
        free(buf);
        return buf ? KT_EINPUT : KT_ENOMEM;
    }
    buf[n] = '\0';
    *doc = buf, *len = n;
    return KT_OK;
}

