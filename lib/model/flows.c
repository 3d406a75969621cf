/*
 * flows.c — flow arrows: a start (ph s) and its end (ph f) with the same
 * category and id.
 *
 * Kineto draws ac2g (CPU launch → GPU work) and fwdbwd (forward op →
 * backward op) links as flow events; TraceLens follows ac2g to attach
 * kernels and fwdbwd to pair forward and backward ops.  Within one
 * (cat, id), starts and ends pair up in file order (first start with first
 * end); ends without a start (Kineto writes some) are ignored.
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

/* Pair starts and ends inside each group; end_of[start] = its end. */
static size_t pair_groups(const kt_events *e, const uint32_t *ids, size_t n, uint32_t *queue,
                          uint32_t *end_of)
{
    size_t pairs = 0, head = 0, tail = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ids[k];
        if (k && (e->cat[i] != e->cat[ids[k - 1]] || e->corr[i] != e->corr[ids[k - 1]]))
            head = tail = 0; /* new group: drop unmatched starts */
        if (e->kind[i] == KT_K_FLOW_START) queue[tail++] = i;
        else if (head < tail) {
            end_of[queue[head++]] = i;
            pairs++;
        }
    }
    return pairs;
}

kt_status kt_build_flows(const kt_rank *r, kt_index *idx)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    uint32_t *ids = group_flows(e, &n);
    uint32_t *queue = ids ? malloc((n ? n : 1) * sizeof *queue) : NULL;
    uint32_t *end_of = queue ? kt_none_array(e->n) : NULL;
    if (!end_of) { free(ids); free(queue); return KT_ENOMEM; }
    size_t pairs = pair_groups(e, ids, n, queue, end_of);
    idx->flows = malloc((pairs ? pairs : 1) * sizeof *idx->flows);
    if (idx->flows) {
        for (uint32_t i = 0; i < e->n; i++) /* listed in the starts' file order */
            if (end_of[i] != KT_NONE) idx->flows[idx->nflows++] = (kt_flow){ i, end_of[i] };
    }
    free(ids);
    free(queue);
    free(end_of);
    return idx->flows ? KT_OK : KT_ENOMEM;
}
