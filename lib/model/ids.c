/*
 * ids.c — the per-rank table behind the 32-bit pid/tid columns.
 *
 * Why: pid and tid are almost always small numbers, but a few writers use
 * strings ("stream 7", "Spans") or 64-bit pthread ids.  Storing the rare
 * values once per rank and referring to them from a 32-bit column saves 8
 * bytes per column per event.  A value gets one reference per rank, so equal
 * originals stay equal in the column (the call tree compares the columns).
 */
#include "model.h"

#include <stdlib.h>

static size_t id_slot(const kt_idtab *t, int64_t v)
{
    size_t s = (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15u) >> 32) & t->mask;
    while (t->slot[s] != KT_NONE && t->v[t->slot[s]] != v) s = (s + 1) & t->mask;
    return s;
}

static bool idtab_rehash(kt_idtab *t, size_t slots)
{
    uint32_t *slot = malloc(slots * sizeof *slot);
    if (!slot) return false;
    for (size_t s = 0; s < slots; s++) slot[s] = KT_NONE;
    free(t->slot);
    t->slot = slot;
    t->mask = slots - 1;
    for (size_t k = 0; k < t->n; k++) t->slot[id_slot(t, t->v[k])] = (uint32_t)k;
    return true;
}

static bool idtab_add(kt_idtab *t, int64_t v)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        int64_t *p = realloc(t->v, cap * sizeof *p);
        if (!p) return false;
        t->v = p, t->cap = cap;
    }
    t->v[t->n++] = v;
    return true;
}

bool kt_rank_id_put_big(kt_rank *r, int64_t v, int32_t *out)
{
    kt_idtab *t = &r->ids;
    if (!t->slot && !idtab_rehash(t, 16)) return false;
    size_t s = id_slot(t, v);
    if (t->slot[s] == KT_NONE) {
        if (t->n >= KT_ID_REFS_MAX || !idtab_add(t, v)) return false;
        t->slot[s] = (uint32_t)(t->n - 1);
        if (2 * t->n > t->mask + 1 && !idtab_rehash(t, 2 * (t->mask + 1))) return false;
        *out = (int32_t)(INT32_MIN + (int64_t)(t->n - 1));
        return true;
    }
    *out = (int32_t)(INT32_MIN + (int64_t)t->slot[s]);
    return true;
}

void kt_idtab_free(kt_idtab *t)
{
    free(t->v);
    free(t->slot);
    *t = (kt_idtab){ 0 };
}
