/*
 * read_input.c — bytes of a trace file, plain or gzip, into a reused window.
 *
 * Why this shape (see ../shared/spec/performance-notes.md): on the target
 * machines first-touch of fresh memory runs at ~1 GB/s, slower than parsing,
 * and read() into a buffer that is not 64-byte aligned is 5x slower.  So the
 * file is streamed with read()/pread() into one small aligned window that is
 * reused for the whole file, never copied whole: the byte ranges a large
 * file is split into for parallel parsing too (kt_src_open_range).
 * Gzip is inflated with ISA-L (2+ GB/s, streaming), optionally in a
 * background thread so that inflating and parsing overlap on two cores.
 * Gzip is recognized by its magic bytes, never by the file name.
 */
#include "load_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BLOCK ((size_t)256 << 10)   /* bytes per read() of a plain file  */
#define GZ_IN_BLOCK ((size_t)256 << 10)  /* compressed bytes per read()       */
#define PF_BLOCK ((size_t)1 << 20)       /* prefetched decompressed block     */
#define PF_NBLOCKS 4

typedef struct prefetch {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *blk[PF_NBLOCKS];
    size_t len[PF_NBLOCKS];
    size_t head, tail;       /* filled blocks are [tail, head) mod N          */
    size_t pos;              /* consumed bytes of block tail                   */
    bool done, stop;         /* producer finished / consumer closing           */
    int status;              /* producer's last result: 0 ok, -1 error         */
} prefetch;

struct kt_src {
    int fd;                 /* -1 for memory sources                          */
    const uint8_t *mem;
    size_t mem_len;
    uint64_t pos, end;      /* next input offset and end of the input range   */
    uint64_t file_bytes;
    bool gzip;

    struct inflate_state *inf;
    uint8_t *in;            /* compressed input buffer (files)                 */
    bool in_eof, gz_end;
    uint64_t consumed;      /* input bytes handed to the inflater or returned  */
    _Atomic uint64_t consumed_shared;

    prefetch *pf;
    kt_blocks *blocks;      /* decompressed blocks shared by range parsers  */
    char err[256];
    char warn[256];
};

static void *aligned_buf(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n)) return NULL;
    return p;
}

static kt_status src_new(kt_src **out)
{
    kt_src *s = calloc(1, sizeof *s);
    if (!s) return KT_ENOMEM;
    s->fd = -1;
    *out = s;
    return KT_OK;
}

static bool has_gzip_magic(const uint8_t *b, size_t n) { return n >= 2 && b[0] == 0x1f && b[1] == 0x8b; }

static kt_status gzip_init(kt_src *s)
{
    s->inf = malloc(sizeof *s->inf);
    if (!s->inf) return KT_ENOMEM;
    isal_inflate_init(s->inf);
    s->inf->crc_flag = ISAL_GZIP;
    s->gzip = true;
    if (s->fd >= 0) {
        s->in = aligned_buf(GZ_IN_BLOCK);
        if (!s->in) return KT_ENOMEM;
        s->inf->avail_in = 0;
    } else {
        s->inf->next_in = (uint8_t *)s->mem;
        s->inf->avail_in = s->mem_len > UINT32_MAX ? UINT32_MAX : (uint32_t)s->mem_len;
        s->pos = s->inf->avail_in;
        s->in_eof = s->pos >= s->mem_len;
    }
    return KT_OK;
}

static kt_status open_fd(const char *path, kt_src *s, char *err, size_t errlen)
{
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return KT_EINPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "is a directory");
        return KT_EINPUT;
    }
    s->file_bytes = (uint64_t)st.st_size;
    s->end = s->file_bytes;
    return KT_OK;
}

kt_status kt_src_open_file(const char *path, kt_src **out, char *err, size_t errlen)
{
    kt_src *s;
    if (src_new(&s) != KT_OK) return KT_ENOMEM;
    kt_status st = open_fd(path, s, err, errlen);
    uint8_t magic[2];
    ssize_t n = st == KT_OK ? pread(s->fd, magic, 2, 0) : 0;
    if (st == KT_OK && n < 0) {
        snprintf(err, errlen, "cannot read: %s", strerror(errno));
        st = KT_EINPUT;
    }
    if (st == KT_OK && has_gzip_magic(magic, (size_t)n)) st = gzip_init(s);
    if (st != KT_OK) {
        kt_src_close(s);
        return st;
    }
    *out = s;
    return KT_OK;
}

