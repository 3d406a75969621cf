/*
 * pattern_set.c — see pattern_set.h.
 */
#include "analysis/structure/pattern_set.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_seq(const uint32_t *ids, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ n;
    for (size_t i = 0; i < n; i++) h = (h ^ ids[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

static bool grow(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap) return true;
    size_t c = *cap ? *cap : 16;
    while (c < want) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static bool rehash(kt_pattern_set *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 64;
    uint32_t *slots = malloc(n * sizeof *slots);
    if (!slots) return false;
    memset(slots, 0xff, n * sizeof *slots);
    for (size_t i = 0; i < s->n; i++) {
        size_t h = (size_t)hash_seq(s->seqs + s->p[i].seq, s->p[i].len) & (n - 1);
        while (slots[h] != KT_NONE) h = (h + 1) & (n - 1);
        slots[h] = (uint32_t)i;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return true;
}

uint32_t kt_pattern_find_or_add(kt_pattern_set *s, const uint32_t *ids, size_t n)
{
    if (s->failed) return KT_NONE;
    if ((s->n + 1) * 2 > s->nslots && !rehash(s)) goto oom;
    size_t h = (size_t)hash_seq(ids, n) & (s->nslots - 1);
    for (; s->slots[h] != KT_NONE; h = (h + 1) & (s->nslots - 1)) {
        const kt_pattern *p = &s->p[s->slots[h]];
        if (p->len == n && !memcmp(s->seqs + p->seq, ids, n * sizeof *ids)) return s->slots[h];
    }
    if (!grow((void **)&s->p, &s->cap, s->n + 1, sizeof *s->p) ||
        !grow((void **)&s->seqs, &s->capseqs, s->nseqs + n, sizeof *s->seqs))
        goto oom;
    memcpy(s->seqs + s->nseqs, ids, n * sizeof *ids);
    s->p[s->n] = (kt_pattern){ .seq = s->nseqs, .len = n };
    s->nseqs += n;
    s->slots[h] = (uint32_t)s->n;
    return (uint32_t)s->n++;
oom:
    s->failed = true;
    return KT_NONE;
}

void kt_pattern_add_occ(kt_pattern_set *s, uint32_t pattern, uint32_t ev)
{
    if (s->failed) return;
    if (!grow((void **)&s->occ, &s->capocc, s->nocc + 1, sizeof *s->occ)) {
        s->failed = true;
        return;
    }
    s->occ[s->nocc++] = (kt_pattern_occ){ pattern, ev };
}

void kt_pattern_set_free(kt_pattern_set *s)
{
    free(s->p);
    free(s->seqs);
    free(s->slots);
    free(s->occ);
    memset(s, 0, sizeof *s);
}
