/*
 * split.c — one large trace parsed by several threads at once.
 *
 * A single rank's file is often most of the work (one 2 GB trace and
 * nothing else), so its JSON is cut into byte ranges parsed in parallel
 * (plain files: ranges of the file read with pread; gzip: ranges of the
 * decompressed stream, see gz_blocks.c).
 * Where a range starts is a guess: the first '{' after the cut that looks
 * like an event start (a ',' or '[' before it, a '"' after it).  The guess
 * is never trusted: ranges are committed in file order, and a range is
 * accepted only if the verified prefix before it ended exactly where the
 * range began (the previous range's parser stops at the first event start
 * at or after that point).  Otherwise the committing thread parses the
 * region again from where the prefix really ended, so the result is always
 * the one a sequential parse gives.
 *
 * Each thread parses into a small reused staging rank, and appends it to
 * the file's rank when its turn comes; staging memory is warm after the
 * first range, so the model's final arrays are the only fresh memory.
 */
#include "load_internal.h"
#include "model/hta_rows.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_BYTES ((size_t)64 << 10)      /* searched for a range start     */

/* One range's parse result, waiting for its turn to be committed.  There
 * are more slots than threads, so a thread that finishes a range ahead of
 * its turn parses the next one instead of waiting (with two cores, the
 * waits cost ~10% of a .json.gz load).                                    */
typedef struct range_slot {
    kt_rank *staging;     /* the range's events (reused across ranges)     */
    kt_parser p;          /* its counts, metadata and reports              */
    bool have_parser;
    size_t k;             /* which range                                   */
    kt_range_kind kind;   /* KT_RANGE_NONE: no start guessed, nothing to do */
    uint64_t start;       /* where it was parsed from                      */
    bool parsed;          /* the parse succeeded                           */
    bool ready;           /* parsed, waiting for its turn                  */
    bool busy;            /* taken by a thread                             */
} range_slot;

typedef struct split {
    kt_load_ctx *ctx;
    kt_file_job *j;
    const kt_range_io *io;

    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t next_task;     /* next range to parse                           */
    size_t next_commit;   /* range whose turn it is to be committed        */
    bool committing;      /* a thread is committing (only one at a time)   */
    range_slot *slots;    /* threads + 1                                   */
    size_t nslots;

    /* the verified prefix (touched only by the committing thread) */
    kt_parser acc;        /* counts, metadata and reports of the file      */
    uint64_t end;         /* offset where the prefix's parse stopped       */
    bool complete;        /* the prefix reached the end of the data        */
    bool failed;          /* lock held: every thread reads it               */
} split;

bool kt_split_worth_it(const kt_load_ctx *ctx, const kt_file_job *j)
{
    if (j->buf || ctx->threads < 2 || (size_t)ctx->threads <= ctx->njobs) return false;
    /* smaller files: one thread; gzip compresses traces ~10x */
    return j->rank->file_bytes >= (j->rank->gzip ? ctx->range_bytes / 4 : 2 * ctx->range_bytes);
}

long kt_event_start_in(const char *buf, size_t n)
{
    for (const char *b = buf; (b = memchr(b, '{', (size_t)(buf + n - b))); b++) {
        const char *before = b;
        while (before > buf && (before[-1] == ' ' || before[-1] == '\n' || before[-1] == '\r' ||
                                before[-1] == '\t'))
            before--;
        const char *after = kt_skip_ws(b + 1, buf + n);
        if (before > buf && (before[-1] == ',' || before[-1] == '[') && after < buf + n && *after == '"')
            return b - buf;
    }
    return -1;
}

/* ---- plain files: ranges of the file --------------------------------------- */
typedef struct file_ranges {
    const kt_file_job *j;
    uint64_t *starts; /* guessed start of each range; starts[0] = 0 */
    size_t n;
} file_ranges;

/* Guess range starts every range_bytes (ranges without a guess merge
 * into the previous one).                                                 */