/* A parallel range of a plain file is read like a whole file, with
 * pread from its start: the parser stops at its range's limit.  Mapping
 * the range instead and lending it to the window whole saved read()'s
 * copy on Zen 3 guests; on a Zen 5 (PVM) guest the
 * first touch of every mapped page costs more than the copy into the
 * warm window: 1.22 against 0.88 s for `info` on a file the page cache
 * holds in 4 KiB pages, a tie on one held in 2 MiB folios
 * (docs/layouts.md).  Reading also means a file cut by
 * another process while it loads is reported like any cut-off file,
 * where a mapping's pages past the new end would fault (SIGBUS).       */
kt_status kt_src_open_range(const char *path, uint64_t start, uint64_t end, kt_src **out,
                            char *err, size_t errlen)
{
    kt_src *s;
    if (src_new(&s) != KT_OK) return KT_ENOMEM;
    kt_status st = open_fd(path, s, err, errlen);
    if (st != KT_OK) {
        kt_src_close(s);
        return st;
    }
    s->pos = start;
    if (end < s->end) s->end = end;
    *out = s;
    return KT_OK;
}

kt_status kt_src_open_blocks(kt_blocks *b, uint64_t off, kt_src **out)
{
    kt_src *s;
    if (src_new(&s) != KT_OK) return KT_ENOMEM;
    s->blocks = b;
    s->pos = off;
    *out = s;
    return KT_OK;
}

kt_status kt_src_open_mem(const void *buf, size_t len, kt_src **out)
{
    kt_src *s;
    if (src_new(&s) != KT_OK) return KT_ENOMEM;
    s->mem = buf;
    s->mem_len = len;
    s->file_bytes = len;
    s->end = len;
    kt_status st = has_gzip_magic(buf, len) ? gzip_init(s) : KT_OK;
    if (st != KT_OK) {
        kt_src_close(s);
        return st;
    }
    *out = s;
    return KT_OK;
}

bool kt_src_is_gzip(const kt_src *s) { return s->gzip; }
uint64_t kt_src_file_bytes(const kt_src *s) { return s->file_bytes; }
const char *kt_src_error(const kt_src *s) { return s->err[0] ? s->err : "read error"; }
const char *kt_src_warning(const kt_src *s) { return s->warn[0] ? s->warn : NULL; }

uint64_t kt_src_consumed(const kt_src *s)
{
    return atomic_load_explicit(&((kt_src *)s)->consumed_shared, memory_order_relaxed);
}

static void note_consumed(kt_src *s, uint64_t n)
{
    s->consumed += n;
    atomic_store_explicit(&s->consumed_shared, s->consumed, memory_order_relaxed);
}

/* Plain bytes: pread from the file or copy from memory. */
static ptrdiff_t plain_read(kt_src *s, char *dst, size_t cap)
{
    if (s->pos >= s->end) return 0;
    uint64_t left = s->end - s->pos;
    if (cap > left) cap = (size_t)left;
    if (s->fd < 0) {
        memcpy(dst, s->mem + s->pos, cap);
        s->pos += cap;
        note_consumed(s, cap);
        return (ptrdiff_t)cap;
    }
    for (;;) {
        ssize_t n = pread(s->fd, dst, cap, (off_t)s->pos);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(s->err, sizeof s->err, "read error at byte %llu: %s",
                     (unsigned long long)s->pos, strerror(errno));
            return -1;
        }
        s->pos += (uint64_t)n;
        note_consumed(s, (uint64_t)n);
        if (n == 0) s->end = s->pos; /* file shrank */
        return n;
    }
}

