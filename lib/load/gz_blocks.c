/*
 * gz_blocks.c — a gzip trace inflated on one thread, parsed on the others.
 *
 * Inflating (ISA-L, 2+ GB/s) is several times faster than parsing, so with
 * one parser a .json.gz loads at parse speed on one core.  Here a thread
 * inflates into fixed-size blocks that the range parsers of split.c read
 * as one stream: range k starts at the first event start guessed in block
 * k, and is verified like a plain file's range; parsers read a block in
 * place (kt_blocks_lend), copying only where an event crosses into the
 * next block.  At most max_live blocks
 * exist at once (the inflater waits for the parsers), and their buffers
 * are recycled, so memory stays small and warm whatever the file size.
 */
#include "load_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCK_BYTES ((size_t)8 << 20)

struct kt_blocks {
    kt_load_ctx *ctx;
    kt_src *gz;
    size_t block_bytes, max_live;

    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char **blk;          /* produced blocks; NULL once released           */
    size_t *len;
    size_t n, cap;       /* blocks produced                                */
    size_t released;     /* blocks [0, released) are gone                  */
    size_t waiting;      /* readers waiting for a block not yet inflated   */
    char **spare;        /* recycled buffers                               */
    size_t nspare;
    bool done, stop;
    uint64_t total;      /* decompressed bytes produced                    */
    uint64_t reported;   /* compressed bytes reported as progress          */
};

static void report_progress(kt_blocks *b)
{
    kt_load_ctx *ctx = b->ctx;
    uint64_t now = kt_src_consumed(b->gz), delta = now - b->reported;
    b->reported = now;
    uint64_t done = atomic_fetch_add(&ctx->done, delta) + delta;
    if (done > ctx->total) done = ctx->total;
    if (ctx->opt && ctx->opt->progress) ctx->opt->progress(ctx->opt->progress_user, done, ctx->total);
}

/* A buffer for the next block (waits while too many are alive). */
static char *take_buffer(kt_blocks *b)
{
    pthread_mutex_lock(&b->lock);
    /* an event longer than the live blocks: a waiting reader overrides the cap */
    while (!b->stop && b->n - b->released >= b->max_live && !b->waiting)
        pthread_cond_wait(&b->changed, &b->lock);
    char *buf = b->stop ? NULL : b->nspare ? b->spare[--b->nspare] : NULL;
    bool stop = b->stop;
    pthread_mutex_unlock(&b->lock);
    if (!buf && !stop && posix_memalign((void **)&buf, 64, b->block_bytes + KT_WIN_PAD)) buf = NULL;
    return buf;
}

static bool publish(kt_blocks *b, char *buf, size_t len)
{
    pthread_mutex_lock(&b->lock);
    bool ok = true;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        char **blk = realloc(b->blk, cap * sizeof *blk);
        size_t *lens = blk ? realloc(b->len, cap * sizeof *lens) : NULL;
        if (blk) b->blk = blk;
        if (lens) {
            b->len = lens;
            b->cap = cap;
        }
        ok = blk && lens;
    }
    if (ok) {
        b->blk[b->n] = buf;
        b->len[b->n++] = len;
        b->total += len;
    }
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

