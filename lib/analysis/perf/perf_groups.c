/*
 * perf_groups.c — string-keyed groups of perf rows and their merge
 * (perf_groups.h).  Open addressing over the key's FNV-1a hash.
 */
#include "analysis/perf/perf_groups.h"

#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* Keys run to hundreds of bytes (shapes as JSON): mixed 8 bytes at a time. */
uint64_t kt_pg_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n, w;
    for (; n >= 8; n -= 8, s += 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; n; n--, s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 32);
}

static bool rehash(kt_pgroups *gs, size_t want)
{
    size_t cap = 64;
    while (cap < want * 2) cap *= 2;
    uint32_t *slot = malloc(cap * sizeof *slot);
    if (!slot) return false;
    memset(slot, 0xff, cap * sizeof *slot);
    for (size_t i = 0; i < gs->n; i++) {
        size_t h = kt_pg_hash(gs->g[i].key, strlen(gs->g[i].key)) & (cap - 1);
        while (slot[h] != KT_NONE) h = (h + 1) & (cap - 1);
        slot[h] = (uint32_t)i;
    }
    free(gs->slot);
    gs->slot = slot;
    gs->mask = cap - 1;
    return true;
}

kt_pgroup *kt_pgroups_get(kt_pgroups *gs, const char *key, bool *created)
{
    *created = false;
    if ((!gs->slot || (gs->n + 1) * 2 > gs->mask + 1) && !rehash(gs, gs->n + 1)) return NULL;
    size_t h = kt_pg_hash(key, strlen(key)) & gs->mask;
    for (; gs->slot[h] != KT_NONE; h = (h + 1) & gs->mask)
        if (!strcmp(gs->g[gs->slot[h]].key, key)) return &gs->g[gs->slot[h]];
    if (gs->n == gs->cap) {
        size_t cap = gs->cap ? gs->cap * 2 : 16;
        kt_pgroup *g = realloc(gs->g, cap * sizeof *g);
        if (!g) return NULL;
        gs->g = g;
        gs->cap = cap;
    }
    kt_pgroup *g = &gs->g[gs->n];
    memset(g, 0, sizeof *g);
    g->key = strdup(key);
    if (!g->key) return NULL;
    g->family = -1;
    gs->slot[h] = (uint32_t)gs->n++;
    *created = true;
    return g;
}

bool kt_pgroup_add_call(kt_pgroup *g, double busy_us, double v2)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16; /* most groups have many calls: fewer regrowths */
        double *v = realloc(g->busy_us, cap * sizeof *v);
        if (v) g->busy_us = v;
        double *w = v ? realloc(g->v2, cap * sizeof *w) : NULL;
        if (!w) return false;
        g->v2 = w;
        g->cap = cap;
    }
    g->busy_us[g->n] = busy_us;
    g->v2[g->n++] = v2;
    return true;
}

void kt_pgroup_note_kernel(kt_pgroup *g, uint32_t name)
{
    for (size_t i = 0; i < g->nkernels; i++)
        if (g->kernels[i] == name) return;
    if (g->nkernels < KT_PG_MAX_KERNELS) g->kernels[g->nkernels++] = name;
}

static bool set_template(kt_pgroup *g, const uint32_t *name, const int32_t *stream, size_t n)
{
    g->kd_name = malloc((n ? n : 1) * sizeof *g->kd_name);
    g->kd_stream = malloc((n ? n : 1) * sizeof *g->kd_stream);
    if (!g->kd_name || !g->kd_stream) return false;
    if (n) {
        memcpy(g->kd_name, name, n * sizeof *name);
        memcpy(g->kd_stream, stream, n * sizeof *stream);
    }
    g->kd_n = n;
    g->kd_set = true;
    return true;
}

bool kt_pgroup_add_kernels(kt_pgroup *g, const uint32_t *name, const int32_t *stream, const double *dur_us,
                           size_t n)
{
    if (!g->kd_set && !set_template(g, name, stream, n)) return false;
    if (n != g->kd_n || n == 0) return true;
    if ((g->kd_calls + 1) * n > g->kd_cap) {
        size_t cap = (g->kd_calls + 1) * n * 2;
        double *d = realloc(g->kd_dur, cap * sizeof *d);
        if (!d) return false;
        g->kd_dur = d;
        g->kd_cap = cap;
    }
    for (size_t i = 0; i < n; i++) g->kd_dur[g->kd_calls * n + i] = dur_us[i]; /* mostly one: no memcpy call */
    g->kd_calls++;
    return true;
}

static void group_free(kt_pgroup *g)
{
    free(g->key);
    free(g->category);
    free(g->dims);
    free(g->types);
    free(g->strides);
    free(g->concrete);
    free(g->process_name);
    free(g->process_label);
    free(g->thread_name);
    free(g->busy_us);
    free(g->v2);
    free(g->kd_name);
    free(g->kd_stream);
    free(g->kd_dur);
}

/* Append s's calls to d. */
static bool absorb(kt_pgroup *d, const kt_pgroup *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (!kt_pgroup_add_call(d, s->busy_us[i], s->v2[i])) return false;
    d->direct_sum_us += s->direct_sum_us;
    d->subtree_sum_us += s->subtree_sum_us;
    for (size_t i = 0; i < s->nkernels; i++) kt_pgroup_note_kernel(d, s->kernels[i]);
    if (s->kd_set && !d->kd_set && !set_template(d, s->kd_name, s->kd_stream, s->kd_n)) return false;
    for (size_t c = 0; s->kd_set && s->kd_n == d->kd_n && c < s->kd_calls; c++)
        if (!kt_pgroup_add_kernels(d, s->kd_name, s->kd_stream, s->kd_dur + c * s->kd_n, s->kd_n)) return false;
    return true;
}

bool kt_pgroups_merge(kt_pgroups *dst, kt_pgroups *src)
{
    if (!dst->n) { /* the first rank's groups: taken over whole, table and all */
        kt_pgroups_free(dst);
        *dst = *src;
        memset(src, 0, sizeof *src);
        return true;
    }
    bool ok = true;
    for (size_t i = 0; i < src->n; i++) {
        kt_pgroup *s = &src->g[i];
        bool created;
        kt_pgroup *d = ok ? kt_pgroups_get(dst, s->key, &created) : NULL;
        if (!d) {
            ok = false;
        } else if (created) { /* take s over whole */
            free(d->key);
            *d = *s;
            memset(s, 0, sizeof *s);
        } else {
            ok = absorb(d, s);
        }
        group_free(s);
    }
    free(src->g);
    free(src->slot);
    memset(src, 0, sizeof *src);
    return ok;
}

void kt_pgroups_free(kt_pgroups *gs)
{
    for (size_t i = 0; i < gs->n; i++) group_free(&gs->g[i]);
    free(gs->g);
    free(gs->slot);
    memset(gs, 0, sizeof *gs);
}