static bool guess_starts(file_ranges *f, uint64_t step)
{
    uint64_t size = f->j->rank->file_bytes;
    size_t max = (size_t)(size / step) + 1;
    char *buf = malloc(PROBE_BYTES);
    f->starts = malloc(max * sizeof *f->starts);
    if (!buf || !f->starts) {
        free(buf);
        return false;
    }
    char err[256];
    kt_src *src = NULL;
    f->starts[f->n++] = 0;
    for (size_t k = 1; k < max; k++) {
        uint64_t at = (uint64_t)k * step;
        if (kt_src_open_range(f->j->path, at, at + PROBE_BYTES, &src, err, sizeof err) != KT_OK) break;
        ptrdiff_t got = kt_src_read(src, buf, PROBE_BYTES);
        kt_src_close(src);
        long pos = got > 0 ? kt_event_start_in(buf, (size_t)got) : -1;
        if (pos >= 0 && at + (uint64_t)pos > f->starts[f->n - 1]) f->starts[f->n++] = at + (uint64_t)pos;
    }
    free(buf);
    return true;
}

static kt_range_kind file_start(void *ctx, size_t k, uint64_t *off)
{
    file_ranges *f = ctx;
    if (k >= f->n) return KT_RANGE_END;
    *off = f->starts[k];
    return KT_RANGE_AT;
}

static kt_status file_open(void *ctx, uint64_t off, kt_src **out)
{
    file_ranges *f = ctx;
    char err[256];
    return kt_src_open_range(f->j->path, off, f->j->rank->file_bytes, out, err, sizeof err);
}

static void file_release(void *ctx, uint64_t end, size_t next)
{
    (void)ctx, (void)end, (void)next; /* the page cache holds the file */
}

/* ---- merging a range's results into the file's ------------------------------ */
static void merge_pdiags(kt_parser *acc, const kt_parser *p)
{
    for (int k = 0; k < KT_PD__COUNT; k++) {
        const kt_pdiag *d = &p->pd[k];
        kt_pdiag *a = &acc->pd[k];
        if (!d->count) continue;
        if (!a->count || (d->offset >= 0 && (a->offset < 0 || d->offset < a->offset))) {
            a->offset = d->offset;
            memcpy(a->detail, d->detail, sizeof a->detail);
        }
        a->count += d->count;
    }
}

static bool merge_meta(kt_parser *acc, const kt_parser *p)
{
    kt_rank *dst = acc->r, *src = p->r;
    if (p->dist_rank >= 0) acc->dist_rank = p->dist_rank;
    acc->looks_et |= p->looks_et;
    if (src->world_size >= 0) dst->world_size = src->world_size;
    if (src->schema_version >= 0) dst->schema_version = src->schema_version;
    if (src->backend != KT_NONE) dst->backend = src->backend;
    if (src->has_base_time) {
        dst->has_base_time = true;
        dst->base_time_ns = src->base_time_ns;
    }
    if (src->ndevices) { /* only the range holding deviceProperties has any */
        free(dst->device_names);
        dst->device_names = src->device_names;
        dst->ndevices = src->ndevices;
        src->device_names = NULL;
        src->ndevices = 0;
    }
    if (!p->meta_len) return true;
    kt_parser *a = acc;
    size_t need = a->meta_len + p->meta_len + 3;
    if (need > a->meta_cap) {
        char *m = realloc(a->meta, need);
        if (!m) return false;
        a->meta = m;
        a->meta_cap = need;
    }
    if (a->meta_len) {
        memcpy(a->meta + a->meta_len, ", ", 2);
        a->meta_len += 2;
    }
    memcpy(a->meta + a->meta_len, p->meta, p->meta_len + 1);
    a->meta_len += p->meta_len;
    return true;
}

static bool merge_range(split *s, kt_parser *p)
{
    kt_parser *acc = &s->acc;
    kt_rank *dst = acc->r, *src = p->r;
    if (!kt_rank_append(dst, src)) {
        if (!kt_rank_fits(dst, src->ev.n, src->nargs))
            acc->full = kt_rank_fits(dst, src->ev.n, 0) ? "typed args" : "events";
        return false;
    }
    if (!kt_hta_rows_join(dst, src)) return false;
    dst->total_events += src->total_events;
    for (int c = 0; c < 128; c++) dst->by_ph[c] += src->by_ph[c];
    dst->ns_resolution |= src->ns_resolution;
    dst->shape_args |= src->shape_args;
    kt_summary_merge(&dst->summary, &src->summary);
    if (src->events_end) dst->events_end = src->events_end;
    if (src->events_open) dst->events_open = src->events_open;
    for (size_t i = 0; i < p->xcat.cap; i++)
        if (p->xcat.id[i] != KT_NONE && !kt_catcount_add(&acc->xcat, p->xcat.id[i], p->xcat.count[i]))
            return false;
    merge_pdiags(acc, p);
    kt_pid_roles_merge(&acc->roles, &p->roles);
    if (p->seen_events) acc->seen_events = true;
    return merge_meta(acc, p);
}