static void *inflater(void *arg)
{
    kt_blocks *b = arg;
    for (;;) {
        char *buf = take_buffer(b);
        size_t got = 0;
        while (buf && got < b->block_bytes) {
            ptrdiff_t n = kt_src_read(b->gz, buf + got, b->block_bytes - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        report_progress(b);
        if (buf) memset(buf + got, 0, KT_WIN_PAD); /* parsers read blocks in place */
        bool more = buf && got == b->block_bytes;
        if (!buf || !got || !publish(b, buf, got)) free(buf);
        if (!more) break;
    }
    pthread_mutex_lock(&b->lock);
    b->done = true; /* a read error ends the stream: the parser reports it as cut off */
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* Waits until block k exists or the stream has ended; false if it never will. */
static bool wait_block(kt_blocks *b, size_t k)
{
    if (k >= b->n && !b->done) {
        b->waiting++;
        pthread_cond_broadcast(&b->changed);
        while (k >= b->n && !b->done) pthread_cond_wait(&b->changed, &b->lock);
        b->waiting--;
    }
    return k < b->n;
}

size_t kt_blocks_read(kt_blocks *b, uint64_t pos, char *dst, size_t cap)
{
    size_t k = (size_t)(pos / b->block_bytes), at = (size_t)(pos % b->block_bytes);
    pthread_mutex_lock(&b->lock);
    bool have = wait_block(b, k) && b->blk[k] && at < b->len[k];
    const char *src = have ? b->blk[k] + at : NULL;
    size_t n = have ? b->len[k] - at : 0;
    pthread_mutex_unlock(&b->lock);
    if (n > cap) n = cap;
    if (n) memcpy(dst, src, n); /* blocks a reader may still need are never released */
    return n;
}

size_t kt_blocks_lend(kt_blocks *b, uint64_t pos, const char **at)
{
    size_t k = (size_t)(pos / b->block_bytes), off = (size_t)(pos % b->block_bytes);
    pthread_mutex_lock(&b->lock);
    bool have = wait_block(b, k) && b->blk[k] && off < b->len[k];
    *at = have ? b->blk[k] + off : NULL;
    size_t n = have ? b->len[k] - off : 0;
    pthread_mutex_unlock(&b->lock);
    return n; /* blocks a reader may still need are never released */
}

static kt_range_kind block_start(void *ctx, size_t k, uint64_t *off)
{
    kt_blocks *b = ctx;
    pthread_mutex_lock(&b->lock);
    bool have = wait_block(b, k) && b->blk[k];
    const char *buf = have ? b->blk[k] : NULL;
    size_t len = have ? b->len[k] : 0;
    pthread_mutex_unlock(&b->lock);
    if (!have) return KT_RANGE_END;
    long pos = k == 0 ? 0 : kt_event_start_in(buf, len);
    if (pos < 0) return KT_RANGE_NONE;
    *off = (uint64_t)k * b->block_bytes + (uint64_t)pos;
    return KT_RANGE_AT;
}

static kt_status block_open(void *ctx, uint64_t off, kt_src **out)
{
    return kt_src_open_blocks(ctx, off, out);
}

static void block_release(void *ctx, uint64_t end, size_t next)
{
    kt_blocks *b = ctx;
    size_t upto = (size_t)(end / b->block_bytes);
    if (upto > next) upto = next;
    pthread_mutex_lock(&b->lock);
    for (; b->released < upto && b->released < b->n; b->released++) {
        char *buf = b->blk[b->released];
        b->blk[b->released] = NULL;
        if (b->nspare < b->max_live) b->spare[b->nspare++] = buf;
        else free(buf);
    }
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

static void blocks_free(kt_blocks *b)
{
    pthread_mutex_lock(&b->lock);
    b->stop = true;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->thread, NULL);
    for (size_t i = b->released; i < b->n; i++) free(b->blk[i]);
    for (size_t i = 0; i < b->nspare; i++) free(b->spare[i]);
    free(b->blk);
    free(b->len);
    free(b->spare);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->changed);
}

kt_status kt_parse_gzip_split(kt_load_ctx *ctx, kt_file_job *j, kt_src *src, kt_icache *cache)
{
    size_t block = ctx->range_bytes < MAX_BLOCK_BYTES ? (size_t)ctx->range_bytes : MAX_BLOCK_BYTES;
    size_t threads = (size_t)(ctx->threads - (int)ctx->njobs + 1);
    kt_blocks b = { .ctx = ctx, .gz = src, .block_bytes = block, .max_live = 2 * threads + 2 };
    b.spare = malloc(b.max_live * sizeof *b.spare);
    if (!b.spare) return KT_ENOMEM;
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.changed, NULL);
    if (pthread_create(&b.thread, NULL, inflater, &b) != 0) {
        pthread_mutex_destroy(&b.lock);
        pthread_cond_destroy(&b.changed);
        free(b.spare);
        return KT_ENOMEM;
    }
    kt_range_io io = { &b, block_start, block_open, block_release };
    uint64_t json_bytes = 0;
    kt_status st = kt_parse_ranges(ctx, j, cache, &io, &json_bytes);
    blocks_free(&b);
    if (st == KT_OK) j->rank->json_bytes = b.total;
    return st;
}
