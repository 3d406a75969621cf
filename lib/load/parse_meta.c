/*
 * parse_meta.c — the top-level keys beside traceEvents.
 *
 * Kineto writes run metadata around the event list, some before it
 * (deviceProperties, distributedInfo) and some after (traceName,
 * baseTimeNanoseconds), in any order and spacing.  The few values the
 * analyses need become fields of the rank; every key is also kept verbatim
 * in meta_json so nothing in the file is lost.  Also: the raw-category
 * counter used for the per-category event counts.
 */
#include "load_internal.h"

#include <stdlib.h>
#include <string.h>

static bool meta_append(kt_parser *p, const char *s, size_t n)
{
    if (p->meta_len + n + 1 > p->meta_cap) {
        size_t cap = p->meta_cap ? p->meta_cap : 1024;
        while (cap < p->meta_len + n + 1) cap *= 2;
        char *m = realloc(p->meta, cap);
        if (!m) return false;
        p->meta = m;
        p->meta_cap = cap;
    }
    memcpy(p->meta + p->meta_len, s, n);
    p->meta_len += n;
    p->meta[p->meta_len] = '\0';
    return true;
}

static bool int_value(const char *v, const char *vend, int64_t *out)
{
    kt_num n;
    if (kt_parse_number(v, vend, &n) != vend || n.kind != KT_NUM_INT) return false;
    *out = n.i;
    return true;
}

static bool distributed_info(kt_parser *p, const char *v, const char *vend)
{
    if (*v != '{') return true;
    kt_obj o = { .q = v + 1, .end = vend, .eof = true };
    kt_pair pr;
    bool done;
    while (kt_obj_next(&o, &pr, &done) == KT_SCAN_OK && !done) {
        int64_t x;
        if (KT_KEY_IS(&pr, "rank") && int_value(pr.v, pr.vend, &x) && x >= 0 && x <= INT32_MAX)
            p->dist_rank = x;
        else if (KT_KEY_IS(&pr, "world_size") && int_value(pr.v, pr.vend, &x) && x >= 0 &&
                 x <= INT32_MAX)
            p->r->world_size = (int)x;
        else if (KT_KEY_IS(&pr, "backend") && *pr.v == '"') {
            p->r->backend = kt_intern_json(p, pr.v + 1, (size_t)(pr.vend - pr.v - 2), pr.vflags);
            if (p->r->backend == KT_NONE) return false;
        }
    }
    return true;
}

static bool set_device_name(kt_rank *r, size_t id, uint32_t name)
{
    if (id >= r->ndevices) {
        uint32_t *d = realloc(r->device_names, (id + 1) * sizeof *d);
        if (!d) return false;
        for (size_t i = r->ndevices; i <= id; i++) d[i] = KT_NONE;
        r->device_names = d;
        r->ndevices = id + 1;
    }
    r->device_names[id] = name;
    return true;
}

/* One deviceProperties entry: its "name", indexed by its "id" (else position). */
static bool device_entry(kt_parser *p, const char *v, const char *vend, size_t pos)
{
    kt_obj o = { .q = v + 1, .end = vend, .eof = true };
    kt_pair pr;
    bool done;
    int64_t id = (int64_t)pos;
    uint32_t name = KT_NONE;
    while (kt_obj_next(&o, &pr, &done) == KT_SCAN_OK && !done) {
        int64_t x;
        if (KT_KEY_IS(&pr, "id") && int_value(pr.v, pr.vend, &x) && x >= 0 && x < 4096) id = x;
        else if (KT_KEY_IS(&pr, "name") && *pr.v == '"') {
            name = kt_intern_json(p, pr.v + 1, (size_t)(pr.vend - pr.v - 2), pr.vflags);
            if (name == KT_NONE) return false;
        }
    }
    return name == KT_NONE || set_device_name(p->r, (size_t)id, name);
}

static bool device_properties(kt_parser *p, const char *v, const char *vend)
{
    if (*v != '[') return true;
    const char *q = v + 1;
    for (size_t pos = 0;; pos++) {
        q = kt_skip_ws(q, vend);
        if (q >= vend || *q == ']') return true;
        const char *next;
        unsigned fl;
        if (kt_skip_value(q, vend, true, &next, &fl) != KT_SCAN_OK) return true;
        if (*q == '{' && !device_entry(p, q, next, pos)) return false;
        q = kt_skip_ws(next, vend);
        if (q < vend && *q == ',') q++;
    }
}

bool kt_meta_handle(kt_parser *p, const char *key, size_t klen, unsigned kflags, const char *v,
                    const char *vend)
{
    (void)kflags;
    kt_pair pr = { .key = key, .klen = klen };
    int64_t x;
    if (KT_KEY_IS(&pr, "schemaVersion") && int_value(v, vend, &x)) p->r->schema_version = x;
    else if (KT_KEY_IS(&pr, "baseTimeNanoseconds") && int_value(v, vend, &x)) {
        p->r->has_base_time = true;
        p->r->base_time_ns = x;
    } else if (KT_KEY_IS(&pr, "distributedInfo") && !distributed_info(p, v, vend)) {
        return false;
    } else if (KT_KEY_IS(&pr, "deviceProperties") && !device_properties(p, v, vend)) {
        return false;
    } else if (KT_KEY_IS(&pr, "nodes")) {
        p->looks_et = true;
    }
    return (p->meta_len == 0 || meta_append(p, ", ", 2)) && meta_append(p, "\"", 1) &&
           meta_append(p, key, klen) && meta_append(p, "\": ", 3) &&
           meta_append(p, v, (size_t)(vend - v));
}

bool kt_meta_finish(kt_parser *p)
{
    size_t n = p->meta_len;
    char *m = malloc(n + 3);
    if (!m) return false;
    m[0] = '{';
    if (n) memcpy(m + 1, p->meta, n);
    m[n + 1] = '}';
    m[n + 2] = '\0';
    free(p->r->meta_json);
    p->r->meta_json = m;
    return true;
}

/* ---- raw category counts ------------------------------------------------------ */
bool kt_catcount_grow(kt_catcount *c)
{
    size_t cap = c->cap ? c->cap * 2 : 64;
    uint32_t *id = malloc(cap * sizeof *id);
    uint64_t *count = calloc(cap, sizeof *count);
    if (!id || !count) {
        free(id);
        free(count);
        return false;
    }
    memset(id, 0xff, cap * sizeof *id);
    for (size_t i = 0; i < c->cap; i++) {
        if (c->id[i] == KT_NONE) continue;
        size_t j = (c->id[i] * 2654435761u) & (cap - 1);
        while (id[j] != KT_NONE) j = (j + 1) & (cap - 1);
        id[j] = c->id[i];
        count[j] = c->count[i];
    }
    free(c->id);
    free(c->count);
    c->id = id;
    c->count = count;
    c->cap = cap;
    return true;
}

void kt_catcount_free(kt_catcount *c)
{
    free(c->id);
    free(c->count);
    memset(c, 0, sizeof *c);
}
