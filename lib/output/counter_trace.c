/*
 * counter_trace.c — see counter_trace.h.
 */
#include "counter_trace.h"
#include "load/load_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (4u << 20)

/* Output: plain writes or an ISA-L gzip stream. */
typedef struct sink {
    int fd;
    bool gzip;
    struct isal_zstream z;
    uint8_t *zbuf;
    uint64_t json_bytes;
    bool failed;
    char *err;
    size_t errlen;
} sink;

static void write_all(sink *s, const void *p, size_t n)
{
    const char *c = p;
    while (n && !s->failed) {
        ssize_t w = write(s->fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            snprintf(s->err, s->errlen, "cannot write: %s", strerror(errno));
            s->failed = true;
            return;
        }
        c += w;
        n -= (size_t)w;
    }
}

/* Compress p[0..n) (end: finish the stream) and write what comes out. */
static void deflate_some(sink *s, const void *p, size_t n, bool end)
{
    s->z.next_in = (uint8_t *)p;
    s->z.avail_in = (uint32_t)n;
    s->z.end_of_stream = end;
    do {
        s->z.next_out = s->zbuf;
        s->z.avail_out = CHUNK;
        if (isal_deflate(&s->z) != COMP_OK) {
            snprintf(s->err, s->errlen, "gzip compression failed");
            s->failed = true;
            return;
        }
        write_all(s, s->zbuf, CHUNK - s->z.avail_out);
    } while (!s->failed && (s->z.avail_in > 0 || (end && s->z.internal_state.state != ZSTATE_END)));
}

static void emit(sink *s, const void *p, size_t n)
{
    s->json_bytes += n;
    if (s->gzip) deflate_some(s, p, n, false);
    else write_all(s, p, n);
}

static bool sink_open(sink *s, const char *path, bool gzip)
{
    s->gzip = gzip;
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        snprintf(s->err, s->errlen, "cannot create %s: %s", path, strerror(errno));
        s->failed = true;
        return false;
    }
    if (!gzip) return true;
    isal_deflate_init(&s->z);
    s->z.level = 1;
    s->z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    s->z.level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
    s->z.gzip_flag = IGZIP_GZIP;
    s->zbuf = malloc(CHUNK);
    if (!s->z.level_buf || !s->zbuf) {
        snprintf(s->err, s->errlen, "out of memory");
        s->failed = true;
        return false;
    }
    return true;
}

static bool sink_close(sink *s)
{
    if (s->gzip && !s->failed) deflate_some(s, NULL, 0, true);
    if (s->fd >= 0 && close(s->fd) != 0 && !s->failed) {
        snprintf(s->err, s->errlen, "cannot write: %s", strerror(errno));
        s->failed = true;
    }
    free(s->z.level_buf);
    free(s->zbuf);
    return !s->failed;
}

static void emit_events(sink *s, const kt_trace_copy *c, char *buf)
{
    size_t n;
    while (!s->failed && (n = c->text(c->user, buf, CHUNK)) > 0) emit(s, buf, n);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* gzip input: inflate (background thread), deflate, inserting the events
 * right before the closing ']'.                                          */
static kt_status stream_with_events(kt_src *src, sink *s, const kt_trace_copy *c, char *buf, char *err,
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
            emit(s, buf, k);
            emit_events(s, c, buf + CHUNK);
            inserted = true;
        }
        emit(s, buf + k, (size_t)n - k);
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
 * (copy_file_range), else through buf.                                    */
static void copy_range(sink *s, int in, uint64_t from, uint64_t len, char *buf)
{
    loff_t off = (loff_t)from;
    s->json_bytes += len;
    while (len && !s->failed) {
        ssize_t n = copy_file_range(in, &off, s->fd, NULL, len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* unsupported here, or the file shrank: below */
        len -= (uint64_t)n;
    }
    while (len && !s->failed) {
        ssize_t n = pread(in, buf, len < CHUNK ? len : CHUNK, off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(s->err, s->errlen, "cannot read the input: %s", n ? strerror(errno) : "it shrank");
            s->failed = true;
            return;
        }
        write_all(s, buf, (size_t)n);
        off += n;
        len -= (uint64_t)n;
    }
}

/* Plain input: the original bytes never leave the kernel. */
static kt_status copy_with_events(sink *s, const kt_trace_copy *c, char *buf, char *err, size_t errlen)
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
    sink s = { .fd = -1, .err = err, .errlen = errlen };
    char *buf = malloc(2 * (size_t)CHUNK); /* input chunk + event text */
    if (!buf) st = KT_ENOMEM;
    else if (!sink_open(&s, c->out_path, gzip)) st = KT_EANALYSIS;
    else st = gzip ? stream_with_events(src, &s, c, buf, err, errlen) : copy_with_events(&s, c, buf, err, errlen);
    if (st == KT_EINPUT && !err[0])
        snprintf(err, errlen, "%s changed since it was loaded (no ']' at byte %llu)", c->in_path,
                 (unsigned long long)c->events_end);
    if (!sink_close(&s) && st == KT_OK) st = KT_EANALYSIS;
    if (st != KT_OK && s.fd >= 0) unlink(c->out_path);
    *json_bytes = s.json_bytes;
    free(buf);
    kt_src_close(src);
    return st;
}
