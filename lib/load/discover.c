/*
 * discover.c — paths given by the user → the trace files to load.
 *
 * A job's traces usually sit one file per rank in a directory, so a
 * directory stands for every trace file directly in it (not recursive, like
 * HTA), in name order so that results do not depend on readdir order.
 */
#include "load_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* *.json and *.json.gz (which covers *.pt.trace.json[.gz]), and other
 * profilers' files: SQLite databases (*.sqlite, *.db) and XSpace protobufs
 * (*.xplane.pb).  Which format a file is, its content decides (readers.h). */
static bool is_trace_name(const char *name)
{
    static const char *const ext[] = { ".json", ".json.gz", ".sqlite", ".db", ".xplane.pb" };
    for (size_t i = 0; name[0] != '.' && i < sizeof ext / sizeof ext[0]; i++)
        if (ends_with(name, ext[i])) return true;
    return false;
}

/* rocprofv3's CSV files (*trace.csv) are one run together: the directory
 * holding them is one input. */
static bool is_csv_trace_name(const char *name)
{
    return name[0] != '.' && ends_with(name, "trace.csv");
}

static bool add_file(kt_filelist *l, const char *path, int rank, bool in_dir)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p) return false;
        l->paths = p;
        int *r = realloc(l->explicit_rank, cap * sizeof *r);
        if (!r) return false;
        l->explicit_rank = r;
        bool *in = realloc(l->in_dir, cap * sizeof *in);
        if (!in) return false;
        l->in_dir = in;
        l->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) return false;
    l->paths[l->n] = copy;
    l->explicit_rank[l->n] = rank;
    l->in_dir[l->n++] = in_dir;
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool excluded(const kt_load_options *opt, const char *name)
{
    for (size_t i = 0; opt && i < opt->nexclude; i++)
        if (fnmatch(opt->exclude[i], name, 0) == 0) return true;
    return false;
}

/* jax.profiler writes <host>.trace.json.gz beside <host>.xplane.pb: the
 * same profile twice.  True (and the .xplane.pb's path in pb) for such a
 * trace.json whose .xplane.pb is there.                                */
static bool xla_twin(const char *path, char *pb, size_t cap)
{
    static const char *const ext[] = { ".trace.json.gz", ".trace.json" };
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(path), k = strlen(ext[i]);
        if (n <= k || strcmp(path + n - k, ext[i]) || (size_t)snprintf(pb, cap, "%.*s.xplane.pb", (int)(n - k), path) >= cap)
            continue;
        struct stat sb;
        return stat(pb, &sb) == 0 && S_ISREG(sb.st_mode);
    }
    return false;
}

/* Whether the directory's file path (named name) is loaded; a note when not. */
static bool wanted(const kt_load_options *opt, const char *path, const char *name, kt_diags *diags)
{
    char source[512];
    if (excluded(opt, name)) return false;
    if (xla_twin(path, source, sizeof source)) {
        kt_diags_add(diags, KT_DIAG_INFO, path, -1, "skipped: the same profile as %s beside it", source);
        return false;
    }
    if (!kt_derived_trace(path, source, sizeof source)) return true;
    kt_diags_add(diags, KT_DIAG_INFO, path, -1, "skipped: kineta wrote it from %s (an overlay or counter trace)",
                 source);
    return false;
}

static kt_status add_directory(kt_filelist *l, const char *dir, int rank, const kt_load_options *opt,
                               kt_diags *diags)
{
    DIR *d = opendir(dir);
    if (!d) {
        kt_diags_add(diags, KT_DIAG_ERROR, dir, -1, "cannot open directory: %s", strerror(errno));
        return KT_EINPUT;
    }
    size_t first = l->n, left_out = 0;
    kt_status st = KT_OK;
    struct dirent *e;
    bool csv = false;
    while (st == KT_OK && (e = readdir(d))) {
        csv |= is_csv_trace_name(e->d_name);
        if (!is_trace_name(e->d_name)) continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(n);
        if (!path) {
            st = KT_ENOMEM;
            break;
        }
        snprintf(path, n, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        } else if (!wanted(opt, path, e->d_name, diags)) {
            left_out++;
        } else if (!add_file(l, path, rank, true)) {
            st = KT_ENOMEM;
        }
        free(path);
    }
    closedir(d);
    if (st == KT_OK && csv && !add_file(l, dir, rank, true)) st = KT_ENOMEM;
    if (st != KT_OK) return st;
    if (l->n > first) qsort(l->paths + first, l->n - first, sizeof *l->paths, by_name);
    if (l->n == first) {
        kt_diags_add(diags, KT_DIAG_ERROR, dir, -1,
                     "no trace files (*.json, *.json.gz, *.sqlite, *.db, *.xplane.pb, *trace.csv) in directory%s",
                     left_out ? " but those left out (--exclude, or written by kineta)" : "");
        return KT_EINPUT;
    }
    if (rank >= 0 && l->n - first > 1) {
        kt_diags_add(diags, KT_DIAG_ERROR, dir, -1,
                     "an explicit rank was given for a directory holding %zu trace files "
                     "(give one rank per file instead)", l->n - first);
        return KT_EUSAGE;
    }
    return KT_OK;
}

/* One rank per file found instead of per path (opt->nranks of them). */
static kt_status rank_files(kt_filelist *l, const kt_load_options *opt, kt_diags *diags)
{
    if (opt->nranks != l->n) {
        kt_diags_add(diags, KT_DIAG_ERROR, NULL, -1, "explicit ranks: %zu given for %zu trace files", opt->nranks,
                     l->n);
        return KT_EUSAGE;
    }
    for (size_t i = 0; i < l->n; i++) l->explicit_rank[i] = opt->ranks[i];
    return KT_OK;
}

kt_status kt_discover(const char *const *paths, size_t npaths, const kt_load_options *opt,
                      kt_filelist *out, kt_diags *diags)
{
    memset(out, 0, sizeof *out);
    if (npaths == 0) {
        kt_diags_add(diags, KT_DIAG_ERROR, NULL, -1, "no trace path given");
        return KT_EUSAGE;
    }
    const int *ranks = opt ? opt->ranks : NULL;
    size_t nranks = !ranks ? 0 : opt->nranks ? opt->nranks : npaths;
    bool per_path = nranks == npaths;
    for (size_t i = 0; i < nranks; i++)
        if (ranks[i] < 0) {
            kt_diags_add(diags, KT_DIAG_ERROR, per_path ? paths[i] : NULL, -1, "negative explicit rank %d", ranks[i]);
            return KT_EUSAGE;
        }
    for (size_t i = 0; i < npaths; i++) {
        int rank = ranks && per_path ? ranks[i] : -1;
        struct stat sb;
        if (stat(paths[i], &sb) != 0) {
            kt_diags_add(diags, KT_DIAG_ERROR, paths[i], -1, "cannot open: %s", strerror(errno));
            return KT_EINPUT;
        }
        kt_status st = S_ISDIR(sb.st_mode) ? add_directory(out, paths[i], rank, opt, diags)
                       : add_file(out, paths[i], rank, false) ? KT_OK
                                                       : KT_ENOMEM;
        if (st != KT_OK) return st;
    }
    return ranks && !per_path ? rank_files(out, opt, diags) : KT_OK;
}

void kt_filelist_free(kt_filelist *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    free(l->explicit_rank);
    free(l->in_dir);
    memset(l, 0, sizeof *l);
}

uint64_t kt_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}
