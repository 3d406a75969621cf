/*
 * counters.c — `kineta counters`: each rank's trace file again, with the
 * queue-length and memcpy-bandwidth series as Chrome counter tracks so
 * they can be seen next to the kernels in Perfetto (HTA
 * generate_trace_with_counters, spec A4.7; event format as HTA's).
 */
#include "analysis/launch/membw_series.h"
#include "analysis/launch/queue_series.h"
#include "output/counter_trace.h"
#include "model/json_number.h"
#include "table/number_text.h"
#include "table/table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define MAX_EVENT 512 /* longest counter event text (bounded pid/name) */

/* Generator state: the queue points, then the bandwidth points. */
typedef struct counter_text {
    const kt_strtab *strs;
    const kt_rank *r;
    const kt_step_point *queue;
    size_t nqueue;
    const kt_bw_series *bw;
    size_t next;
} counter_text;

static int put_ts(char *b, size_t cap, int64_t ns)
{
    if (ns >= 0 && cap >= 2 * KT_NUMBER_TEXT_MAX) { /* the common case without printf */
        size_t n = kt_int_text(b, ns / 1000);
        if (ns % 1000 == 0) return (int)n;
        b[n] = '.';
        for (int64_t i = 3, f = ns % 1000; i > 0; i--, f /= 10) b[n + (size_t)i] = (char)('0' + f % 10);
        b[n + 4] = '\0';
        return (int)n + 4;
    }
    if (ns % 1000 == 0) return snprintf(b, cap, "%" PRId64, ns / 1000);
    return snprintf(b, cap, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

/* pid as written: a number, or a string id as a JSON string. */
static int put_pid(char *b, size_t cap, const kt_strtab *strs, int64_t pid)
{
    if (!kt_id_is_str(pid)) return cap >= KT_NUMBER_TEXT_MAX ? (int)kt_int_text(b, pid) : snprintf(b, cap, "%" PRId64, pid);
    const char *s = kt_strtab_get(strs, kt_id_str(pid));
    size_t k = 0;
    if (cap) b[k++] = '"';
    for (; *s && k + 8 < cap && k < 200; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') k += (size_t)snprintf(b + k, cap - k, "\\%c", ch);
        else if (ch < 0x20) k += (size_t)snprintf(b + k, cap - k, "\\u%04x", ch);
        else b[k++] = (char)ch;
    }
    return (int)k + snprintf(b + k, cap - k, "\"");
}

/* Shortest round-trip form.  Whole values (a copy kind's idle stretches:
 * half the points are 0) are written without printf; JSON needs '.' as
 * the radix whatever LC_NUMERIC the host program set (json_number.h).   */
static int put_double(char *b, size_t cap, double v)
{
    if (v >= 0 && v < 1e15 && !signbit(v) && v == (double)(int64_t)v && cap >= KT_NUMBER_TEXT_MAX)
        return (int)kt_int_text(b, (int64_t)v); /* what "%.15g" writes for it */
    int n = kt_c_snprintf(b, cap, "%.15g", v);
    kt_num back;
    if (n > 0 && (size_t)n < cap && kt_parse_number(b, b + n, &back) && back.f != v)
        n = kt_c_snprintf(b, cap, "%.17g", v);
    return n;
}

static size_t put_text(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return n;
}

/* One event per queue point (most of the text) or bandwidth point: pieces
 * copied, numbers written without printf.  cap >= MAX_EVENT (next_text). */
static int queue_event(const counter_text *c, const kt_step_point *p, char *b, size_t cap)
{
    (void)cap;
    size_t n = put_text(b, ",\n  {\"ph\": \"C\", \"name\": \"Queue Length\", \"pid\": ");
    n += (size_t)put_pid(b + n, 256, c->strs, kt_step_pid(c->r, p));
    n += put_text(b + n, ", \"ts\": ");
    n += (size_t)put_ts(b + n, 2 * KT_NUMBER_TEXT_MAX, p->ts);
    n += put_text(b + n, ", \"id\": ");
    n += kt_int_text(b + n, p->key);
    n += put_text(b + n, ", \"args\": {\"Queue Length\": ");
    n += kt_int_text(b + n, (int64_t)p->value);
    n += put_text(b + n, "}}");
    return (int)n;
}

static int bw_event(const counter_text *c, const kt_step_point *p, char *b, size_t cap)
{
    (void)cap;
    size_t n = put_text(b, ",\n  {\"ph\": \"C\", \"name\": \"");
    n += put_text(b + n, c->bw->kinds[p->key]);
    n += put_text(b + n, "\", \"pid\": ");
    n += (size_t)put_pid(b + n, 256, c->strs, kt_step_pid(c->r, p));
    n += put_text(b + n, ", \"ts\": ");
    n += (size_t)put_ts(b + n, 2 * KT_NUMBER_TEXT_MAX, p->ts);
    n += put_text(b + n, ", \"args\": {\"Memcpy BW\": ");
    n += (size_t)put_double(b + n, 40, p->value);
    n += put_text(b + n, "}}");
    return (int)n;
}

static size_t next_text(void *user, char *buf, size_t cap)
{
    counter_text *c = user;
    size_t n = 0, total = c->nqueue + c->bw->n;
    while (c->next < total && cap - n > MAX_EVENT) {
        size_t i = c->next++;
        n += (size_t)(i < c->nqueue ? queue_event(c, &c->queue[i], buf + n, cap - n)
                                     : bw_event(c, &c->bw->p[i - c->nqueue], buf + n, cap - n));
    }
    return n;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* <dir>/<name>_with_counters.json[.gz]: the suffix goes before the last
 * ".json" of the input's file name (HTA), else before a final ".gz".  When
 * two selected ranks' files share a name (rank dirs), "_rank<R>" is added
 * so that one output cannot overwrite the other.                          */
static bool output_path(const char *dir, const char *in, int rank_tag, char *out, size_t cap)
{
    const char *base = base_name(in);
    const char *cut = NULL;
    for (const char *p = strstr(base, ".json"); p; p = strstr(p + 1, ".json")) cut = p;
    size_t len = strlen(base);
    if (!cut) cut = len > 3 && !strcmp(base + len - 3, ".gz") ? base + len - 3 : base + len;
    char tag[32] = "";
    if (rank_tag >= 0) snprintf(tag, sizeof tag, "_rank%d", rank_tag);
    int n = snprintf(out, cap, "%s/%.*s%s_with_counters%s%s", dir, (int)(cut - base), base, tag, cut,
                     *cut ? "" : ".json");
    return n > 0 && (size_t)n < cap;
}

/* Does another selected rank's input file have r's file name? */
static bool name_shared(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r)
{
    for (size_t i = 0; i < t->nranks; i++) {
        const kt_rank *o = t->ranks[i];
        if (o != r && kt_rank_selected(sel, o->rank) && !strcmp(base_name(o->file), base_name(r->file)))
            return true;
    }
    return false;
}

static kt_table *files_table(void)
{
    static const char *const cols[] = { "rank", "input", "output", "counter_events", "uncompressed_bytes" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT };
    kt_table *t = kt_table_new("files");
    for (size_t i = 0; t && i < 5; i++) kt_table_add_col(t, cols[i], types[i], 0);
    return t;
}

void kt_counters_options_init(kt_counters_options *o, size_t size)
{
    const kt_counters_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

static kt_status write_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r,
                            const kt_counters_options *o, kt_table *files, kt_diags **diags)
{
    char out[4096], err[512] = "";
    if (!r->events_end) {
        snprintf(err, sizeof err, "%s: the end of traceEvents was not found (file cut off?)", r->file);
        kt_diags_fail(diags, r->file, "%s", err);
        return KT_EINPUT;
    }
    int tag = name_shared(t, sel, r) ? r->rank : -1;
    if (!output_path(o->out_dir, r->file, tag, out, sizeof out)) return KT_EUSAGE;
    kt_step_point *q = NULL;
    size_t nq = 0;
    kt_bw_series bw = { 0 };
    kt_status s = o->no_queue_length ? KT_OK : kt_queue_series(r, t->strs, t->hta_compat, &q, &nq, NULL);
    if (s == KT_OK && !o->no_memcpy_bw) s = kt_membw_series(r, t->strs, t->hta_compat, &bw);
    counter_text text = { .strs = t->strs, .r = r, .queue = q, .nqueue = nq, .bw = &bw };
    kt_trace_copy copy = { .in_path = r->file, .events_end = r->events_end,
                           .out_path = out, .text = next_text, .user = &text };
    uint64_t bytes = 0;
    if (s == KT_OK) s = kt_write_trace_copy(&copy, &bytes, err, sizeof err);
    if (s == KT_OK) {
        kt_table_add_row(files);
        kt_table_set_int(files, 0, r->rank);
        kt_table_set_str(files, 1, r->file);
        kt_table_set_str(files, 2, out);
        kt_table_set_int(files, 3, (int64_t)(nq + bw.n));
        kt_table_set_int(files, 4, (int64_t)bytes);
    } else {
        kt_diags_fail(diags, r->file, "%s", err);
    }
    free(q);
    kt_bw_series_free(&bw);
    return s;
}

kt_status kt_counters(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt,
                      kt_tables **out, kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_counters_options o = kt_counters_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    if (!o.out_dir) {
        kt_diags_fail(diags, NULL, "an output directory is required");
        return KT_EUSAGE;
    }
    kt_table *files = files_table();
    kt_status s = files ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = write_rank(t, sel, t->ranks[i], &o, files, diags);
    if (s != KT_OK) {
        kt_table_free(files);
        return s;
    }
    return kt_tables_from(&files, 1, out);
}