/* Make compressed input available; false at the end of the input. */
static bool gz_fill_input(kt_src *s)
{
    struct inflate_state *z = s->inf;
    if (z->avail_in > 0) return true;
    if (s->in_eof) return false;
    if (s->fd < 0) { /* memory: hand over the next 4 GiB slice */
        uint64_t left = s->mem_len - s->pos;
        z->next_in = (uint8_t *)s->mem + s->pos;
        z->avail_in = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
        s->pos += z->avail_in;
        s->in_eof = s->pos >= s->mem_len;
        return z->avail_in > 0;
    }
    for (;;) {
        ssize_t n = pread(s->fd, s->in, GZ_IN_BLOCK, (off_t)s->pos);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n < 0)
                snprintf(s->warn, sizeof s->warn, "read error at byte %llu: %s",
                         (unsigned long long)s->pos, strerror(errno));
            s->in_eof = true;
            return false;
        }
        s->pos += (uint64_t)n;
        z->next_in = s->in;
        z->avail_in = (uint32_t)n;
        return true;
    }
}

static uint64_t gz_input_offset(const kt_src *s) { return s->pos - s->inf->avail_in; }

/* After a member ends: another member follows, padding, or garbage. */
static void gz_next_member(kt_src *s)
{
    struct inflate_state *z = s->inf;
    while (gz_fill_input(s)) {
        if (z->next_in[0] == 0) { /* zero padding after the data is harmless */
            z->next_in++;
            z->avail_in--;
            continue;
        }
        if (z->next_in[0] == 0x1f) {
            uint8_t *keep_in = z->next_in;
            uint32_t keep_avail = z->avail_in;
            isal_inflate_reset(z);
            z->crc_flag = ISAL_GZIP;
            z->next_in = keep_in;
            z->avail_in = keep_avail;
            return;
        }
        snprintf(s->warn, sizeof s->warn,
                 "ignored %llu bytes of non-gzip data after the compressed data (at byte %llu)",
                 (unsigned long long)(s->file_bytes - gz_input_offset(s)),
                 (unsigned long long)gz_input_offset(s));
        break;
    }
    s->gz_end = true;
}

static ptrdiff_t gz_read(kt_src *s, char *dst, size_t cap)
{
    struct inflate_state *z = s->inf;
    size_t produced = 0;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    while (produced < cap && !s->gz_end) {
        if (z->block_state == ISAL_BLOCK_FINISH) {
            gz_next_member(s);
            continue;
        }
        bool have_in = gz_fill_input(s);
        uint32_t in_before = z->avail_in;
        z->next_out = (uint8_t *)dst + produced;
        z->avail_out = (uint32_t)(cap - produced);
        int ret = isal_inflate(z);
        size_t got = (size_t)(cap - produced) - z->avail_out;
        produced += got;
        note_consumed(s, in_before - z->avail_in);
        if (ret < 0) {
            snprintf(s->warn, sizeof s->warn,
                     "corrupt gzip data near compressed byte %llu (isa-l error %d): the rest of the "
                     "file is unreadable",
                     (unsigned long long)gz_input_offset(s), ret);
            s->gz_end = true;
        } else if (got == 0 && in_before == z->avail_in && !have_in &&
                   z->block_state != ISAL_BLOCK_FINISH) {
            snprintf(s->warn, sizeof s->warn,
                     "gzip stream ends early (file truncated at byte %llu)",
                     (unsigned long long)s->file_bytes);
            s->gz_end = true;
        }
    }
    return (ptrdiff_t)produced;
}

static ptrdiff_t direct_read(kt_src *s, char *dst, size_t cap)
{
    return s->gzip ? gz_read(s, dst, cap) : plain_read(s, dst, cap);
}

/* ---- background decompression ---------------------------------------------- */
static void *prefetch_main(void *arg)
{
    kt_src *s = arg;
    prefetch *pf = s->pf;
    for (;;) {
        pthread_mutex_lock(&pf->lock);
        while (!pf->stop && pf->head - pf->tail == PF_NBLOCKS) pthread_cond_wait(&pf->cond, &pf->lock);
        bool stop = pf->stop;
        size_t slot = pf->head % PF_NBLOCKS;
        pthread_mutex_unlock(&pf->lock);
        if (stop) break;
        ptrdiff_t n = direct_read(s, pf->blk[slot], PF_BLOCK);
        pthread_mutex_lock(&pf->lock);
        if (n > 0) {
            pf->len[slot] = (size_t)n;
            pf->head++;
        } else {
            pf->done = true;
            pf->status = n < 0 ? -1 : 0;
        }
        pthread_cond_broadcast(&pf->cond);
        bool done = pf->done;
        pthread_mutex_unlock(&pf->lock);
        if (done) break;
    }
    return NULL;
}

