/*
 * flows.c — flow arrows: a start (ph s) and its end (ph f) with the same
 * category and id.
 *
 * Kineto draws ac2g (CPU launch → GPU work) and fwdbwd (forward op →
 * backward op) links as flow events; TraceLens follows ac2g to attach
 * kernels and fwdbwd to pair forward and backward ops.  Within one
 * (cat, id), starts and ends pair up in file order (first start with first
 * end), whichever comes first in the file; unmatched ones are ignored.
 */
#include "index_build.h"
#include "radix.h"

#include <stdlib.h>

/* A flow start's (id, cat) and its position among the starts. */
typedef struct start_key {
    int64_t id;
    uint32_t cat, pos;
} start_key;

/* Starts and ends, each in file order, in one pass over the events. */
static bool split_flows(const kt_events *e, uint32_t **starts, size_t *ns, uint32_t **ends,
                        size_t *ne)
{
    size_t room = e->n ? e->n : 1; /* only the pages filled are touched */
    *starts = malloc(room * sizeof **starts);
    *ends = malloc(room * sizeof **ends);
    if (!*starts || !*ends) return false;
    size_t s = 0, f = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        (*starts)[s] = i, (*ends)[f] = i; /* kept by the counts: no branches */
        s += e->kind[i] == KT_K_FLOW_START;
        f += e->kind[i] == KT_K_FLOW_END;
    }
    *ns = s, *ne = f;
    return true;
}

/* Longest run of equal ids ordered by insertion; longer ones by radix. */
#define SHORT_RUN 16

/* Orders each run of equal ids in pos[] by cat, stably.  Such runs are a
 * flow id that ac2g and fwdbwd both use: short, unless every flow shares
 * an id (then false: too long for insertion).                             */
static bool order_cats_in_runs(const kt_events *e, const uint32_t *starts, uint32_t *pos,
                               size_t ns, const int64_t *id)
{
    for (size_t a = 0, b; a < ns; a = b) {
        for (b = a + 1; b < ns && id[pos[b]] == id[pos[a]]; b++)
            ;
        if (b - a > SHORT_RUN) return false;
        for (size_t k = a + 1; k < b; k++) {
            uint32_t p = pos[k], cat = e->cat[starts[p]];
            size_t j = k;
            for (; j > a && e->cat[starts[pos[j - 1]]] > cat; j--) pos[j] = pos[j - 1];
            pos[j] = p;
        }
    }
    return true;
}

/* Stable order of the start positions by (id, cat), given their ids:
 * usually one check pass (Kineto writes starts in id order) and a few
 * shared ids to order by cat.                                              */
static uint32_t *order_starts(const kt_events *e, const uint32_t *starts, size_t ns,
                              const int64_t *id)
{
    uint32_t *pos = malloc((ns ? ns : 1) * sizeof *pos);
    if (!pos) return NULL;
    for (size_t p = 0; p < ns; p++) pos[p] = (uint32_t)p;
    bool ok = kt_sort_ids_by_i64(pos, ns, id);
    if (ok && !order_cats_in_runs(e, starts, pos, ns, id)) { /* by cat, then stably by id */
        uint64_t *keys = malloc(ns * sizeof *keys);
        for (size_t p = 0; keys && p < ns; p++) keys[p] = e->cat[starts[p]], pos[p] = (uint32_t)p;
        ok = keys && kt_radix_sort(keys, pos, ns) && kt_sort_ids_by_i64(pos, ns, id);
        free(keys);
    }
    if (!ok) { free(pos); return NULL; }
    return pos;
}

/* The starts' keys in (id, cat) order, file order among equals. */
static start_key *sorted_starts(const kt_events *e, const uint32_t *starts, size_t ns)
{
    int64_t *id = calloc(ns ? ns : 1, sizeof *id);
    for (size_t p = 0; id && p < ns; p++) id[p] = e->corr[starts[p]];
    uint32_t *pos = id ? order_starts(e, starts, ns, id) : NULL;
    start_key *keys = pos ? malloc((ns ? ns : 1) * sizeof *keys) : NULL;
    for (size_t k = 0; keys && k < ns; k++)
        keys[k] = (start_key){ id[pos[k]], e->cat[starts[pos[k]]], pos[k] };
    free(id);
    free(pos);
    return keys;
}

static bool key_less(const start_key *k, int64_t id, uint32_t cat)
{
    return k->id < id || (k->id == id && k->cat < cat);
}

/* First k with keys[k] >= (id, cat), searched outward from near (the
 * previous answer): ends come in nearly the order of their starts, so the
 * answer is usually a few steps away.                                      */
static size_t lower_bound_near(const start_key *keys, size_t n, size_t near, int64_t id,
                               uint32_t cat)
{
    size_t lo, hi, step = 1; /* the answer lies in [lo, hi] */
    if (near < n && key_less(&keys[near], id, cat)) {
        for (lo = near; lo + step < n && key_less(&keys[lo + step], id, cat); step *= 2) lo += step;
        hi = lo + step < n ? lo + step : n;
        lo++;
    } else {
        for (hi = near; hi >= step && !key_less(&keys[hi - step], id, cat); step *= 2) hi -= step;
        lo = hi >= step ? hi - step + 1 : 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_less(&keys[mid], id, cat)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool same_key(const start_key *k, int64_t id, uint32_t cat)
{
    return k->id == id && k->cat == cat;
}

/* match[p] = the end paired with start p: within one (cat, id), the k-th
 * end in file order takes the k-th start (used[] counts, per group, the
 * starts taken), whatever their file order (Kineto often writes the end,
 * ph f, before its start).                                                 */
static bool match_ends(const kt_events *e, const start_key *keys, size_t ns, const uint32_t *ends,
                       size_t ne, uint32_t *match)
{
    uint32_t *used = calloc(ns ? ns : 1, sizeof *used);
    if (!used) return false;
    size_t at = 0;
    for (size_t k = 0; k < ne; k++) {
        int64_t id = e->corr[ends[k]];
        uint32_t cat = e->cat[ends[k]];
        at = lower_bound_near(keys, ns, at, id, cat);
        if (at == ns || !same_key(&keys[at], id, cat)) continue;
        size_t take = at + used[at];
        if (take == ns || !same_key(&keys[take], id, cat)) continue; /* more ends than starts */
        match[keys[take].pos] = ends[k];
        used[at]++;
    }
    free(used);
    return true;
}

/* idx->flows from the matches, in the starts' file order. */
static bool list_flows(const uint32_t *starts, const uint32_t *match, size_t ns, kt_index *idx)
{
    size_t pairs = 0;
    for (size_t p = 0; p < ns; p++) pairs += match[p] != KT_NONE;
    idx->flows = malloc((pairs ? pairs : 1) * sizeof *idx->flows);
    if (!idx->flows) return false;
    for (size_t p = 0; p < ns; p++)
        if (match[p] != KT_NONE) idx->flows[idx->nflows++] = (kt_flow){ starts[p], match[p] };
    return true;
}

kt_status kt_build_flows(const kt_rank *r, kt_index *idx)
{
    const kt_events *e = &r->ev;
    uint32_t *starts = NULL, *ends = NULL, *match = NULL;
    start_key *keys = NULL;
    size_t ns = 0, ne = 0;
    bool ok = split_flows(e, &starts, &ns, &ends, &ne) && (keys = sorted_starts(e, starts, ns)) &&
              (match = kt_none_array(ns)) && match_ends(e, keys, ns, ends, ne, match) &&
              list_flows(starts, match, ns, idx);
    free(starts);
    free(ends);
    free(keys);
    free(match);
    return ok ? KT_OK : KT_ENOMEM;
}
