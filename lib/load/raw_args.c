/*
 * raw_args.c — the raw JSON text of an event's args, fetched on demand.
 *
 * The model keeps only the args analyses use; keeping every arg of every
 * event would triple the memory.  The rest stays reachable through the byte
 * range of the args object in the decompressed file, re-read here: plain
 * files are mapped whole by a reader (one syscall per event would dominate
 * when every cpu_op's args are read), gzip is decompressed afresh up to the
 * range (cheap per event when a reader is used in file order).
 */
#include "load_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SKIP_BLOCK ((size_t)256 << 10)

struct kt_args_reader {
    const kt_rank *r;
    kt_src *src;
    uint64_t pos;      /* decompressed bytes consumed from src */
    char *buf;         /* the last args text, NUL-terminated   */
    size_t cap;
    char *skip;        /* gzip: bytes read past and dropped     */
    const char *map;   /* plain files: the whole file, or NULL  */
    size_t map_len;
};

/* Map a plain file whole; left unmapped (read through kt_src) on failure. */
static void map_plain(kt_args_reader *rd)
{
    const kt_rank *r = rd->r;
    if (r->gzip || r->file_bytes == 0 || r->file_bytes > SIZE_MAX) return;
    int fd = open(r->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    void *m = mmap(NULL, (size_t)r->file_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return;
    rd->map = m;
    rd->map_len = (size_t)r->file_bytes;
}

kt_status kt_args_reader_open(const kt_rank *r, kt_args_reader **out)
{
    *out = NULL;
    if (!r->file || kt_file_size(r->file) != r->file_bytes) return KT_EINPUT;
    kt_args_reader *rd = calloc(1, sizeof *rd);
    if (!rd) return KT_ENOMEM;
    rd->r = r;
    map_plain(rd);
    *out = rd;
    return KT_OK;
}

void kt_args_reader_close(kt_args_reader *rd)
{
    if (!rd) return;
    if (rd->map) munmap((void *)rd->map, rd->map_len);
    kt_src_close(rd->src);
    free(rd->buf);
    free(rd->skip);
    free(rd);
}

/* Position the source at off (reopening it to go backwards). */
static kt_status seek_to(kt_args_reader *rd, uint64_t off)
{
    char err[256];
    if (rd->src && rd->pos > off) {
        kt_src_close(rd->src);
        rd->src = NULL;
    }
    if (!rd->src) {
        kt_status st = kt_src_open_file(rd->r->file, &rd->src, err, sizeof err);
        if (st != KT_OK) return st;
        rd->pos = 0;
        if (!kt_src_is_gzip(rd->src)) { /* plain: read the range directly */
            kt_src_close(rd->src);
            st = kt_src_open_range(rd->r->file, off, rd->r->file_bytes, &rd->src, err, sizeof err);
            if (st != KT_OK) return st;
            rd->pos = off;
        }
    }
    if (!rd->skip && !(rd->skip = malloc(SKIP_BLOCK))) return KT_ENOMEM;
    while (rd->pos < off) {
        uint64_t want = off - rd->pos;
        ptrdiff_t n = kt_src_read(rd->src, rd->skip, want < SKIP_BLOCK ? (size_t)want : SKIP_BLOCK);
        if (n <= 0) return KT_EINPUT;
        rd->pos += (uint64_t)n;
    }
    return KT_OK;
}

kt_status kt_args_reader_get(kt_args_reader *rd, uint32_t ev, const char **text, size_t *len)
{
    const kt_events *e = &rd->r->ev;
    *text = NULL;
    *len = 0;
    if (ev >= e->n || e->args_at[ev] == 0) return KT_EINPUT;
    uint64_t off = kt_args_off(e, ev);
    size_t n = kt_args_len(e, ev);
    kt_status st = rd->map ? (off + n <= rd->map_len ? KT_OK : KT_EINPUT) : seek_to(rd, off);
    if (st != KT_OK) return st;
    if (n + 1 > rd->cap) {
        char *b = realloc(rd->buf, n + 1);
        if (!b) return KT_ENOMEM;
        rd->buf = b;
        rd->cap = n + 1;
    }
    if (rd->map) memcpy(rd->buf, rd->map + off, n);
    for (size_t got = rd->map ? n : 0; got < n;) {
        ptrdiff_t k = kt_src_read(rd->src, rd->buf + got, n - got);
        if (k <= 0) return KT_EINPUT;
        got += (size_t)k;
        rd->pos += (uint64_t)k;
    }
    rd->buf[n] = '\0';
    if (n < 2 || rd->buf[0] != '{' || rd->buf[n - 1] != '}') return KT_EINPUT; /* file changed */
    *text = rd->buf;
    *len = n;
    return KT_OK;
}

kt_status kt_event_args_json(const kt_rank *r, uint32_t ev, char **text, size_t *len)
{
    kt_args_reader *rd;
    *text = NULL;
    kt_status st = kt_args_reader_open(r, &rd);
    const char *t = NULL;
    if (st == KT_OK) st = kt_args_reader_get(rd, ev, &t, len);
    if (st == KT_OK && !(*text = strdup(t))) st = KT_ENOMEM;
    kt_args_reader_close(rd);
    return st;
}
