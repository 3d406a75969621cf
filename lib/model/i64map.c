/* i64map.c — see i64map.h. */
#include "i64map.h"
#include "model.h"

#include <stdlib.h>

/* Keys 64 apart-or-closer share a hashed block of 64 slots: correlation
 * ids are nearly sequential in file and time order, so consecutive inserts
 * and lookups touch neighbouring slots instead of random cache lines.     */
static size_t slot_of(int64_t key, size_t mask)
{
    uint64_t block = ((uint64_t)key >> 6) * 0x9E3779B97F4A7C15ull;
    return (size_t)((block >> 26 << 6) | ((uint64_t)key & 63)) & mask;
}

size_t kt_i64map_capacity(size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    return cap;
}

bool kt_i64map_init(kt_i64map *m, size_t n)
{
    size_t cap = kt_i64map_capacity(n);
    m->mask = cap - 1;
    m->key = kt_alloc_written(cap * sizeof *m->key);
    m->val = malloc(cap * sizeof *m->val);
    if (!m->key || !m->val) return false;
    for (size_t i = 0; i < cap; i++) m->key[i] = INT64_MIN;
    return true;
}

void kt_i64map_free(kt_i64map *m)
{
    free(m->key);
    free(m->val);
    m->key = NULL;
    m->val = NULL;
}

uint32_t *kt_i64map_slot(kt_i64map *m, int64_t key, uint32_t dflt)
{
    size_t s = slot_of(key, m->mask);
    while (m->key[s] != INT64_MIN && m->key[s] != key) s = (s + 1) & m->mask;
    if (m->key[s] == INT64_MIN) {
        m->key[s] = key;
        m->val[s] = dflt;
    }
    return &m->val[s];
}

uint32_t kt_i64map_get(const kt_i64map *m, int64_t key, uint32_t dflt)
{
    for (size_t s = slot_of(key, m->mask); m->key[s] != INT64_MIN; s = (s + 1) & m->mask)
        if (m->key[s] == key) return m->val[s];
    return dflt;
}