/* ---- parsing one range ------------------------------------------------------ */
typedef struct worker_state {
    kt_icache *cache;
    kt_window w;
} worker_state;

static void reset_staging(kt_rank *r)
{
    r->ev.n = 0;
    r->nargs = 0;
    r->total_events = 0;
    memset(r->by_ph, 0, sizeof r->by_ph);
    r->ns_resolution = false;
    r->shape_args = false;
    r->events_end = 0;
    r->events_open = 0;
    kt_summary_reset(&r->summary);
    kt_idtab_free(&r->ids);
    kt_events_clear_threads(&r->ev); /* their values may name the ids just freed */
}

/* Where range k ends: the next range's guessed start. */
static uint64_t range_limit(split *s, size_t k)
{
    uint64_t off;
    for (size_t next = k + 1;; next++) {
        kt_range_kind kind = s->io->start(s->io->ctx, next, &off);
        if (kind == KT_RANGE_AT) return off;
        if (kind == KT_RANGE_END) return UINT64_MAX;
    }
}

/* Parse [from, the next range's guess) into slot sl with this thread's
 * window and intern cache.                                                */
static bool parse_range(split *s, worker_state *ws, range_slot *sl, size_t k, uint64_t from)
{
    if (sl->have_parser) kt_parser_free(&sl->p);
    sl->have_parser = false;
    reset_staging(sl->staging);
    kt_src *src;
    if (s->io->open(s->io->ctx, from, &src) != KT_OK) return false;
    kt_window_reset(&ws->w, from);
    bool ok = kt_job_parser(&sl->p, s->ctx, s->j, sl->staging, ws->cache, &ws->w);
    if (ok) {
        sl->have_parser = true;
        sl->p.limit = range_limit(s, k);
        if (from > 0) {
            sl->p.state = KT_PS_EVENT;
            sl->p.in_range = true;
        }
        ok = kt_parse_stream(&sl->p, src) || from == 0;
    }
    kt_src_close(src);
    /* while the range's columns are in cache */
    if (ok && s->j->hta_rows && !kt_hta_rows_read(sl->staging, s->ctx->strs, 1)) sl->p.oom = true;
    return ok && !sl->p.oom;
}

/* Accept a parsed range into the prefix (false: the file failed). */
static bool accept(split *s, kt_parser *p)
{
    if (p->state == KT_PS_FAILED) {
        memcpy(s->acc.fail, p->fail, sizeof s->acc.fail);
        s->acc.oom |= p->oom;
        return false;
    }
    if (!merge_range(s, p)) {
        s->acc.oom = true;
        return false;
    }
    s->complete = p->state != KT_PS_STOPPED;
    s->end = p->end_off;
    return true;
}

/* Slot sl (range sl->k) in its turn: accept it if it starts where the
 * prefix ended, else parse again from the true end of the prefix.  Runs
 * without the lock (one thread at a time): false when the file failed,
 * which the caller records under the lock.                                */
static bool commit(split *s, worker_state *ws, range_slot *sl)
{
    if (s->complete) return true; /* after the end: guesses inside trailing data */
    bool parsed = sl->parsed;
    if (sl->k > 0 && s->end != sl->start) parsed = parse_range(s, ws, sl, sl->k, s->end);
    if (!parsed) {
        s->acc.oom |= sl->have_parser && sl->p.oom;
        if (!s->acc.fail[0]) snprintf(s->acc.fail, sizeof s->acc.fail, "cannot read the file");
        return false;
    }
    if (!accept(s, &sl->p)) return false;
    s->io->release(s->io->ctx, s->end, sl->k + 1);
    return true;
}

/* The slot holding range k when it is ready, else NULL (lock held). */
static range_slot *ready_slot(split *s, size_t k)
{
    for (size_t i = 0; i < s->nslots; i++)
        if (s->slots[i].ready && s->slots[i].k == k) return &s->slots[i];
    return NULL;
}

/* Commit every range whose turn has come, unless another thread already
 * does (lock held on entry and on return).                                */
