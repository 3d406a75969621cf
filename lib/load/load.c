/*
 * load.c — kt_load: files → ranks → a finished trace.
 *
 * Files are parsed on a pool of worker threads (one file at a time per
 * worker; a large plain file is itself split into byte ranges, see
 * split.c), each worker with its own window and intern cache, and builds
 * the rank's indexes right after parsing it (ranks are independent, so
 * indexes of several files are built in parallel).  Afterwards, on the
 * calling thread: diagnostics in file order, rank assignment and the
 * duplicate check, the cross-rank origin and, when asked, HTA's load
 * semantics.
 */
#include "load_internal.h"
#include "cache.h"
#include "readers.h"
#include "model/index.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int default_jobs(const kt_load_options *opt)
{
    if (opt && opt->jobs > 0) return opt->jobs;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

kt_icache *kt_icache_new(void)
{
    kt_icache *c = malloc(sizeof *c);
    for (size_t i = 0; c && i < KT_ICACHE_SIZE; i++) c->e[i].id = KT_NONE;
    return c;
}

/* ---- one file ----------------------------------------------------------------- */
static bool finish_rank(kt_parser *p, uint64_t json_bytes)
{
    kt_rank *r = p->r;
    r->json_bytes = json_bytes;
    if (!kt_meta_finish(p)) return false;
    kt_catcount *c = &p->xcat;
    r->xcat_id = malloc((c->n ? c->n : 1) * sizeof *r->xcat_id);
    r->xcat_count = malloc((c->n ? c->n : 1) * sizeof *r->xcat_count);
    if (!r->xcat_id || !r->xcat_count) return false;
    r->nxcat = 0;
    for (size_t i = 0; i < c->cap; i++)
        if (c->id[i] != KT_NONE) {
            r->xcat_id[r->nxcat] = c->id[i];
            r->xcat_count[r->nxcat++] = c->count[i];
        }
    return true;
}

bool kt_job_parser(kt_parser *p, kt_load_ctx *ctx, kt_file_job *j, kt_rank *r, kt_icache *cache,
                   kt_window *w)
{
    if (!kt_parser_init(p, r, ctx->strs, cache, j->path, w)) return false;
    p->opt = ctx->opt;
    p->progress_done = &ctx->done;
    p->progress_total = ctx->total;
    return true;
}

kt_status kt_finish_job(kt_file_job *j, kt_parser *p, bool ok, uint64_t json_bytes)
{
    if (p->oom && p->full) { /* not out of memory: past what the model can index */
        snprintf(p->fail, sizeof p->fail,
                 "more than %zu %s in one file: a rank's 32-bit indexes hold no more (profile fewer steps)",
                 strcmp(p->full, "events") ? KT_ARGS_MAX : KT_EVENTS_MAX, p->full);
        p->oom = false;
        ok = false;
    }
    kt_status st = p->oom ? KT_ENOMEM : ok ? KT_OK : KT_EINPUT;
    if (st == KT_OK && !finish_rank(p, json_bytes)) st = KT_ENOMEM;
    j->dist_rank = p->dist_rank;
    j->not_trace = st == KT_EINPUT && p->not_trace;
    kt_pid_roles_report(p);
    if (!kt_pdiag_flush(p, &j->diags)) st = KT_ENOMEM;
    if (st == KT_EINPUT) kt_diags_add(&j->diags, KT_DIAG_ERROR, j->path, -1, "%s", p->fail);
    if (st == KT_ENOMEM) kt_diags_add(&j->diags, KT_DIAG_ERROR, j->path, -1, "out of memory");
    return st;
}

static kt_status open_job_source(kt_file_job *j, kt_src **src)
{
    char err[256];
    kt_status st = j->buf ? kt_src_open_mem(j->buf, j->len, src)
                          : kt_src_open_file(j->path, src, err, sizeof err);
    if (st == KT_EINPUT) kt_diags_add(&j->diags, KT_DIAG_ERROR, j->path, -1, "%s", err);
    return st;
}

/* Parse a whole stream into j->rank. */
static kt_status parse_whole(kt_load_ctx *ctx, kt_file_job *j, kt_src *src, kt_icache *cache)
{
    kt_window w;
    kt_parser p;
    if (!kt_window_init(&w, 0)) return KT_ENOMEM;
    if (!kt_job_parser(&p, ctx, j, j->rank, cache, &w)) {
        kt_window_free(&w);
        return KT_ENOMEM;
    }
    bool ok = kt_parse_stream(&p, src);
    kt_status st = kt_finish_job(j, &p, ok, w.base + w.len);
    kt_parser_free(&p);
    kt_window_free(&w);
    return st;
}

/* Parse j's file or buffer into j->rank. */
static void parse_job(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache)
{
    if (kt_foreign_job(ctx, j)) return; /* another profiler's format (readers.h) */
    kt_src *src = NULL;
    j->status = open_job_source(j, &src);
    if (j->status != KT_OK) return;
    j->rank = kt_rank_new();
    if (!j->rank || !(j->rank->file = strdup(j->path))) {
        j->status = KT_ENOMEM;
        kt_src_close(src);
        return;
    }
    j->rank->gzip = kt_src_is_gzip(src);
    j->rank->file_bytes = kt_src_file_bytes(src);
    if (kt_split_worth_it(ctx, j)) {
        j->status = j->rank->gzip ? kt_parse_gzip_split(ctx, j, src, cache) : kt_parse_split(ctx, j, cache);
    } else {
        if (j->rank->gzip) kt_src_start_prefetch(src); /* inflate while parsing */
        j->status = parse_whole(ctx, j, src, cache);
    }
    const char *warn = kt_src_warning(src);
    if (warn) kt_diags_add(&j->diags, KT_DIAG_WARNING, j->path, -1, "%s", warn);
    kt_src_close(src);
}

static void load_one(kt_load_ctx *ctx, kt_file_job *j, kt_icache *cache)
{
    kt_cache_ticket ticket;
    bool mapped = kt_cache_load_job(ctx, j, &ticket);
    /* the cache holds the model as parsed: HTA's rounding must not reach it */
    j->hta_rows = ctx->opt && ctx->opt->hta_compat && !ticket.keyed;
    if (!mapped) parse_job(ctx, j, cache);
    if (j->status != KT_OK) return;
    /* per-rank work that needs no other rank, on this worker */
    j->rank->device_type = kt_summary_device_type(j->rank, ctx->strs);
    if (!(ctx->opt && ctx->opt->hta_compat) && !j->rank->idx) { /* compat: kt_apply_hta_compat builds it */
        /* a second thread only while some worker has run out of files */
        int threads = atomic_load(&ctx->working) < ctx->threads ? 2 : 1;
        j->status = kt_index_build_threads(j->rank, ctx->strs, threads);
    }
    if (!mapped) kt_cache_store_job(ctx, j, &ticket); /* the model as parsed, before compat */
}

/* ---- the pool -------------------------------------------------------------- */
static void *worker(void *arg)
{
    kt_load_ctx *ctx = arg;
    kt_icache *cache = kt_icache_new();
    for (;;) {
        size_t i = atomic_fetch_add(&ctx->next, 1);
        if (i >= ctx->njobs) break;
        if (!cache) {
            ctx->jobs[i].status = KT_ENOMEM;
            continue;
        }
        load_one(ctx, &ctx->jobs[i], cache);
    }
    atomic_fetch_sub(&ctx->working, 1);
    free(cache);
    return NULL;
}

static void run_pool(kt_load_ctx *ctx)
{
    size_t n = (size_t)ctx->threads < ctx->njobs ? (size_t)ctx->threads : ctx->njobs;
    pthread_t *th = calloc(n, sizeof *th);
    size_t started = 0;
    atomic_store(&ctx->working, 1); /* this thread */
    for (size_t i = 1; th && i < n; i++, started++) {
        atomic_fetch_add(&ctx->working, 1);
        if (pthread_create(&th[i], NULL, worker, ctx) != 0) {
            atomic_fetch_sub(&ctx->working, 1);
            break;
        }
    }
    worker(ctx); /* the calling thread works too */
    for (size_t i = 1; i <= started; i++) pthread_join(th[i], NULL);
    free(th);
}

/* ---- finishing ------------------------------------------------------------- */
static bool move_diags(kt_diags *dst, kt_diags *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const kt_diag *d = &src->d[i];
        if (!kt_diags_add(dst, d->level, d->file, d->offset, "%s", d->message)) return false;
    }
    kt_diags_clear(src);
    return true;
}

