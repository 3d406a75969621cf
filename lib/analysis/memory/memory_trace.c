/*
 * memory_trace.c — see memory_trace.h.  The copy is made as `kineta
 * counters` makes its own (output/counter_trace.h: original bytes through
 * unchanged, the counter events appended to traceEvents); this file only
 * writes the counter events' text.
 */
#include "analysis/memory/memory_trace.h"
#include "output/counter_trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_EVENT 512

typedef struct mem_text {
    const kt_trace *t;
    const kt_rank *r;
    const kt_mem_rank *m;
    size_t dev, next;
    uint64_t written;
} mem_text;

static int put_pid(char *b, size_t cap, const kt_trace *t, int64_t pid)
{
    if (!kt_id_is_str(pid)) return snprintf(b, cap, "%" PRId64, pid);
    const char *s = kt_strtab_get(t->strs, kt_id_str(pid));
    size_t k = 0;
    b[k++] = '"';
    for (; *s && k + 8 < cap && k < 200; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') k += (size_t)snprintf(b + k, cap - k, "\\%c", ch);
        else if (ch < 0x20) k += (size_t)snprintf(b + k, cap - k, "\\u%04x", ch);
        else b[k++] = (char)ch;
    }
    return (int)k + snprintf(b + k, cap - k, "\"");
}

static int counter_event(const mem_text *c, const kt_mem_device *d, const kt_mem_event *e, char *b, size_t cap)
{
    char pid[256];
    put_pid(pid, sizeof pid, c->t, kt_event_pid(c->r, e->ev));
    int64_t us = e->ts / 1000, frac = e->ts % 1000;
    if (frac < 0) { us--; frac += 1000; }
    return snprintf(b, cap,
                    ",\n  {\"ph\": \"C\", \"name\": \"Memory %s\", \"pid\": %s, \"ts\": %" PRId64 ".%03" PRId64
                    ", \"args\": {\"Allocated\": %" PRId64 ", \"Reserved\": %" PRId64 "}}",
                    d->label, pid, us, frac, e->allocated, e->reserved);
}

static size_t next_text(void *user, char *buf, size_t cap)
{
    mem_text *c = user;
    size_t n = 0;
    while (c->dev < c->m->ndev && cap - n > MAX_EVENT) {
        const kt_mem_device *d = &c->m->dev[c->dev];
        if (c->next == d->n) {
            c->dev++;
            c->next = 0;
            continue;
        }
        const kt_mem_event *e = &d->e[c->next++];
        if (!kt_mem_event_valid(e)) continue; /* bad totals: not plotted */
        n += (size_t)counter_event(c, d, e, buf + n, cap - n);
        c->written++;
    }
    return n;
}

static bool output_path(const char *dir, const char *in, int tag, char *out, size_t cap)
{
    const char *slash = strrchr(in, '/'), *base = slash ? slash + 1 : in, *cut = NULL;
    for (const char *p = strstr(base, ".json"); p; p = strstr(p + 1, ".json")) cut = p;
    size_t len = strlen(base);
    if (!cut) cut = len > 3 && !strcmp(base + len - 3, ".gz") ? base + len - 3 : base + len;
    char rank[32] = "";
    if (tag >= 0) snprintf(rank, sizeof rank, "_rank%d", tag);
    int n = snprintf(out, cap, "%s/%.*s%s_with_memory%s%s", dir, (int)(cut - base), base, rank, cut,
                     *cut ? "" : ".json");
    return n > 0 && (size_t)n < cap;
}

kt_status kt_memory_trace_write(const kt_trace *t, const kt_rank *r, const kt_mem_rank *m, const char *out_dir,
                                int tag, char *path, size_t cap, uint64_t *events, uint64_t *bytes, char *err,
                                size_t errlen)
{
    if (!r->events_end) {
        snprintf(err, errlen, "%s: the end of traceEvents was not found (file cut off?)", r->file);
        return KT_EINPUT;
    }
    if (!output_path(out_dir, r->file, tag, path, cap)) return KT_EUSAGE;
    mem_text text = { .t = t, .r = r, .m = m };
    kt_trace_copy copy = { .in_path = r->file, .events_end = r->events_end, .out_path = path,
                           .text = next_text, .user = &text };
    kt_status s = kt_write_trace_copy(&copy, bytes, err, errlen);
    *events = text.written;
    return s;
}
