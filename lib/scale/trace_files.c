/*
 * trace_files.c — the map side of a streamed run: which files a job is made
 * of, and each loaded alone exactly as kt_load loads it among the others.
 *
 * A job too large for memory (or spread over MPI processes) is analyzed one
 * rank at a time; for the merged result to equal the all-in-memory one,
 * every file must be found, ranked and skipped by the same rules as kt_load
 * (discover.c, load.c), so this file only exposes those rules.
 */
#include "load/load_internal.h"

#include <stdlib.h>

static kt_status fail_diags(kt_diags *d, kt_status st, kt_diags **failure)
{
    if (failure) {
        *failure = calloc(1, sizeof **failure);
        if (*failure) {
            **failure = *d;
            return st;
        }
    }
    kt_diags_clear(d);
    return st;
}

kt_status kt_trace_files(const char *const *paths, size_t npaths, const kt_load_options *opt,
                         kt_trace_file **out, size_t *nout, kt_diags **failure)
{
    *out = NULL;
    *nout = 0;
    if (failure) *failure = NULL;
    kt_diags diags = { 0 };
    kt_filelist files;
    kt_status st = kt_discover(paths, npaths, opt, &files, &diags);
    if (st != KT_OK) {
        kt_filelist_free(&files);
        return fail_diags(&diags, st, failure);
    }
    kt_diags_clear(&diags);
    kt_trace_file *f = calloc(files.n ? files.n : 1, sizeof *f);
    if (!f) {
        kt_filelist_free(&files);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < files.n; i++) {
        f[i] = (kt_trace_file){ .path = files.paths[i], .rank = files.explicit_rank[i],
                                .in_dir = files.in_dir[i], .bytes = kt_file_size(files.paths[i]) };
        files.paths[i] = NULL; /* now f's */
    }
    *out = f;
    *nout = files.n;
    kt_filelist_free(&files);
    return KT_OK;
}

void kt_trace_files_free(kt_trace_file *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) free(f[i].path);
    free(f);
}

kt_status kt_load_file(const kt_trace_file *f, const kt_load_options *opt, kt_trace **out, kt_diags **failure)
{
    kt_load_options one = kt_load_defaults();
    *out = NULL;
    kt_diags_begin(failure);
    if (!kt_options_take(&one, sizeof one, opt)) return KT_EUSAGE;
    one.ranks = NULL;
    bool skipped;
    kt_status st = kt_load_listed(f->path, f->rank, f->in_dir, &one, out, failure, &skipped);
    if (!skipped) return st;
    if (failure) {
        kt_diags_free(*failure);
        *failure = NULL;
    }
    return KT_OK;
}

int64_t kt_trace_origin(const kt_trace *t)
{
    return t->min_ts;
}
