/*
 * trace_sink.c — see trace_sink.h.
 */
#include "trace_sink.h"
#include "write_behind.h"
#include "load/load_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Bytes per write: 256 KiB stays in a Zen 3 core's 512 KiB L2 while the
 * kernel copies it into the page cache; 4 MiB writes cost 1.2x (tmpfs)
 * to 1.3x (ext4) as much for patterns -o, and `dd bs=4M` of a 1 GB file
 * onto ext4 took 1.0-2.2 s against 0.53-0.58 s with bs=256K.            */
#define ZCHUNK (256u << 10)

static void say_failed(kt_sink *s, int err)
{
    snprintf(s->err, s->errlen, "cannot write: %s", strerror(err));
    s->failed = true;
}

static uint64_t iov_bytes(const struct iovec *v, int n)
{
    uint64_t bytes = 0;
    for (int k = 0; k < n; k++) bytes += v[k].iov_len;
    return bytes;
}

/* v[0..left) to the file at pos, all of it. */
static void write_pieces(kt_sink *s, struct iovec *v, int left)
{
    uint64_t bytes = iov_bytes(v, left);
    int err = s->failed ? 0 : kt_write_all_at(s->fd, v, left, s->pos);
    if (err) say_failed(s, err);
    s->pos += bytes;
}

static void write_all(kt_sink *s, const void *p, size_t n)
{
    struct iovec v = { .iov_base = (void *)p, .iov_len = n };
    if (n) write_pieces(s, &v, 1);
}

/* Compress p[0..n) (end: finish the stream) and write what comes out. */
static void deflate_some(kt_sink *s, const void *p, size_t n, bool end)
{
    s->z.next_in = (uint8_t *)p;
    s->z.avail_in = (uint32_t)n;
    s->z.end_of_stream = end;
    do {
        s->z.next_out = s->zbuf;
        s->z.avail_out = ZCHUNK;
        if (isal_deflate(&s->z) != COMP_OK) {
            snprintf(s->err, s->errlen, "gzip compression failed");
            s->failed = true;
            return;
        }
        write_all(s, s->zbuf, ZCHUNK - s->z.avail_out);
    } while (!s->failed && (s->z.avail_in > 0 || (end && s->z.internal_state.state != ZSTATE_END)));
}

/* Pieces a writev takes at most (Linux's IOV_MAX). */
#define SINK_IOV 1024

/* The gathered pieces to the write-behind thread, which writes them
 * while the next ones are gathered in the spare buffers.                */
static void hand_over(kt_sink *s, const kt_read_job *read)
{
    uint64_t bytes = iov_bytes(s->iov, s->niov);
    int err;
    if (!kt_write_behind_post(s->behind, s->iov, s->niov, s->pos, read, &err)) {
        say_failed(s, err);
        return;
    }
    s->pos += bytes;
    char *p = s->pending;
    struct iovec *v = s->iov;
    s->pending = s->spare_pending, s->iov = s->spare_iov;
    s->spare_pending = p, s->spare_iov = v;
}

/* Out with the gathered text: written, or compressed and written; read
 * (NULL: none) is read by the write-behind thread first.                */
static void flush_reading(kt_sink *s, const kt_read_job *read)
{
    if (s->gzip && s->npending && !s->failed) deflate_some(s, s->pending, s->npending, false);
    else if (!s->gzip && !s->failed && s->behind) hand_over(s, read); /* none: waits for the last */
    else if (!s->gzip && s->niov && !s->failed) write_pieces(s, s->iov, s->niov);
    s->npending = 0;
    s->niov = 0;
}

static void flush_pending(kt_sink *s) { flush_reading(s, NULL); }

/* p[0..n) next in the plain copy's writev; it joins the previous piece
 * when it continues it in memory (a run of pending, or of the input).   */
static void gather(kt_sink *s, const void *p, size_t n)
{
    struct iovec *last = s->niov ? &s->iov[s->niov - 1] : NULL;
    if (last && (const char *)last->iov_base + last->iov_len == p) {
        last->iov_len += n;
        return;
    }
    if (s->niov == SINK_IOV) flush_pending(s);
    s->iov[s->niov++] = (struct iovec){ .iov_base = (void *)p, .iov_len = n };
}

void kt_sink_flush(kt_sink *s)
{
    flush_pending(s);
}

bool kt_sink_flush_reading(kt_sink *s, const kt_read_job *read)
{
    bool thread = !s->gzip && !s->failed && s->behind;
    flush_reading(s, thread ? read : NULL);
    return thread && !s->failed;
}

size_t kt_sink_read_wait(kt_sink *s)
{
    return s->behind ? kt_write_behind_read(s->behind) : 0;
}

static void emit(kt_sink *s, const void *p, size_t n);

/* While the source member is still to come: the bytes up to the input's
 * first '{' go out through put, then the member, then the rest.  Returns
 * false when the member is out (the caller writes p itself).            */
