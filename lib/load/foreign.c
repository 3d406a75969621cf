/*
 * foreign.c — where the loader decides an input's format, by content, and
 * hands inputs that are not Kineto JSON to their reader (readers.h).
 *
 * The Kineto parser streams its file; the other formats are held whole
 * (their records refer to each other across sections): a plain file
 * read whole (read_whole.c), a gzip'd one or a buffer decompressed into memory,
 * then given to the reader; a plain rocprofv3 JSON file is streamed
 * instead (its reader reads back the few bytes it refers to), whose rank goes back to the load as a
 * Kineto file's would (indexes, cache, ranks).
 */
#include "readers.h"

#include <stdlib.h>
#include <sys/stat.h>

static bool has_prefix(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(s, lit, k) == 0;
}

/* A JSON object whose first key is rocprofiler-sdk-tool. */
static bool rocprof_json_head(const char *s, size_t n)
{
    const char *end = s + n;
    while (s < end && (unsigned char)*s <= ' ') s++;
    if (s == end || *s++ != '{') return false;
    while (s < end && (unsigned char)*s <= ' ') s++;
    return has_prefix(s, (size_t)(end - s), "\"rocprofiler-sdk-tool\"");
}

/* rocprofv3's CSV headers: Kind,... (kernel, memory copy, allocation,
 * scratch) or Domain,Function,... (API traces, markers), quoted or not,
 * possibly after a GUID column (files made from a rocpd database). */
static bool rocprof_csv_head(const char *s, size_t n)
{
    size_t line = 0;
    while (line < n && s[line] != '\n') line++;
    char buf[256];
    size_t k = 0;
    for (size_t i = 0; i < line && k + 1 < sizeof buf; i++)
        if (s[i] != '"') buf[k++] = s[i];
    buf[k] = '\0';
    const char *h = has_prefix(buf, k, "Guid,") ? buf + 5 : has_prefix(buf, k, "GUID,") ? buf + 5 : buf;
    return has_prefix(h, strlen(h), "Kind,") || has_prefix(h, strlen(h), "Domain,Function,");
}

/* An XSpace: field 1 (planes), length-delimited, whose XPlane starts with
 * its id (field 1, varint), name (2) or lines (3).                       */
static bool xplane_head(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n < 4 || u[0] != 0x0a) return false;
    size_t i = 1;
    while (i < n && i < 11 && (u[i] & 0x80)) i++;
    if (++i >= n) return false;
    return u[i] == 0x08 || u[i] == 0x12 || u[i] == 0x1a;
}

static bool contains(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == *lit && !memcmp(s + i, lit, k)) return true;
    return false;
}

/* JAX's Chrome trace: traceEvents whose first records name the pids after
 * XLA's planes ("/device:GPU:0", "/host:CPU"), which no Kineto trace does. */
static bool xla_trace_head(const char *s, size_t n)
{
    return contains(s, n, "\"traceEvents\"") && (contains(s, n, "\"/device:GPU:") || contains(s, n, "\"/host:CPU\""));
}

kt_format kt_format_of(const char *head, size_t n)
{
    if (has_prefix(head, n, "SQLite format 3")) return KT_FMT_SQLITE;
    if (rocprof_json_head(head, n)) return KT_FMT_ROCPROF_JSON;
    if (rocprof_csv_head(head, n)) return KT_FMT_ROCPROF_CSV;
    if (xplane_head(head, n)) return KT_FMT_XPLANE;
    if (xla_trace_head(head, n)) return KT_FMT_XLA_TRACE;
    return KT_FMT_KINETO;
}

/* The whole decompressed input, KT_WIN_PAD zero bytes after it. */
static kt_status read_decompressed(kt_file_job *j, char **out, size_t *len, bool *gzip)
{
    char err[256] = "";
    kt_src *src = NULL;
    kt_status st = j->buf ? kt_src_open_mem(j->buf, j->len, &src) : kt_src_open_file(j->path, &src, err, sizeof err);
    if (st != KT_OK) {
        if (st == KT_EINPUT) kt_diags_add(&j->diags, KT_DIAG_ERROR, j->path, -1, "%s", err);
        return st;
    }
    *gzip = kt_src_is_gzip(src);
    size_t cap = 1 << 16, n = 0;
    char *d = malloc(cap + KT_WIN_PAD);
    for (ptrdiff_t got = 1; d && got > 0;) {
        if (cap - n < 4096) {
            char *g = realloc(d, cap * 2 + KT_WIN_PAD);
            if (!g) break;
            d = g, cap *= 2;
        }
        got = kt_src_read(src, d + n, cap - n);
        if (got < 0) {
            kt_diags_add(&j->diags, KT_DIAG_WARNING, j->path, (int64_t)n, "read error after %zu bytes: %s (read on with what came before)",
                         n, kt_src_error(src));
            break;
        }
        n += (size_t)got;
        if (got == 0) break;
    }
    kt_src_close(src);
    if (!d || cap - n < 4096) {
        free(d);
        return KT_ENOMEM;
    }
    memset(d + n, 0, KT_WIN_PAD);
    *out = d;
    *len = n;
    return KT_OK;
}

