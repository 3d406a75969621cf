/*
 * clock_offsets.c — clock offsets from the ends of matched implicit-sync
 * collectives (see clock_offsets.h).
 *
 * Ranks are placed one ring at a time: the first rank is the reference; a
 * rank sharing collectives with an already placed rank gets the median of
 * (its end − that rank's end + that rank's offset).  Process groups that do
 * not contain the reference (tensor- or pipeline-parallel groups) are thus
 * reached through ranks that are.
 */
#include "analysis/collectives/clock_offsets.h"

#include <stdlib.h>

typedef struct diffs {
    int64_t *v;
    size_t n, cap;
    int32_t via;
} diffs;

static bool push(diffs *d, int64_t v)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        int64_t *nv = realloc(d->v, cap * sizeof *nv);
        if (!nv) return false;
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n++] = v;
    return true;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t rec_end(const kt_comm_rec *c)
{
    return c->ts + c->dur;
}

/* One pass over the instances: differences of unplaced ranks against the
 * lowest placed member of each usable instance.                           */
static bool collect_round(const kt_comm_match *m, const kt_clock_offset *off, const bool *placed, diffs *d)
{
    for (size_t i = 0; i < m->ninst; i++) {
        const kt_coll_inst *in = &m->inst[i];
        const kt_coll_member *x = &m->members[in->first];
        if (in->status != KT_INST_COMPLETE || in->n < 2) continue;
        if (!kt_coll_implicit_sync((kt_coll_kind)kt_member_rec(m, x)->kind)) continue;
        int anchor = -1;
        for (uint32_t k = 0; k < in->n && anchor < 0; k++)
            if (placed[x[k].rank_i]) anchor = (int)k;
        if (anchor < 0) continue;
        const kt_coll_member *a = &x[anchor];
        int64_t base = rec_end(kt_member_rec(m, a)) - off[a->rank_i].offset;
        for (uint32_t k = 0; k < in->n; k++) {
            uint32_t r = x[k].rank_i;
            if (placed[r]) continue;
            if (d[r].n == 0) d[r].via = m->ranks[a->rank_i].rank;
            if (!push(&d[r], rec_end(kt_member_rec(m, &x[k])) - base)) return false;
        }
    }
    return true;
}

/* Place every rank that collected differences; false when none did. */
static bool place_round(const kt_comm_match *m, kt_clock_offset *off, bool *placed, diffs *d)
{
    bool progress = false;
    for (size_t r = 0; r < m->nranks; r++) {
        if (placed[r] || d[r].n == 0) continue;
        qsort(d[r].v, d[r].n, sizeof *d[r].v, i64_cmp);
        /* the lower median: an integer, and one of the measured values */
        off[r] = (kt_clock_offset){ .offset = d[r].v[(d[r].n - 1) / 2], .spread = d[r].v[d[r].n - 1] - d[r].v[0],
                                    .used = (uint32_t)d[r].n, .via = d[r].via };
        placed[r] = true;
        progress = true;
    }
    return progress;
}

kt_status kt_clock_offsets(const kt_comm_match *m, kt_clock_offset *off)
{
    size_t n = m->nranks;
    for (size_t r = 0; r < n; r++) off[r] = (kt_clock_offset){ .via = -1 };
    if (n == 0) return KT_OK;
    bool *placed = calloc(n, sizeof *placed);
    diffs *d = calloc(n, sizeof *d);
    kt_status s = placed && d ? KT_OK : KT_ENOMEM;
    if (s == KT_OK) {
        placed[0] = true;
        off[0].via = m->ranks[0].rank;
    }
    while (s == KT_OK) {
        for (size_t r = 0; r < n; r++) d[r].n = 0;
        if (!collect_round(m, off, placed, d)) s = KT_ENOMEM;
        else if (!place_round(m, off, placed, d)) break;
    }
    for (size_t r = 0; d && r < n; r++) free(d[r].v);
    free(d);
    free(placed);
    return s;
}
