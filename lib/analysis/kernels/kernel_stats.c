/*
 * kernel_stats.c — see kernel_stats.h.
 */
#include "analysis/kernels/kernel_stats.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/stats.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t nslots)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (nslots - 1);
}

static bool rehash(kt_group_map *m, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return false;
    for (size_t id = 0; id < m->n; id++) {
        size_t i = slot_of(m->keys[id], nslots);
        while (slots[i]) i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)id + 1;
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    return true;
}

uint32_t kt_group_find(const kt_group_map *m, uint64_t key)
{
    if (!m->nslots) return UINT32_MAX;
    for (size_t i = slot_of(key, m->nslots);; i = (i + 1) & (m->nslots - 1)) {
        uint32_t s = m->slots[i];
        if (!s) return UINT32_MAX;
        if (m->keys[s - 1] == key) return s - 1;
    }
}

uint32_t kt_group_id(kt_group_map *m, uint64_t key)
{
    uint32_t id = kt_group_find(m, key);
    if (id != UINT32_MAX) return id;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        uint64_t *k = realloc(m->keys, cap * sizeof *k);
        if (!k || cap >= UINT32_MAX) { if (k) m->keys = k; return UINT32_MAX; }
        m->keys = k;
        m->cap = cap;
    }
    if (2 * (m->n + 1) > m->nslots && !rehash(m, m->nslots ? m->nslots * 2 : 128)) return UINT32_MAX;
    size_t i = slot_of(key, m->nslots);
    while (m->slots[i]) i = (i + 1) & (m->nslots - 1);
    m->keys[m->n] = key;
    m->slots[i] = (uint32_t)m->n + 1;
    return (uint32_t)m->n++;
}

void kt_group_map_free(kt_group_map *m)
{
    free(m->slots);
    free(m->keys);
    *m = (kt_group_map){ 0 };
}

bool kt_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t c = *cap ? *cap * 2 : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

bool kt_samples_reserve(kt_samples *s, size_t need)
{
    if (need <= s->cap) return true;
    size_t cap = s->cap;
    if (!kt_grow((void **)&s->group, &cap, need, sizeof *s->group)) return false;
    cap = s->cap;
    if (!kt_grow((void **)&s->dur, &cap, need, sizeof *s->dur)) return false;
    s->cap = cap;
    return true;
}

void kt_samples_free(kt_samples *s)
{
    free(s->group);
    free(s->dur);
    *s = (kt_samples){ 0 };
}

kt_dur_stats *kt_group_stats(const kt_samples *s, size_t ngroups)
{
    kt_dur_stats *st = calloc(ngroups ? ngroups : 1, sizeof *st);
    size_t *start = calloc(ngroups + 1, sizeof *start);
    double *sorted = malloc((s->n ? s->n : 1) * sizeof *sorted);
    if (!st || !start || !sorted) {
        free(st);
        st = NULL;
        goto done;
    }
    for (size_t i = 0; i < s->n; i++) {
        start[s->group[i] + 1]++;
        st[s->group[i]].sum = kt_sat_add(st[s->group[i]].sum, s->dur[i]);
    }
    for (size_t g = 0; g < ngroups; g++) start[g + 1] += start[g];
    for (size_t i = 0; i < s->n; i++) sorted[start[s->group[i]]++] = (double)s->dur[i];
    /* start[g] now ends group g; group g begins where g-1 ended */
    for (size_t g = 0, b = 0; g < ngroups; b = start[g++]) {
        if (start[g] == b) continue;
        kt_describe d = kt_describe_values(sorted + b, start[g] - b);
        st[g].count = d.count;
        st[g].min = (int64_t)d.min;
        st[g].max = (int64_t)d.max;
        st[g].mean = d.mean;
        st[g].median = d.q50;
        st[g].std = d.count > 1 ? d.std : 0;
    }
done:
    free(start);
    free(sorted);
    return st;
}
