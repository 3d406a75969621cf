/*
 * cache_job.c — where the loader meets the columnar cache: before parsing
 * a file, map its cache file if one is valid; after parsing it, write one.
 *
 * Only files are cached (a caller's buffer has no path, size or mtime to
 * key on).  A cache that cannot be written, or one that is rejected (it is
 * damaged, or its counts disagree with its sections), costs a parse, not
 * an answer: it is reported as a note, and the load succeeds.
 */
#include "cache.h"

bool kt_cache_load_job(const kt_load_ctx *ctx, kt_file_job *j, kt_cache_ticket *t)
{
    const char *dir = ctx->opt && !j->buf ? ctx->opt->cache_dir : NULL;
    t->rejected = NULL;
    t->keyed = dir && dir[0] && kt_cache_key_of(j->path, &t->key, t->abs_path, sizeof t->abs_path);
    if (!t->keyed) return false;
    /* under --hta-compat the indexes are built after HTA's filtering */
    if (!kt_cache_map(dir, &t->key, t->abs_path, j, ctx->strs, !ctx->opt->hta_compat, &t->rejected)) return false;
    j->status = KT_OK;
    return true;
}

void kt_cache_store_job(const kt_load_ctx *ctx, kt_file_job *j, const kt_cache_ticket *t)
{
    char err[512];
    if (t->keyed && j->status == KT_OK &&
        !kt_cache_write(ctx->opt->cache_dir, &t->key, t->abs_path, j, ctx->strs, err, sizeof err))
        kt_diags_add(&j->diags, KT_DIAG_INFO, j->path, -1, "not cached: %s", err);
    /* after the write: the new cache file must not replay this note */
    if (t->rejected)
        kt_diags_add(&j->diags, KT_DIAG_INFO, j->path, -1, "its cache file was not used (%s): parsed again",
                     t->rejected);
}
