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

/* Each piece goes to the sink as it comes (the deflate calls then fall
 * where they fell when this copy had a writer of its own: the same gzip
 * bytes); the piece holding the ']' is cut there.                        */
bool kt_edit_stream_appending(kt_sink *o, kt_src *src, uint64_t events_end, kt_edit_append_fn append, void *arg)
{
    char *buf = malloc(KT_EDIT_STREAM_PIECE);
    if (!buf) {
        snprintf(o->err, o->errlen, "out of memory");
        o->failed = true;
        return true;
    }
    if (kt_src_is_gzip(src)) kt_src_start_prefetch(src);
    uint64_t off = 0;
    bool inserted = false;
    ptrdiff_t n = 0;
    while (!o->failed && (n = kt_src_read(src, buf, KT_EDIT_STREAM_PIECE)) > 0) {
        size_t k = 0;
        if (!inserted && off + (uint64_t)n > events_end) {
            k = (size_t)(events_end - off);
            if (buf[k] != ']') break;
            kt_sink_emit(o, buf, k);
            append(o, arg);
            inserted = true;
        }
        kt_sink_emit(o, buf + k, (size_t)n - k);
        off += (uint64_t)n;
    }
    free(buf);
    return o->failed || (n >= 0 && inserted);
}

/* Room kept free for each call of extra: a buffer as large as the
 * streamed copy's, so the callback never stops for lack of room.        */
#define APPEND_ROOM ((size_t)256 << 10)

bool kt_edit_append_whole(kt_sink *o, kt_edit_extra_fn extra, void *user, const kt_edit_doc *d, bool first)
{
    size_t cap = 4 * APPEND_ROOM, n = 0, got = 0;
    char *buf = malloc(cap);
    while (buf && (got = extra(user, d, buf + n, APPEND_ROOM)) > 0 && got != SIZE_MAX) {
        n += got;
        if (cap - n >= APPEND_ROOM) continue;
        char *grown = realloc(buf, 2 * cap);
        if (!grown) free(buf);
        buf = grown, cap *= 2;
    }
    if (!buf || got == SIZE_MAX) {
        free(buf);
        snprintf(o->err, o->errlen, "the events to append could not be made (out of memory)");
        o->failed = true;
        return false;
    }
    size_t skip = first && n && buf[0] == ',';
    kt_sink_emit(o, buf + skip, n - skip);
    free(buf);
    return true;
}
