/*
 * split.c — one large plain trace parsed by several threads at once.
 *
 * A single rank's file is often most of the work (one 2 GB trace and
 * nothing else), so the file is cut into byte ranges parsed in parallel.
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

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_BYTES ((size_t)64 << 10)      /* searched for a range start     */

typedef struct split {
    kt_load_ctx *ctx;
    kt_file_job *j;
    uint64_t *starts;     /* guessed start of each range; starts[0] = 0      */
    size_t n;

    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t next_task;     /* next range to parse                           */
    size_t next_commit;   /* range whose turn it is to be committed        */

    /* the verified prefix (touched only by the committing thread) */
    kt_parser acc;        /* counts, metadata and reports of the file      */
    uint64_t end;         /* offset where the prefix's parse stopped       */
    bool complete;        /* the prefix reached the end of the data        */
    bool failed;
    bool ok;              /* the file is a Kineto trace (range 0 said so)  */
} split;

bool kt_split_worth_it(const kt_load_ctx *ctx, const kt_file_job *j)
{
    return !j->buf && !j->rank->gzip && ctx->threads > 1 && (size_t)ctx->threads > ctx->njobs &&
           j->rank->file_bytes >= 2 * ctx->range_bytes; /* smaller: one thread */
}

/* A plausible event start in buf: '{' with ',' or '[' before it and '"'
 * after it (blanks allowed).  Returns its index or -1.                   */
static long event_start_in(const char *buf, size_t n)
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

/* Guess range starts every range_bytes (ranges without a guess merge
 * into the previous one).                                                 */
static bool guess_starts(split *s)
{
    uint64_t size = s->j->rank->file_bytes;
    uint64_t step = s->ctx->range_bytes;
    size_t max = (size_t)(size / step) + 1;
    char *buf = malloc(PROBE_BYTES);
    s->starts = malloc(max * sizeof *s->starts);
    if (!buf || !s->starts) {
        free(buf);
        return false;
    }
    char err[256];
    kt_src *src = NULL;
    s->starts[s->n++] = 0;
    for (size_t k = 1; k < max; k++) {
        uint64_t at = (uint64_t)k * step;
        if (kt_src_open_range(s->j->path, at, at + PROBE_BYTES, &src, err, sizeof err) != KT_OK) break;
        ptrdiff_t got = kt_src_read(src, buf, PROBE_BYTES);
        kt_src_close(src);
        long pos = got > 0 ? event_start_in(buf, (size_t)got) : -1;
        if (pos >= 0 && at + (uint64_t)pos > s->starts[s->n - 1]) s->starts[s->n++] = at + (uint64_t)pos;
    }
    free(buf);
    return true;
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
    if (!kt_rank_append(dst, src)) return false;
    dst->total_events += src->total_events;
    for (int c = 0; c < 128; c++) dst->by_ph[c] += src->by_ph[c];
    dst->ns_resolution |= src->ns_resolution;
    for (size_t i = 0; i < p->xcat.cap; i++)
        if (p->xcat.id[i] != KT_NONE && !kt_catcount_add(&acc->xcat, p->xcat.id[i], p->xcat.count[i]))
            return false;
    merge_pdiags(acc, p);
    if (p->seen_events) acc->seen_events = true;
    return merge_meta(acc, p);
}

/* ---- parsing one range ------------------------------------------------------ */
typedef struct worker_state {
    kt_icache *cache;
    kt_rank *staging;
    kt_window w;
    kt_parser p;
    bool have_parser;
} worker_state;

static void reset_staging(kt_rank *r)
{
    r->ev.n = 0;
    r->nargs = 0;
    r->total_events = 0;
    memset(r->by_ph, 0, sizeof r->by_ph);
    r->ns_resolution = false;
}

