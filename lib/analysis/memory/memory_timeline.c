/*
 * memory_timeline.c — PyTorch's export_memory_timeline_raw file as tables
 * (HTA MemoryAnalysis, spec A4.14): bytes per memory category over time
 * and each category's peak.
 *
 * The file is not a Kineto trace but a JSON list of [t_ns, action,
 * numbytes, category] (t = -1: allocated before profiling; category 0..7
 * = Parameter ... Unknown; frees are negative numbytes), written by the
 * profiler's memory timeline, so it has a reader of its own: zlib reads
 * plain and gzip files alike, and the list is scanned number by number.
 * As HTA (and PyTorch's own export_memory_timeline): one sample per run of
 * equal timestamps, with the category totals after the run; t < 0 becomes
 * the smallest positive t.
 */
#include "analysis/memory/memory_timeline_trace.h"
#include "table/table.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define NCAT 8
static const char *const cat_names[NCAT] = { "Parameter", "Optimizer state", "Input", "Temporary",
                                              "Activation", "Gradient", "Autograd", "Unknown" };

typedef struct raw_event {
    int64_t t, bytes;
    int cat;
} raw_event;

typedef struct raw_events {
    raw_event *v;
    size_t n, cap;
    size_t bad;          /* entries skipped */
    int64_t bad_offset;  /* first one */
} raw_events;

static char *read_all(const char *path, size_t *len, char *err, size_t errlen)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno ? errno : ENOENT));
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    int got = 0;
    while (buf && (got = gzread(f, buf + n, (unsigned)(cap - n < INT_MAX ? cap - n : INT_MAX))) > 0) {
        n += (size_t)got;
        if (n == cap) {
            char *p = cap < SIZE_MAX / 4 ? realloc(buf, 2 * cap + 1) : NULL;
            if (!p) { free(buf); buf = NULL; break; }
            buf = p;
            cap *= 2;
        }
    }
    if (buf && got < 0) {
        int code;
        snprintf(err, errlen, "read error: %s", gzerror(f, &code));
        free(buf);
        buf = NULL;
    } else if (!buf) {
        snprintf(err, errlen, "out of memory");
    }
    gzclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}

/* One "[t, action, numbytes, category]" entry at p; NULL if malformed. */
static const char *parse_entry(const char *p, raw_event *ev)
{
    int64_t v[4];
    if (*p != '[') return NULL;
    p++;
    for (int k = 0; k < 4; k++) {
        p = skip_ws(p);
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno) return NULL;
        v[k] = x;
        p = skip_ws(end);
        if (*p == '.') return NULL; /* not an integer */
        if (k < 3 && *p++ != ',') return NULL;
    }
    if (*p != ']') return NULL;
    *ev = (raw_event){ v[0], v[2], v[3] >= 0 && v[3] < NCAT ? (int)v[3] : NCAT - 1 };
    return p + 1;
}

static bool push(raw_events *r, raw_event ev)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4096;
        raw_event *p = realloc(r->v, cap * sizeof *p);
        if (!p) return false;
        r->v = p;
        r->cap = cap;
    }
    r->v[r->n++] = ev;
    return true;
}

/* Past a malformed entry at p: its matching ']' when it is a list, else
 * up to the next ',' or the list's ']' (or the end of the text).         */
static const char *skip_entry(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '[') depth++;
        else if (*p == ']' && depth-- <= 1) return depth < 0 ? p : p + 1;
        else if (*p == ',' && depth == 0) return p;
    }
    return p;
}

static kt_status parse_list(const char *text, raw_events *r, char *err, size_t errlen)
{
    const char *p = skip_ws(text);
    if (*p != '[') {
        snprintf(err, errlen, "not a memory timeline (expected a JSON list of [t, action, bytes, category])");
        return KT_EINPUT;
    }
    p = skip_ws(p + 1);
    while (*p && *p != ']') {
        raw_event ev;
        const char *q = parse_entry(p, &ev);
        if (q) {
            if (!push(r, ev)) return KT_ENOMEM;
            p = q;
        } else {
            if (!r->bad++) r->bad_offset = p - text;
            p = skip_entry(p);
        }
        p = skip_ws(p);
        if (*p == ',') p = skip_ws(p + 1);
        else if (*p && *p != ']') {
            if (!r->bad++) r->bad_offset = p - text;
            p = skip_entry(p);
        }
    }
    if (*p != ']') {
        snprintf(err, errlen, "the list is cut off at byte %zu", (size_t)(p - text));
        return r->n ? KT_OK : KT_EINPUT;
    }
    return KT_OK;
}

/* ---- samples ---------------------------------------------------------------- */

typedef struct sampler {
    kt_table *timeline;
    int64_t sizes[NCAT];
    int64_t peak[NCAT + 1], peak_t[NCAT + 1];
    size_t negative;
} sampler;

static void emit_sample(sampler *s, int64_t t)
{
    int64_t total = 0;
    kt_table_add_row(s->timeline);
    kt_table_set_int(s->timeline, 0, t);
    for (int c = 0; c < NCAT; c++) {
        kt_table_set_int(s->timeline, 1 + (size_t)c, s->sizes[c]);
        total += s->sizes[c];
        if (s->sizes[c] > s->peak[c]) { s->peak[c] = s->sizes[c]; s->peak_t[c] = t; }
    }
    kt_table_set_int(s->timeline, 1 + NCAT, total);
    if (total > s->peak[NCAT]) { s->peak[NCAT] = total; s->peak_t[NCAT] = t; }
}