void kt_src_start_prefetch(kt_src *s)
{
    if (s->pf) return;
    prefetch *pf = calloc(1, sizeof *pf);
    if (!pf) return; /* fall back to reading inline */
    for (size_t i = 0; i < PF_NBLOCKS; i++) {
        pf->blk[i] = aligned_buf(PF_BLOCK);
        if (!pf->blk[i]) goto fail;
    }
    pthread_mutex_init(&pf->lock, NULL);
    pthread_cond_init(&pf->cond, NULL);
    s->pf = pf;
    if (pthread_create(&pf->thread, NULL, prefetch_main, s) != 0) {
        pthread_mutex_destroy(&pf->lock);
        pthread_cond_destroy(&pf->cond);
        s->pf = NULL;
        goto fail;
    }
    return;
fail:
    for (size_t i = 0; i < PF_NBLOCKS; i++) free(pf->blk[i]);
    free(pf);
}

static ptrdiff_t prefetch_read(kt_src *s, char *dst, size_t cap)
{
    prefetch *pf = s->pf;
    size_t copied = 0;
    pthread_mutex_lock(&pf->lock);
    while (copied < cap) {
        while (pf->head == pf->tail && !pf->done) pthread_cond_wait(&pf->cond, &pf->lock);
        if (pf->head == pf->tail) break;
        size_t slot = pf->tail % PF_NBLOCKS;
        size_t n = pf->len[slot] - pf->pos;
        if (n > cap - copied) n = cap - copied;
        pthread_mutex_unlock(&pf->lock); /* the producer never touches a filled block */
        memcpy(dst + copied, pf->blk[slot] + pf->pos, n);
        pthread_mutex_lock(&pf->lock);
        copied += n;
        pf->pos += n;
        if (pf->pos == pf->len[slot]) {
            pf->pos = 0;
            pf->tail++;
            pthread_cond_broadcast(&pf->cond);
        }
    }
    int status = pf->status;
    pthread_mutex_unlock(&pf->lock);
    if (copied == 0 && status < 0) return -1;
    return (ptrdiff_t)copied;
}

static void prefetch_stop(kt_src *s)
{
    prefetch *pf = s->pf;
    pthread_mutex_lock(&pf->lock);
    pf->stop = true;
    pthread_cond_broadcast(&pf->cond);
    pthread_mutex_unlock(&pf->lock);
    pthread_join(pf->thread, NULL);
    pthread_mutex_destroy(&pf->lock);
    pthread_cond_destroy(&pf->cond);
    for (size_t i = 0; i < PF_NBLOCKS; i++) free(pf->blk[i]);
    free(pf);
    s->pf = NULL;
}

ptrdiff_t kt_src_read(kt_src *s, char *dst, size_t cap)
{
    if (s->blocks) {
        size_t n = kt_blocks_read(s->blocks, s->pos, dst, cap);
        s->pos += n;
        return (ptrdiff_t)n;
    }
    return s->pf ? prefetch_read(s, dst, cap) : direct_read(s, dst, cap);
}

size_t kt_pread_full(int fd, void *dst, size_t n, uint64_t off, int *err)
{
    size_t got = 0;
    int e = 0;
    while (got < n) {
        ssize_t k = pread(fd, (char *)dst + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) e = errno;
        if (k <= 0) break; /* an error, or the file ends (it may have shrunk) */
        got += (size_t)k;
    }
    if (err) *err = e;
    return got;
}

ptrdiff_t kt_src_pread(const kt_src *s, uint64_t off, char *dst, size_t n)
{
    if (s->gzip || s->blocks) return -1;
    if (off >= s->end) return 0;
    if (n > s->end - off) n = (size_t)(s->end - off);
    if (s->fd < 0) {
        memcpy(dst, s->mem + off, n);
        return (ptrdiff_t)n;
    }
    int err;
    size_t got = kt_pread_full(s->fd, dst, n, off, &err);
    return err ? -1 : (ptrdiff_t)got;
}

