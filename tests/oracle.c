/* oracle.c — see oracle.h. */
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One field starting at *p (quoted or not); advances past it. */
static char *field(const char **p)
{
    const char *s = *p;
    size_t cap = 64, n = 0;
    char *out = malloc(cap);
    bool quoted = *s == '"';
    if (quoted) s++;
    for (; *s; s++) {
        if (quoted && *s == '"' && s[1] == '"') s++;
        else if (quoted && *s == '"') { quoted = false; continue; }
        else if (!quoted && (*s == ',' || *s == '\n' || *s == '\r')) break;
        if (n + 1 >= cap) out = realloc(out, cap *= 2);
        out[n++] = *s;
    }
    out[n] = '\0';
    *p = s;
    return out;
}

fx_csv *fx_csv_read(const char *rel)
{
    const char *path = kt_test_shared_path(rel);
    char *text = path ? fx_read_file(path, NULL) : NULL;
    if (!text) return NULL;
    fx_csv *c = calloc(1, sizeof *c);
    size_t cap = 0;
    for (const char *p = text; *p;) {
        if (c->nrows == cap) {
            cap = cap ? cap * 2 : 64;
            c->row = realloc(c->row, cap * sizeof *c->row);
            c->ncols = realloc(c->ncols, cap * sizeof *c->ncols);
        }
        char **r = NULL;
        size_t n = 0;
        for (;;) {
            r = realloc(r, (n + 1) * sizeof *r);
            r[n++] = field(&p);
            if (*p != ',') break;
            p++;
        }
        while (*p == '\r' || *p == '\n') p++;
        c->row[c->nrows] = r;
        c->ncols[c->nrows++] = n;
    }
    free(text);
    return c;
}

void fx_csv_free(fx_csv *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nrows; i++) {
        for (size_t j = 0; j < c->ncols[i]; j++) free(c->row[i][j]);
        free(c->row[i]);
    }
    free(c->row);
    free(c->ncols);
    free(c);
}

long fx_csv_col(const fx_csv *c, const char *name)
{
    for (size_t j = 0; c && c->nrows && j < c->ncols[0]; j++)
        if (!strcmp(c->row[0][j], name)) return (long)j;
    return -1;
}

const char *fx_csv_get(const fx_csv *c, size_t row, const char *name)
{
    long j = fx_csv_col(c, name);
    return j < 0 || row >= c->nrows || (size_t)j >= c->ncols[row] ? "" : c->row[row][j];
}

const char *fx_hta_trace(const char *oracle_dir)
{
    static const char *const map[][2] = {
        { "amd_trace", "traces/hta/amd_trace" },
        { "cp_alexnet", "traces/hta/critical_path/alexnet" },
        { "cp_cuda_event_sync", "traces/hta/critical_path/cuda_event_sync" },
        { "cp_cuda_event_sync_multi_stream", "traces/hta/critical_path/cuda_event_sync_multi_stream" },
        { "cp_simple_add", "traces/hta/critical_path/simple_add" },
        { "cupti_profiler", "traces/hta/cupti_profiler" },
        { "df_index_resolver", "traces/hta/df_index_resolver" },
        { "execution_trace", "traces/hta/execution_trace/benchmark_simple_add_trace.json.gz" },
        { "mtia_trace_single_rank", "traces/hta/mtia_trace_single_rank" },
        { "nccl_parser_config", "traces/hta/nccl_parser_config" },
        { "negative_queue_length_values_check", "traces/hta/negative_queue_length_values_check" },
        { "ns_resolution_trace", "traces/hta/ns_resolution_trace" },
        { "timeline_analysis", "traces/hta/timeline_analysis" },
        { "trace_diff_control", "traces/hta/trace_diff/control" },
        { "trace_diff_test", "traces/hta/trace_diff/test" },
        { "trace_filter_2ranks", "traces/hta/trace_filter" },
        { "triton_example", "traces/hta/triton_example" },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], oracle_dir)) return map[i][1];
    return NULL;
}

kt_trace *fx_load_path(const char *path, bool hta_compat)
{
    kt_load_options o = { .size = sizeof o, .hta_compat = hta_compat };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_status s = path ? kt_load(&path, 1, &o, &t, &fail) : KT_EINPUT;
    kt_diags_free(fail);
    if (s != KT_OK) kt_test_fail(__FILE__, __LINE__, "loading %s: %s", path ? path : "(null)", kt_status_str(s));
    return s == KT_OK ? t : NULL;
}

kt_trace *fx_load_shared(const char *rel, bool hta_compat)
{
    return fx_load_path(kt_test_shared_path(rel), hta_compat);
}

typedef struct cached_trace {
    char *rel;
    bool hta_compat;
    kt_trace *t;
} cached_trace;

static cached_trace cache[64];
static size_t ncache;

static void free_cache(void)
{
    for (size_t i = 0; i < ncache; i++) {
        kt_trace_free(cache[i].t);
        free(cache[i].rel);
    }
}

const kt_trace *fx_shared_trace(const char *rel, bool hta_compat)
{
    for (size_t i = 0; i < ncache; i++)
        if (cache[i].hta_compat == hta_compat && !strcmp(cache[i].rel, rel)) return cache[i].t;
    CHECK(ncache < sizeof cache / sizeof cache[0]);
    kt_trace *t = ncache < sizeof cache / sizeof cache[0] ? fx_load_shared(rel, hta_compat) : NULL;
    if (!t) return NULL;
    if (ncache == 0) atexit(free_cache);
    cache[ncache++] = (cached_trace){ strdup(rel), hta_compat, t };
    return t;
}

/* ---- every shared trace file --------------------------------------------- */
#define MAX_TRACE_FILES 256
static char **walk_found;
static size_t walk_n;

static int collect_trace(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    size_t n = strlen(path);
    bool trace = (n > 3 && !strcmp(path + n - 3, ".gz")) || (n > 5 && !strcmp(path + n - 5, ".json"));
    trace &= !strstr(path, "/traces/other/"); /* other profilers' formats: tests/test_read_*.c */
    trace &= !strstr(path, "/traces/other/"); /* other profilers' formats: tests/test_read_*.c */
    if (type == FTW_F && trace && walk_n < MAX_TRACE_FILES) walk_found[walk_n++] = strdup(path);
    return 0;
}

static int by_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **fx_shared_trace_files(size_t *n)
{
    const char *dir = kt_test_shared_path("traces");
    *n = 0;
    if (!dir || !(walk_found = calloc(MAX_TRACE_FILES, sizeof *walk_found))) return NULL;
    walk_n = 0; /* nftw has no user pointer: the walk's state is file-local */
    nftw(dir, collect_trace, 16, FTW_PHYS);
    qsort(walk_found, walk_n, sizeof *walk_found, by_str);
    *n = walk_n;
    char **out = walk_found;
    walk_found = NULL;
    return out;
}

void fx_free_paths(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++) free(paths[i]);
    free(paths);
}