/* The first bytes of the input, decompressed. */
static size_t read_head(const kt_file_job *j, char *buf, size_t cap)
{
    char err[256];
    kt_src *src = NULL;
    kt_status st = j->buf ? kt_src_open_mem(j->buf, j->len, &src) : kt_src_open_file(j->path, &src, err, sizeof err);
    if (st != KT_OK) return 0;
    size_t n = 0;
    for (ptrdiff_t got = 1; n < cap && got > 0; n += got > 0 ? (size_t)got : 0) got = kt_src_read(src, buf + n, cap - n);
    kt_src_close(src);
    return n;
}

static bool is_directory(const kt_file_job *j)
{
    struct stat sb;
    return !j->buf && stat(j->path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static kt_status run_reader(kt_format f, const kt_reader_in *in, kt_build *b)
{
    switch (f) {
    case KT_FMT_ROCPROF_JSON: return kt_read_rocprof_json(in, b);
    case KT_FMT_ROCPROF_CSV: return kt_read_rocprof_csv(in, b);
    case KT_FMT_SQLITE: return kt_read_sqlite(in, b);
    case KT_FMT_XPLANE: return kt_read_xplane(in, b);
    case KT_FMT_XLA_TRACE: return kt_read_xla_trace_json(in, b);
    case KT_FMT_KINETO: break;
    }
    return KT_EINPUT;
}

/* A plain file for a reader that streams it (rocprofv3 JSON), its size
 * in *len; NULL for gzip (held decompressed) or when it cannot be opened
 * (the reading path that holds it says why).                          */
static kt_src *streamed(const kt_file_job *j, kt_format f, size_t *len)
{
    char err[256];
    kt_src *src = NULL;
    if (f != KT_FMT_ROCPROF_JSON || j->buf || kt_src_open_file(j->path, &src, err, sizeof err) != KT_OK ||
        kt_src_is_gzip(src)) {
        kt_src_close(src);
        return NULL;
    }
    *len = (size_t)kt_src_file_bytes(src);
    return src;
}

static kt_status read_job(kt_load_ctx *ctx, kt_file_job *j, kt_format f, bool dir)
{
    char *data = NULL;
    size_t len = 0, held_len = 0;
    bool gzip = false;
    kt_src *src = dir ? NULL : streamed(j, f, &len);
    const char *held = dir || j->buf || src ? NULL : kt_read_whole(j->path, &len, &held_len);
    kt_status st = dir || held || src ? KT_OK : read_decompressed(j, &data, &len, &gzip);
    if (st != KT_OK) return st;
    kt_rank *r = j->rank = kt_rank_new();
    if (!r || !(r->file = strdup(j->path))) {
        free(data);
        kt_free_whole(held, held_len);
        kt_src_close(src);
        return KT_ENOMEM;
    }
    r->gzip = gzip;
    r->file_bytes = j->file_bytes;
    r->json_bytes = len;
    kt_build b;
    kt_build_init(&b, r, ctx->strs);
    kt_reader_in in = { .path = j->path, .data = held ? held : data, .len = len, .src = src, .is_file = !j->buf && !gzip,
                         .diags = &j->diags, .not_trace = &j->not_trace };
    st = run_reader(f, &in, &b);
    if (st == KT_OK && !kt_build_finish(&b)) st = KT_ENOMEM;
    if (b.oom) st = KT_ENOMEM;
    kt_build_free(&b);
    free(data);
    kt_free_whole(held, held_len);
    kt_src_close(src);
    if (st == KT_ENOMEM) kt_diags_add(&j->diags, KT_DIAG_ERROR, j->path, -1, "out of memory");
    return st;
}

bool kt_foreign_job(kt_load_ctx *ctx, kt_file_job *j)
{
    bool dir = is_directory(j);
    char head[4096];
    kt_format f = dir ? KT_FMT_ROCPROF_CSV : kt_format_of(head, read_head(j, head, sizeof head));
    if (f == KT_FMT_KINETO) return false;
    j->dist_rank = -1;
    j->status = read_job(ctx, j, f, dir);
    atomic_fetch_add(&ctx->done, j->file_bytes);
    return true;
}