ptrdiff_t kt_src_lend(kt_src *s, const char **at)
{
    if (!s->blocks) return -1;
    size_t n = kt_blocks_lend(s->blocks, s->pos, at);
    s->pos += n;
    return (ptrdiff_t)n;
}

void kt_src_close(kt_src *s)
{
    if (!s) return;
    if (s->pf) prefetch_stop(s);
    if (s->fd >= 0) close(s->fd);
    free(s->inf);
    free(s->in);
    free(s);
}

/* ---- the window ------------------------------------------------------------ */
bool kt_window_init(kt_window *w, uint64_t base)
{
    memset(w, 0, sizeof *w);
    w->cap = 2 * READ_BLOCK;
    w->mem = aligned_buf(w->cap + KT_WIN_PAD);
    if (!w->mem) return false;
    w->data = w->mem;
    w->base = base;
    memset(w->mem, 0, KT_WIN_PAD);
    return true;
}

void kt_window_reset(kt_window *w, uint64_t base)
{
    w->data = w->mem;
    w->lent = false;
    w->len = 0;
    w->base = base;
    w->eof = false;
    memset(w->mem, 0, KT_WIN_PAD);
}

void kt_window_free(kt_window *w)
{
    free(w->mem);
    memset(w, 0, sizeof *w);
}

static bool window_grow(kt_window *w, size_t need)
{
    size_t cap = w->cap;
    while (cap < need) cap *= 2;
    char *m = aligned_buf(cap + KT_WIN_PAD);
    if (!m) return false;
    size_t off = (size_t)(w->data - w->mem);
    memcpy(m + off, w->data, w->len);
    free(w->mem);
    w->mem = m;
    w->data = m + off;
    w->cap = cap;
    return true;
}

/* Nothing kept and the source lends its bytes: look at them in place. */
static bool window_lent(kt_window *w, kt_src *s, size_t drop)
{
    const char *at;
    ptrdiff_t n = kt_src_lend(s, &at);
    if (n < 0) return false;
    w->base += drop;
    w->data = n ? (char *)at : w->mem;
    w->len = (size_t)n;
    w->eof = n == 0;
    w->lent = n > 0;
    if (!n) memset(w->mem, 0, KT_WIN_PAD);
    return true;
}

/* The kept tail of lent bytes into the window's own memory (grown when
 * the tail needs it), as if it had been read there.                      */
static bool window_own(kt_window *w, const char *keep, size_t tail)
{
    w->base += (uint64_t)(keep - w->data);
    w->data = w->mem; /* empty and the window's own: growing copies nothing */
    w->len = 0;
    w->lent = false;
    if (tail + READ_BLOCK > w->cap && !window_grow(w, tail + READ_BLOCK)) return false;
    memcpy(w->data, keep, tail);
    w->len = tail;
    return true;
}

bool kt_window_refill(kt_window *w, kt_src *s, const char *keep)
{
    if (w->eof) return true;
    size_t drop = (size_t)(keep - w->data);
    size_t tail = w->len - drop;
    if (tail == 0 && window_lent(w, s, drop)) return true;
    if (w->lent) {
        if (!window_own(w, keep, tail)) return false;
        keep = w->data;
        drop = 0;
    }
    /* a kept tail that fills half the window means one huge value: grow */
    if (tail + READ_BLOCK / 4 > w->cap / 2) {
        if (!window_grow(w, 2 * (tail + READ_BLOCK))) return false;
        keep = w->data + drop; /* the bytes moved */
    }
    /* Place the tail so that the read lands 64-byte aligned (5x faster
     * copy_to_user on AMD); the tail itself is short.                      */
    size_t lead = (64 - (tail & 63)) & 63;
    memmove(w->mem + lead, keep, tail);
    w->data = w->mem + lead;
    w->base += drop;
    w->len = tail;
    size_t room = w->cap - lead - tail;
    if (room > READ_BLOCK * 4) room = READ_BLOCK * 4;
    if (w->read_max && room > w->read_max) room = w->read_max;
    ptrdiff_t n = kt_src_read(s, w->data + tail, room);
    if (n < 0) return false;
    if (n == 0) w->eof = true;
    w->len += (size_t)n;
    memset(w->data + w->len, 0, KT_WIN_PAD);
    return true;
}
