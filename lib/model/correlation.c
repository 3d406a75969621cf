/*
 * correlation.c — which runtime/driver call launched which GPU event.
 *
 * CUPTI/roctracer give a launch call and the GPU work it enqueued the same
 * correlation id.  Launch statistics, launcher ops, queue lengths and step
 * attribution all follow this link, in both directions: GPU event → call,
 * and call → its GPU events (several for cudaGraphLaunch/hipGraphLaunch).
 * GPU events are recognized by kind, never by stream (ROCm uses stream 0).
 */
#include "index_build.h"

#include <stdlib.h>

/* Open-addressing map correlation id → first CPU-side call (file order). */
typedef struct corr_map {
    int64_t *key;
    uint32_t *ev;
    size_t mask;
} corr_map;

static size_t slot_of(int64_t corr, size_t mask)
{
    uint64_t h = (uint64_t)corr * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & mask;
}

static bool map_init(corr_map *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    m->mask = cap - 1;
    m->key = malloc(cap * sizeof *m->key);
    m->ev = malloc(cap * sizeof *m->ev);
    if (!m->key || !m->ev) return false;
    for (size_t i = 0; i < cap; i++) m->key[i] = -1;
    return true;
}

static void map_add(corr_map *m, int64_t corr, uint32_t ev)
{
    size_t s = slot_of(corr, m->mask);
    while (m->key[s] != -1) {
        if (m->key[s] == corr) return; /* keep the first call */
        s = (s + 1) & m->mask;
    }
    m->key[s] = corr;
    m->ev[s] = ev;
}

static uint32_t map_get(const corr_map *m, int64_t corr)
{
    for (size_t s = slot_of(corr, m->mask); m->key[s] != -1; s = (s + 1) & m->mask)
        if (m->key[s] == corr) return m->ev[s];
    return KT_NONE;
}

static bool is_launch_call(const kt_events *e, uint32_t i)
{
    return (e->kind[i] == KT_K_RUNTIME || e->kind[i] == KT_K_DRIVER) && e->corr[i] >= 0;
}

/* launcher[] for every GPU-side event; returns false on OOM. */
static bool link_launchers(const kt_events *e, const uint32_t *gpu_by_ts, size_t ngpu,
                           uint32_t *launcher)
{
    size_t ncalls = 0;
    for (uint32_t i = 0; i < e->n; i++) ncalls += is_launch_call(e, i);
    corr_map m = { 0 };
    bool ok = map_init(&m, ncalls);
    for (uint32_t i = 0; ok && i < e->n; i++)
        if (is_launch_call(e, i)) map_add(&m, e->corr[i], i);
    for (size_t k = 0; ok && k < ngpu; k++) {
        uint32_t g = gpu_by_ts[k];
        if (e->corr[g] >= 0) launcher[g] = map_get(&m, e->corr[g]);
    }
    free(m.key);
    free(m.ev);
    return ok;
}

/* CSR call → GPU events, each call's list in ts order. */
static bool group_by_launcher(const kt_events *e, const uint32_t *gpu_by_ts, size_t ngpu,
                              kt_index *idx)
{
    idx->launched = malloc((ngpu ? ngpu : 1) * sizeof *idx->launched);
    if (!idx->launched) return false;
    for (size_t k = 0; k < ngpu; k++) {
        uint32_t c = idx->launcher[gpu_by_ts[k]];
        if (c != KT_NONE) idx->launch_count[c]++;
    }
    uint32_t pos = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (idx->launch_count[i]) {
            idx->launch_first[i] = pos;
            pos += idx->launch_count[i];
        }
    /* fill using launch_count as a cursor, then restore it */
    for (size_t k = 0; k < ngpu; k++) {
        uint32_t c = idx->launcher[gpu_by_ts[k]];
        if (c == KT_NONE) continue;
        idx->launched[idx->launch_first[c]++] = gpu_by_ts[k];
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (idx->launch_count[i]) idx->launch_first[i] -= idx->launch_count[i];
    return true;
}

kt_status kt_build_correlation(const kt_rank *r, const uint32_t *gpu_by_ts, size_t ngpu,
                               kt_index *idx)
{
    const kt_events *e = &r->ev;
    idx->launcher = kt_none_array(e->n);
    idx->launch_first = kt_none_array(e->n);
    idx->launch_count = calloc(e->n ? e->n : 1, sizeof *idx->launch_count);
    if (!idx->launcher || !idx->launch_first || !idx->launch_count) return KT_ENOMEM;
    if (!link_launchers(e, gpu_by_ts, ngpu, idx->launcher)) return KT_ENOMEM;
    return group_by_launcher(e, gpu_by_ts, ngpu, idx) ? KT_OK : KT_ENOMEM;
}