/* Parse [from, next range's guess) into ws->staging. */
static bool parse_range(split *s, worker_state *ws, size_t k, uint64_t from)
{
    if (ws->have_parser) kt_parser_free(&ws->p);
    ws->have_parser = false;
    reset_staging(ws->staging);
    kt_src *src;
    char err[256];
    if (kt_src_open_range(s->j->path, from, s->j->rank->file_bytes, &src, err, sizeof err) != KT_OK)
        return false;
    kt_window_reset(&ws->w, from);
    bool ok = kt_job_parser(&ws->p, s->ctx, s->j, ws->staging, ws->cache, &ws->w);
    if (ok) {
        ws->have_parser = true;
        ws->p.limit = k + 1 < s->n ? s->starts[k + 1] : UINT64_MAX;
        if (from > 0) {
            ws->p.state = KT_PS_EVENT;
            ws->p.in_range = true;
        }
        ok = kt_parse_stream(&ws->p, src) || from == 0;
    }
    kt_src_close(src);
    return ok && !ws->p.oom;
}

/* Accept a parsed range into the prefix. */
static bool accept(split *s, kt_parser *p)
{
    if (p->state == KT_PS_FAILED) {
        s->failed = true;
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

/* Range k (parsed into ws) in its turn: accept it if it starts where the
 * prefix ended, else parse again from the true end of the prefix.        */
static void commit(split *s, worker_state *ws, size_t k, bool parsed)
{
    if (s->failed || s->complete) return; /* after the end: guesses inside trailing data */
    if (k > 0 && s->end != s->starts[k]) parsed = parse_range(s, ws, k, s->end);
    if (!parsed) {
        s->failed = true;
        s->acc.oom |= ws->have_parser && ws->p.oom;
        if (!s->acc.fail[0]) snprintf(s->acc.fail, sizeof s->acc.fail, "cannot read the file");
        return;
    }
    accept(s, &ws->p);
}

static void *range_worker(void *arg)
{
    split *s = arg;
    worker_state ws = { .cache = kt_icache_new(), .staging = kt_rank_new() };
    bool ready = ws.cache && ws.staging && kt_window_init(&ws.w, 0);
    for (;;) {
        pthread_mutex_lock(&s->lock);
        size_t k = s->next_task++;
        bool stop = k >= s->n || s->failed;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        bool parsed = ready && parse_range(s, &ws, k, s->starts[k]);
        pthread_mutex_lock(&s->lock);
        while (s->next_commit != k) pthread_cond_wait(&s->turn, &s->lock);
        pthread_mutex_unlock(&s->lock);
        if (ready) commit(s, &ws, k, parsed);
        else s->failed = true;
        pthread_mutex_lock(&s->lock);
        s->next_commit++;
        pthread_cond_broadcast(&s->turn);
        pthread_mutex_unlock(&s->lock);
    }
    if (ws.have_parser) kt_parser_free(&ws.p);
    if (ws.w.mem) kt_window_free(&ws.w);
    kt_rank_free(ws.staging);
    free(ws.cache);
    return NULL;
}

static void run_ranges(split *s, int threads)
{
    pthread_t th[64];
    int started = 0;
    for (int i = 1; i < threads && i < 64; i++, started++)
        if (pthread_create(&th[i - 1], NULL, range_worker, s) != 0) break;
    range_worker(s);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
}

kt_status kt_parse_split(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache)
{
    split s = { .ctx = ctx, .j = j };
    kt_window none = { 0 };
    if (!guess_starts(&s) || !kt_job_parser(&s.acc, ctx, j, j->rank, cache, &none)) {
        free(s.starts);
        return KT_ENOMEM;
    }
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.turn, NULL);
    int threads = ctx->threads - (int)ctx->njobs + 1;
    run_ranges(&s, threads);
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.turn);
    bool ok = !s.failed;
    if (ok && !s.acc.seen_events) {
        snprintf(s.acc.fail, sizeof s.acc.fail, "not a Kineto trace (no traceEvents%s)",
                 s.acc.looks_et ? "; looks like a PyTorch execution trace" : "");
        ok = false;
    }
    kt_status st = kt_finish_job(j, &s.acc, ok, j->rank->file_bytes);
    kt_parser_free(&s.acc);
    free(s.starts);
    return st;
}