static int64_t min_positive_t(const raw_events *r)
{
    int64_t m = INT64_MAX;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].t > 0 && r->v[i].t < m) m = r->v[i].t;
    return m == INT64_MAX ? 0 : m;
}

static void run_samples(sampler *s, const raw_events *r)
{
    int64_t t_min = min_positive_t(r);
    for (size_t i = 0; i < r->n; i++) {
        int64_t t = r->v[i].t < 0 ? t_min : r->v[i].t;
        int c = r->v[i].cat;
        s->sizes[c] += r->v[i].bytes;
        if (s->sizes[c] < 0) s->negative++;
        bool last_of_run = i + 1 == r->n || (r->v[i + 1].t < 0 ? t_min : r->v[i + 1].t) != t;
        if (last_of_run) emit_sample(s, t);
    }
}

static kt_table *timeline_table(void)
{
    kt_table *tb = kt_table_new("timeline");
    if (!tb) return NULL;
    kt_table_add_col(tb, "ts_ns", KT_COL_INT, 0);
    for (int c = 0; c < NCAT; c++) kt_table_add_col(tb, cat_names[c], KT_COL_INT, 0);
    kt_table_add_col(tb, "total", KT_COL_INT, 0);
    return tb;
}

static kt_table *peaks_table(const sampler *s, size_t nsamples)
{
    kt_table *tb = kt_table_new("peaks");
    if (!tb) return NULL;
    kt_table_add_col(tb, "category", KT_COL_STR, 0);
    kt_table_add_col(tb, "peak_bytes", KT_COL_INT, 0);
    kt_table_add_col(tb, "peak_ts_ns", KT_COL_INT, 0);
    for (int c = 0; c <= NCAT; c++) {
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, c < NCAT ? cat_names[c] : "total");
        kt_table_set_int(tb, 1, s->peak[c]);
        if (nsamples && s->peak[c] > 0) kt_table_set_int(tb, 2, s->peak_t[c]);
    }
    return tb;
}

static kt_diags *new_diags(void) { return calloc(1, sizeof(kt_diags)); }

static kt_table *files_table(const char *in, const char *out, uint64_t events, uint64_t bytes)
{
    kt_table *tb = kt_table_new("files");
    if (!tb) return NULL;
    kt_table_add_col(tb, "input", KT_COL_STR, 0);
    kt_table_add_col(tb, "output", KT_COL_STR, 0);
    kt_table_add_col(tb, "counter_events", KT_COL_INT, 0);
    kt_table_add_col(tb, "bytes", KT_COL_INT, 0);
    kt_table_add_row(tb);
    kt_table_set_str(tb, 0, in);
    kt_table_set_str(tb, 1, out);
    kt_table_set_int(tb, 2, (int64_t)events);
    kt_table_set_int(tb, 3, (int64_t)bytes);
    return tb;
}

/* The counter trace and its "files" table (NULL when not asked for). */
static kt_status write_trace(const char *path, const char *out_dir, const kt_table *timeline, kt_diags *d,
                             kt_table **files)
{
    char out[4096], err[512] = "";
    uint64_t events = 0, bytes = 0;
    *files = NULL;
    if (!out_dir) return KT_OK;
    kt_status s = kt_mem_timeline_write(timeline, path, out_dir, out, sizeof out, &events, &bytes, err, sizeof err);
    if (s != KT_OK) {
        if (d) kt_diags_add(d, KT_DIAG_ERROR, path, -1, "%s", err[0] ? err : "output path too long");
        return s;
    }
    return (*files = files_table(path, out, events, bytes)) ? KT_OK : KT_ENOMEM;
}

kt_status kt_memory_timeline_file(const char *path, const char *out_dir, kt_tables **out, kt_diags **diags)
{
    char err[512] = "";
    size_t len;
    *out = NULL;
    kt_diags *d = new_diags();
    if (diags) *diags = d;
    char *text = read_all(path, &len, err, sizeof err);
    raw_events r = { 0 };
    kt_status s = text ? parse_list(text, &r, err, sizeof err) : KT_EINPUT;
    if (err[0] && d) kt_diags_add(d, s == KT_OK ? KT_DIAG_WARNING : KT_DIAG_ERROR, path, -1, "%s", err);
    if (r.bad && d)
        kt_diags_add(d, KT_DIAG_WARNING, path, r.bad_offset, "%zu entries are not [t, action, bytes, category] "
                     "integer lists: skipped", r.bad);
    sampler sm = { .timeline = s == KT_OK ? timeline_table() : NULL };
    if (s == KT_OK && !sm.timeline) s = KT_ENOMEM;
    if (s == KT_OK) run_samples(&sm, &r);
    if (sm.negative && d)
        kt_diags_add(d, KT_DIAG_WARNING, path, -1, "a category's bytes went negative %zu times (frees without "
                     "their allocation in the file)", sm.negative);
    kt_table *tb[3] = { sm.timeline, s == KT_OK ? peaks_table(&sm, kt_table_nrows(sm.timeline)) : NULL, NULL };
    if (s == KT_OK) s = write_trace(path, out_dir, sm.timeline, d, &tb[2]);
    free(text);
    free(r.v);
    if (!diags) kt_diags_free(d);
    if (s != KT_OK) {
        for (int i = 0; i < 3; i++) kt_table_free(tb[i]);
        return s;
    }
    return kt_tables_from(tb, out_dir ? 3 : 2, out);
}
