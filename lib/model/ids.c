/*
 * ids.c — the per-rank table behind the 32-bit id columns (pid, tid, corr,
 * ext_id).
 *
 * Why: these are almost always small numbers, but a few writers use strings
 * for pid/tid ("stream 7", "Spans"), 64-bit pthread ids, or correlation ids
 * past 2^30.  Storing the rare values once per rank and referring to them
 * from a 32-bit column saves 4 bytes per column per event (16 per event).
 * A value gets one reference per rank, so equal originals stay equal in
 * the column (the call tree and correlation joins compare the columns).
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

/* The column value referring to index k: above the small values for a
 * positive original, below them for a negative one (the sign is kept).  */
static int32_t reference(int64_t v, size_t k)
{
    return (int32_t)(v > 0 ? KT_ID_SMALL_MAX + 1 + (int64_t)k : INT32_MIN + (int64_t)k);
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
        *out = reference(v, t->n - 1);
        return true;
    }
    *out = reference(v, t->slot[s]);
    return true;
}

void kt_idtab_free(kt_idtab *t)
{
    free(t->v);
    free(t->slot);
    *t = (kt_idtab){ 0 };
}
