/*
 * kernel_stats.c — see kernel_stats.h.
 */
#include "kernel_stats.h"

#include <math.h>
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

bool kt_samples_push(kt_samples *s, uint32_t group, int64_t dur)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint32_t *g = realloc(s->group, cap * sizeof *g);
        if (!g) return false;
        s->group = g;
        int64_t *d = realloc(s->dur, cap * sizeof *d);
        if (!d) return false;
        s->dur = d;
        s->cap = cap;
    }
    s->group[s->n] = group;
    s->dur[s->n++] = dur;
    return true;
}

void kt_samples_free(kt_samples *s)
{
    free(s->group);
    free(s->dur);
    *s = (kt_samples){ 0 };
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Statistics of one group's durations v[0..n) (sorted when median). */
static void summarize(int64_t *v, size_t n, bool median, kt_dur_stats *st)
{
    if (median) qsort(v, n, sizeof *v, cmp_i64);
    int64_t sum = 0, lo = v[0], hi = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    double mean = (double)sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++) ss += ((double)v[i] - mean) * ((double)v[i] - mean);
    *st = (kt_dur_stats){ .count = n, .sum = sum, .min = lo, .max = hi, .mean = mean,
                          .std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0 };
    st->median = !median ? NAN : n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

kt_dur_stats *kt_group_stats(const kt_samples *s, size_t ngroups, bool median)
{
    kt_dur_stats *st = calloc(ngroups ? ngroups : 1, sizeof *st);
    size_t *start = calloc(ngroups + 1, sizeof *start);
    int64_t *sorted = malloc((s->n ? s->n : 1) * sizeof *sorted);
    if (!st || !start || !sorted) {
        free(st);
        st = NULL;
        goto done;
    }
    for (size_t i = 0; i < s->n; i++) start[s->group[i] + 1]++;
    for (size_t g = 0; g < ngroups; g++) start[g + 1] += start[g];
    for (size_t i = 0; i < s->n; i++) sorted[start[s->group[i]]++] = s->dur[i];
    /* start[g] now ends group g; group g begins where g-1 ended */
    for (size_t g = 0, b = 0; g < ngroups; b = start[g++])
        if (start[g] > b) summarize(sorted + b, start[g] - b, median, &st[g]);
done:
    free(start);
    free(sorted);
    return st;
}