/* A lone file without a rank is rank 0 and nothing can clash with it: a
 * note (`kineta info` shows it), not a warning on every command; among
 * several files the assumption can be wrong, so it warns.               */
static void assign_rank(kt_trace *t, kt_file_job *j, bool lone)
{
    kt_rank *r = j->rank;
    if (j->explicit_rank >= 0) r->rank = j->explicit_rank;
    else if (j->dist_rank >= 0) r->rank = (int)j->dist_rank;
    else if ((r->rank = kt_rank_from_filename(j->path)) < 0) {
        r->rank = 0;
        kt_diags_add(&t->diags, lone ? KT_DIAG_INFO : KT_DIAG_WARNING, j->path, -1,
                     "no rank in distributedInfo or in the file name: assuming rank 0");
    }
}

static int by_rank(const void *a, const void *b)
{
    const kt_rank *x = *(kt_rank *const *)a, *y = *(kt_rank *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static kt_status check_duplicates(kt_trace *t)
{
    kt_status st = KT_OK;
    for (size_t i = 1; i < t->nranks; i++)
        if (t->ranks[i]->rank == t->ranks[i - 1]->rank) {
            kt_diags_add(&t->diags, KT_DIAG_ERROR, t->ranks[i]->file, -1,
                         "rank %d is also the rank of %s: give each file its own rank, or load them "
                         "separately",
                         t->ranks[i]->rank, t->ranks[i - 1]->file);
            st = KT_EINPUT;
        }
    return st;
}

/* A directory may hold other JSON beside the rank files (a synthesizer's
 * truth.json, a memory snapshot): such a file is skipped with a note.  A
 * file named explicitly stays an error.                                    */
static bool skip_non_trace(kt_trace *t, kt_file_job *j)
{
    if (!j->in_dir || !j->not_trace) return false;
    kt_diags_clear(&j->diags);
    kt_diags_add(&t->diags, KT_DIAG_INFO, j->path, -1, "skipped: valid JSON but not a Kineto trace");
    return true;
}

static kt_status build_trace(kt_trace *t, kt_load_ctx *ctx)
{
    kt_status st = KT_OK;
    for (size_t i = 0; i < ctx->njobs; i++) {
        kt_file_job *j = &ctx->jobs[i];
        if (skip_non_trace(t, j)) continue;
        if (!move_diags(&t->diags, &j->diags)) st = KT_ENOMEM;
        if (j->status != KT_OK) {
            if (st == KT_OK || j->status == KT_ENOMEM) st = j->status;
            continue;
        }
        assign_rank(t, j, ctx->njobs == 1);
        t->ranks[t->nranks++] = j->rank;
        j->rank = NULL;
    }
    if (st == KT_OK && t->nranks == 0) {
        kt_diags_add(&t->diags, KT_DIAG_ERROR, NULL, -1, "no Kineto trace among the input files");
        st = KT_EINPUT;
    }
    if (st != KT_OK) return st;
    qsort(t->ranks, t->nranks, sizeof *t->ranks, by_rank);
    st = check_duplicates(t);
    if (st != KT_OK) return st;
    kt_trace_align(t);
    if (ctx->opt && ctx->opt->hta_compat) {
        t->hta_compat = true;
        st = kt_apply_hta_compat_threads(t, ctx->threads);
    }
    return st;
}

static kt_status fail_with(kt_trace *t, kt_status st, kt_diags **failure)
{
    if (failure) {
        *failure = calloc(1, sizeof **failure);
        if (*failure) {
            **failure = t->diags;
            memset(&t->diags, 0, sizeof t->diags);
        }
    }
    kt_trace_free(t);
    return st;
}

static kt_status load_jobs(kt_file_job *jobs, size_t njobs, const kt_load_options *opt,
                           uint64_t range_bytes, kt_trace *t, kt_trace **out, kt_diags **failure)
{
    kt_load_ctx ctx = { .strs = t->strs, .opt = opt, .jobs = jobs, .njobs = njobs,
                        .threads = default_jobs(opt), .range_bytes = range_bytes };
    for (size_t i = 0; i < njobs; i++) ctx.total += jobs[i].file_bytes;
    t->ranks = calloc(njobs ? njobs : 1, sizeof *t->ranks);
    if (!t->ranks) return fail_with(t, KT_ENOMEM, failure);
    run_pool(&ctx);
    kt_status st = build_trace(t, &ctx);
    for (size_t i = 0; i < njobs; i++) {
        kt_rank_free(jobs[i].rank);
        kt_diags_clear(&jobs[i].diags);
    }
    if (st != KT_OK) return fail_with(t, st, failure);
    *out = t;
    return KT_OK;
}

void kt_load_options_init(kt_load_options *o, size_t size)
{
    const kt_load_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

/* The caller's options over the defaults in *o (docs/api.md). */
static bool take_options(const kt_load_options *opt, kt_load_options *o, kt_diags **failure)
{
    *o = kt_load_defaults();
    if (kt_options_take(o, sizeof *o, opt)) return true;
    kt_diags_fail(failure, NULL, "kt_load_options.size is 0 or from a newer kineta.h: set it with kt_load_defaults()");
    return false;
}

static kt_trace *trace_new(void)
{
    kt_trace *t = calloc(1, sizeof *t);
    if (t && !(t->strs = kt_strtab_new())) {
        free(t);
        t = NULL;
    }
    return t;
}

kt_status kt_load(const char *const *paths, size_t npaths, const kt_load_options *opt,
                  kt_trace **out, kt_diags **failure)
{
    return kt_load_ranges(paths, npaths, opt, KT_RANGE_BYTES, out, failure);
}

kt_status kt_load_ranges(const char *const *paths, size_t npaths, const kt_load_options *opt,
                         uint64_t range_bytes, kt_trace **out, kt_diags **failure)
{
    *out = NULL;
    kt_diags_begin(failure);
    kt_load_options o;
    if (!take_options(opt, &o, failure)) return KT_EUSAGE;
    opt = &o;
    kt_trace *t = trace_new();
    if (!t) return KT_ENOMEM;
    kt_filelist files;
    kt_status st = kt_discover(paths, npaths, opt, &files, &t->diags);
    kt_file_job *jobs = st == KT_OK ? calloc(files.n ? files.n : 1, sizeof *jobs) : NULL;
    if (st == KT_OK && !jobs) st = KT_ENOMEM;
    if (st != KT_OK) {
        kt_filelist_free(&files);
        return fail_with(t, st, failure);
    }
    for (size_t i = 0; i < files.n; i++)
        jobs[i] = (kt_file_job){ .path = files.paths[i], .explicit_rank = files.explicit_rank[i],
                                 .in_dir = files.in_dir[i], .file_bytes = kt_file_size(files.paths[i]) };
    st = load_jobs(jobs, files.n, opt, range_bytes, t, out, failure);
    free(jobs);
    kt_filelist_free(&files);
    return st;
}

kt_status kt_load_listed(const char *path, int explicit_rank, bool in_dir, const kt_load_options *opt,
                         kt_trace **out, kt_diags **failure, bool *skipped)
{
    *out = NULL;
    kt_diags_begin(failure);
    *skipped = false;
    kt_load_options o;
    if (!take_options(opt, &o, failure)) return KT_EUSAGE;
    opt = &o;
    kt_trace *t = trace_new();
    if (!t) return KT_ENOMEM;
    kt_file_job job = { .path = path, .explicit_rank = explicit_rank, .in_dir = in_dir,
                        .file_bytes = kt_file_size(path) };
    kt_status st = load_jobs(&job, 1, opt, KT_RANGE_BYTES, t, out, failure);
    *skipped = st != KT_OK && in_dir && job.not_trace;
    return st;
}

kt_status kt_load_buffer(const char *name, const void *buf, size_t len, const kt_load_options *opt,
                         kt_trace **out, kt_diags **failure)
{
    *out = NULL;
    kt_diags_begin(failure);
    kt_load_options o;
    if (!take_options(opt, &o, failure)) return KT_EUSAGE;
    opt = &o;
    kt_trace *t = trace_new();
    if (!t) return KT_ENOMEM;
    int explicit_rank = opt->ranks ? opt->ranks[0] : -1;
    kt_file_job job = { .path = name ? name : "(buffer)", .buf = buf ? buf : "", .len = len,
                        .explicit_rank = explicit_rank, .file_bytes = len };
    return load_jobs(&job, 1, opt, KT_RANGE_BYTES, t, out, failure);
}

void kt_trace_free(kt_trace *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nranks; i++) kt_rank_free(t->ranks[i]);
    free(t->ranks);
    kt_strtab_free(t->strs);
    kt_diags_clear(&t->diags);
    free(t);
}
