/*
 * counter_trace.c — see counter_trace.h.
 */
#include "counter_trace.h"
#include "trace_sink.h"
#include "load/load_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (256u << 10) /* event text per write: as trace_sink.c's */

static void emit_events(kt_sink *s, const kt_trace_copy *c, char *buf)
{
    size_t n;
    while (!s->failed && (n = c->text(c->user, buf, CHUNK)) > 0) kt_sink_emit(s, buf, n);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* gzip input: inflate (background thread), deflate, inserting the events
 * right before the closing ']'.                                          */
static kt_status stream_with_events(kt_src *src, kt_sink *s, const kt_trace_copy *c, char *buf, char *err,
                                    size_t errlen)
{
    uint64_t off = 0;
    bool inserted = false;
    ptrdiff_t n = 0;
    while (!s->failed && (n = kt_src_read(src, buf, CHUNK)) > 0) {
        size_t k = 0;
        if (!inserted && off + (uint64_t)n > c->events_end) {
            k = (size_t)(c->events_end - off);
            if (buf[k] != ']') break;
            kt_sink_emit(s, buf, k);
            emit_events(s, c, buf + CHUNK);
            inserted = true;
        }
        kt_sink_emit(s, buf + k, (size_t)n - k);
        off += (uint64_t)n;
    }
    if (s->failed) return KT_EANALYSIS;
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s: %s", c->in_path, kt_src_error(src));
        return KT_EINPUT;
    }
    return inserted ? KT_OK : KT_EINPUT;
}

/* Plain bytes [from, from + len) of the input: copied inside the kernel
 * (kt_sink_copy_file), else through buf.                                  */
static void copy_range(kt_sink *s, int in, uint64_t from, uint64_t len, char *buf)
{
    uint64_t copied = kt_sink_copy_file(s, in, from, len);
    off_t off = (off_t)(from + copied);
    len -= copied;
    kt_sink_flush(s);
    s->json_bytes += len;
    while (len && !s->failed) {
        ssize_t n = pread(in, buf, len < CHUNK ? len : CHUNK, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(s->err, s->errlen, "cannot read the input: %s", n ? strerror(errno) : "it shrank");
            s->failed = true;
            return;
        }
        kt_sink_write_raw(s, buf, (size_t)n);
        off += n;
        len -= (uint64_t)n;
    }
}

/* Plain input: the original bytes never leave the kernel. */
static kt_status copy_with_events(kt_sink *s, const kt_trace_copy *c, char *buf, char *err, size_t errlen)
{
    int in = open(c->in_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char close_bracket = 0;
    if (in < 0 || fstat(in, &st) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", c->in_path, strerror(errno));
        if (in >= 0) close(in);
        return KT_EINPUT;
    }
    if (pread(in, &close_bracket, 1, (off_t)c->events_end) != 1 || close_bracket != ']') {
        close(in);
        return KT_EINPUT;
    }
    copy_range(s, in, 0, c->events_end, buf);
    emit_events(s, c, buf);
    copy_range(s, in, c->events_end, (uint64_t)st.st_size - c->events_end, buf);
    close(in);
    return s->failed ? KT_EANALYSIS : KT_OK;
}

kt_status kt_write_trace_copy(const kt_trace_copy *c, uint64_t *json_bytes, char *err, size_t errlen)
{
    *json_bytes = 0;
    if (errlen) err[0] = '\0';
    if (same_file(c->in_path, c->out_path)) {
        snprintf(err, errlen, "refusing to overwrite the input %s", c->in_path);
        return KT_EUSAGE;
    }
    kt_src *src;
    kt_status st = kt_src_open_file(c->in_path, &src, err, errlen);
    if (st != KT_OK) return st;
    bool gzip = kt_src_is_gzip(src);
    if (gzip) kt_src_start_prefetch(src);
    kt_sink s = { .fd = -1, .err = err, .errlen = errlen };
    char *buf = malloc(2 * (size_t)CHUNK); /* input chunk + event text */
    if (!buf) st = KT_ENOMEM;
    else if (!kt_sink_open(&s, c->out_path, gzip, c->in_path, err, errlen)) st = KT_EANALYSIS;
    else st = gzip ? stream_with_events(src, &s, c, buf, err, errlen) : copy_with_events(&s, c, buf, err, errlen);
    if (st == KT_EINPUT && !err[0])
        snprintf(err, errlen, "%s changed since it was loaded (no ']' at byte %llu)", c->in_path,
                 (unsigned long long)c->events_end);
    if (!kt_sink_close(&s) && st == KT_OK) st = KT_EANALYSIS;
    if (st != KT_OK && s.fd >= 0) unlink(c->out_path);
    *json_bytes = s.json_bytes;
    free(buf);
    kt_src_close(src);
    return st;
}