static void commit_ready(split *s, worker_state *ws)
{
    if (s->committing) return;
    s->committing = true;
    for (range_slot *sl; (sl = ready_slot(s, s->next_commit));) {
        bool skip = s->failed || sl->kind != KT_RANGE_AT;
        pthread_mutex_unlock(&s->lock);
        bool ok = skip || commit(s, ws, sl);
        pthread_mutex_lock(&s->lock);
        s->failed |= !ok;
        sl->ready = sl->busy = false;
        s->next_commit++;
        pthread_cond_broadcast(&s->turn);
    }
    s->committing = false;
}

/* A free slot (waits while all are parsed ahead; lock held). */
static range_slot *take_slot(split *s)
{
    for (;;) {
        for (size_t i = 0; i < s->nslots; i++)
            if (!s->slots[i].busy) {
                s->slots[i].busy = true;
                return &s->slots[i];
            }
        pthread_cond_wait(&s->turn, &s->lock);
    }
}

static void *range_worker(void *arg)
{
    split *s = arg;
    worker_state ws = { .cache = kt_icache_new() };
    bool ready = ws.cache && kt_window_init(&ws.w, 0);
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (s->failed) break;
        range_slot *sl = take_slot(s);
        size_t k = s->next_task++;
        pthread_mutex_unlock(&s->lock);
        uint64_t start = 0;
        kt_range_kind kind = s->io->start(s->io->ctx, k, &start);
        bool parsed = kind == KT_RANGE_AT && ready && sl->staging && parse_range(s, &ws, sl, k, start);
        pthread_mutex_lock(&s->lock);
        if (kind == KT_RANGE_END) {
            sl->busy = false;
            pthread_cond_broadcast(&s->turn);
            break;
        }
        if (!ready || !sl->staging) s->failed = true;
        sl->k = k;
        sl->kind = kind;
        sl->start = start;
        sl->parsed = parsed;
        sl->ready = true;
        commit_ready(s, &ws);
    }
    pthread_mutex_unlock(&s->lock);
    if (ws.w.mem) kt_window_free(&ws.w);
    free(ws.cache);
    return NULL;
}

static void run_ranges(split *s, int threads)
{
    pthread_t th[64];
    int started = 0;
    s->nslots = (size_t)(threads < 1 ? 1 : threads > 64 ? 64 : threads) + 1;
    s->slots = calloc(s->nslots, sizeof *s->slots);
    if (!s->slots) {
        s->failed = s->acc.oom = true;
        return;
    }
    for (size_t i = 0; i < s->nslots; i++) s->slots[i].staging = kt_rank_new();
    for (int i = 1; i < threads && i < 64; i++, started++)
        if (pthread_create(&th[i - 1], NULL, range_worker, s) != 0) break;
    range_worker(s);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (size_t i = 0; i < s->nslots; i++) {
        if (s->slots[i].have_parser) kt_parser_free(&s->slots[i].p);
        kt_rank_free(s->slots[i].staging);
    }
    free(s->slots);
}

kt_status kt_parse_ranges(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache, const kt_range_io *io,
                          uint64_t *json_bytes)
{
    split s = { .ctx = ctx, .j = j, .io = io };
    kt_window none = { 0 };
    if (!kt_job_parser(&s.acc, ctx, j, j->rank, cache, &none)) return KT_ENOMEM;
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.turn, NULL);
    run_ranges(&s, ctx->threads - (int)ctx->njobs + 1);
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.turn);
    bool ok = !s.failed;
    if (ok && !s.acc.seen_events) {
        snprintf(s.acc.fail, sizeof s.acc.fail, "not a Kineto trace (no traceEvents%s)",
                 s.acc.looks_et ? "; looks like a PyTorch execution trace" : "");
        s.acc.not_trace = true;
        ok = false;
    }
    kt_status st = kt_finish_job(j, &s.acc, ok, *json_bytes ? *json_bytes : s.end);
    kt_parser_free(&s.acc);
    return st;
}

kt_status kt_parse_split(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache)
{
    file_ranges f = { .j = j };
    kt_range_io io = { &f, file_start, file_open, file_release };
    uint64_t json_bytes = j->rank->file_bytes;
    kt_rank_size_for_file(j->rank); /* ranges append to it in file order */
    kt_status st = guess_starts(&f, ctx->range_bytes) ? kt_parse_ranges(ctx, j, cache, &io, &json_bytes)
                                                       : KT_ENOMEM;
    free(f.starts);
    return st;
}