static bool put_marked(kt_sink *s, const void *p, size_t n, void (*put)(kt_sink *, const void *, size_t))
{
    if (!s->mark) return false;
    const char *brace = memchr(p, '{', n);
    size_t head = brace ? (size_t)(brace - (const char *)p) + 1 : n;
    put(s, p, head);
    if (!brace) return true;
    char *mark = s->mark;
    s->mark = NULL;
    emit(s, mark, strlen(mark));
    free(mark);
    put(s, (const char *)p + head, n - head);
    return true;
}

void kt_sink_emit(kt_sink *s, const void *p, size_t n)
{
    if (!put_marked(s, p, n, emit)) emit(s, p, n);
}

static void emit(kt_sink *s, const void *p, size_t n)
{
    s->json_bytes += n;
    if (n >= KT_SINK_DIRECT) { /* large: no copy (an overlay's long runs of input); below
                                  it a write or deflate call costs more than the copy saves */
        flush_pending(s);
        if (s->gzip) deflate_some(s, p, n, false);
        else write_all(s, p, n);
        return;
    }
    const char *c = p;
    while (n > 0 && !s->failed) {
        if (s->npending == ZCHUNK || s->niov == SINK_IOV) flush_pending(s); /* gather adds no flush */
        size_t k = ZCHUNK - s->npending < n ? ZCHUNK - s->npending : n;
        memcpy(s->pending + s->npending, c, k);
        if (!s->gzip) gather(s, s->pending + s->npending, k);
        s->npending += k;
        c += k;
        n -= k;
    }
}

void kt_sink_emit_ref(kt_sink *s, const void *p, size_t n)
{
    if (s->gzip || s->mark) {
        kt_sink_emit(s, p, n);
        return;
    }
    if (!n || s->failed) return;
    s->json_bytes += n;
    gather(s, p, n);
}

/* '"kinetaSource": "<source's file name>", ' (JSON-escaped), malloc'd. */
static char *source_member(const char *source)
{
    const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
    size_t cap = strlen(KT_SOURCE_KEY) + 6 * strlen(base) + 16, n = 0;
    char *m = malloc(cap);
    if (!m) return NULL;
    n += (size_t)snprintf(m, cap, "\"%s\": \"", KT_SOURCE_KEY);
    for (const unsigned char *c = (const unsigned char *)base; *c; c++)
        n += (size_t)(*c == '"' || *c == '\\' ? snprintf(m + n, cap - n, "\\%c", *c)
                      : *c < 0x20           ? snprintf(m + n, cap - n, "\\u%04x", *c)
                                            : snprintf(m + n, cap - n, "%c", *c));
    snprintf(m + n, cap - n, "\", ");
    return m;
}

bool kt_sink_open(kt_sink *s, const char *path, bool gzip, const char *source, char *err, size_t errlen)
{
    *s = (kt_sink){ .fd = -1, .gzip = gzip, .err = err, .errlen = errlen };
    if (source && !(s->mark = source_member(source))) {
        snprintf(s->err, s->errlen, "out of memory");
        s->failed = true;
        return false;
    }
    s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        snprintf(s->err, s->errlen, "cannot create %s: %s", path, strerror(errno));
        s->failed = true;
        return false;
    }
    s->pending = malloc(ZCHUNK);
    if (!gzip) {
        s->iov = malloc(SINK_IOV * sizeof *s->iov);
        s->spare_pending = malloc(ZCHUNK);
        s->spare_iov = malloc(SINK_IOV * sizeof *s->spare_iov);
    }
    if (!s->pending || (!gzip && (!s->iov || !s->spare_pending || !s->spare_iov))) {
        snprintf(s->err, s->errlen, "out of memory");
        s->failed = true;
        return false;
    }
    if (!gzip) {
        s->behind = kt_write_behind_start(s->fd); /* NULL: written here */
        return true;
    }
    isal_deflate_init(&s->z);
    s->z.level = 1;
    s->z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    s->z.level_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
    s->z.gzip_flag = IGZIP_GZIP;
    s->zbuf = malloc(ZCHUNK);
    if (!s->z.level_buf || !s->zbuf) {
        snprintf(s->err, s->errlen, "out of memory");
        s->failed = true;
        return false;
    }
    return true;
}

bool kt_sink_close(kt_sink *s)
{
    if (s->fd >= 0) flush_pending(s);
    int err;
    if (s->behind && !kt_write_behind_wait(s->behind, &err) && !s->failed) say_failed(s, err);
    kt_write_behind_stop(s->behind);
    s->behind = NULL;
    if (s->gzip && !s->failed && s->fd >= 0) deflate_some(s, NULL, 0, true);
    if (s->fd >= 0 && close(s->fd) != 0 && !s->failed) {
        snprintf(s->err, s->errlen, "cannot write: %s", strerror(errno));
        s->failed = true;
    }
    if (s->gzip) free(s->z.level_buf);
    free(s->zbuf);
    free(s->pending);
    free(s->iov);
    free(s->spare_pending);
    free(s->spare_iov);
    free(s->mark);
    s->mark = NULL;
    s->z.level_buf = NULL;
    s->zbuf = NULL;
    s->pending = NULL;
    s->iov = NULL;
    s->spare_pending = NULL;
    s->spare_iov = NULL;
    return !s->failed;
}
