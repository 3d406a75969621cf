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

static bool is_flow(const kt_events *e, uint32_t i)
{
    return e->kind[i] == KT_K_FLOW_START || e->kind[i] == KT_K_FLOW_END;
}

/* Flow events grouped by (cat, id), file order inside a group. */
static uint32_t *group_flows(const kt_events *e, size_t *count)
{
    size_t n = 0;
    uint32_t *ids = kt_select_events(e, is_flow, &n);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    bool ok = ids && keys && kt_sort_ids_by_i64(ids, n, e->corr);
    for (size_t i = 0; ok && i < n; i++) keys[i] = e->cat[ids[i]];
    ok = ok && kt_radix_sort(keys, ids, n);
    free(keys);
    if (!ok) { free(ids); return NULL; }
    *count = n;
    return ids;
}

/* Pair the k-th start with the k-th end of one (cat, id) group, whatever
 * their file order: Kineto often writes the end (ph f) before its start.
 * Appends the pairs to (start_of, end_of); returns how many.               */
static size_t pair_group(const kt_events *e, const uint32_t *ids, size_t n, uint64_t *start_of,
                         uint32_t *end_of)
{
    size_t nstarts = 0, next = 0;
    for (size_t k = 0; k < n; k++)
        if (e->kind[ids[k]] == KT_K_FLOW_START) start_of[nstarts++] = ids[k];
    for (size_t k = 0; k < n && next < nstarts; k++)
        if (e->kind[ids[k]] == KT_K_FLOW_END) end_of[next++] = ids[k];
    return next;
}

static size_t pair_groups(const kt_events *e, const uint32_t *ids, size_t n, uint64_t *start_of,
                          uint32_t *end_of)
{
    size_t pairs = 0, g = 0;
    for (size_t k = 1; k <= n; k++) {
        if (k < n && e->cat[ids[k]] == e->cat[ids[g]] && e->corr[ids[k]] == e->corr[ids[g]])
            continue;
        pairs += pair_group(e, ids + g, k - g, start_of + pairs, end_of + pairs);
        g = k;
    }
    return pairs;
}

kt_status kt_build_flows(const kt_rank *r, kt_index *idx)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    uint32_t *ids = group_flows(e, &n);
    uint64_t *start_of = ids ? malloc((n ? n : 1) * sizeof *start_of) : NULL;
    uint32_t *end_of = start_of ? malloc((n ? n : 1) * sizeof *end_of) : NULL;
    size_t pairs = end_of ? pair_groups(e, ids, n, start_of, end_of) : 0;
    free(ids);
    /* listed in the starts' file order */
    idx->flows = end_of && kt_radix_sort(start_of, end_of, pairs)
                     ? malloc((pairs ? pairs : 1) * sizeof *idx->flows) : NULL;
    for (size_t k = 0; idx->flows && k < pairs; k++)
        idx->flows[k] = (kt_flow){ (uint32_t)start_of[k], end_of[k] };
    idx->nflows = idx->flows ? pairs : 0;
    free(start_of);
    free(end_of);
    return idx->flows ? KT_OK : KT_ENOMEM;
}
