/*
 * correlation.c — which runtime/driver call launched which GPU event.
 *
 * CUPTI/roctracer give a launch call and the GPU work it enqueued the same
 * correlation id.  Launch statistics, launcher ops, queue lengths and step
 * attribution all follow this link, in both directions: GPU event → call,
 * and call → its GPU events (several for cudaGraphLaunch/hipGraphLaunch).
 * GPU events are recognized by kind, never by stream (ROCm uses stream 0).
 */
#include "index_build.h"
#include "i64map.h"

#include <stdlib.h>

static bool is_launch_call(const kt_events *e, uint32_t i)
{
    return (e->kind[i] == KT_K_RUNTIME || e->kind[i] == KT_K_DRIVER) && e->corr[i] >= 0;
}

/* Launch calls by correlation id.  CUPTI numbers API calls in turn, so a
 * rank's ids are nearly dense: a table indexed by id - min takes a fraction
 * of a hash map's memory (fresh pages are most of this file's cost) and
 * needs no probing.  Sparse ids (hand-made traces) use the map.            */
#define DENSE_SLOTS_PER_CALL 4

typedef struct call_index {
    int64_t min;
    size_t range;    /* slots of dense; 0: the map is used */
    uint32_t *dense; /* call of id min + k, KT_NONE if none */
    kt_i64map map;
} call_index;

static bool call_index_init(call_index *ci, const kt_events *e, const uint32_t *calls,
                            size_t ncalls)
{
    int64_t min = INT64_MAX, max = -1;
    for (size_t k = 0; k < ncalls; k++) {
        int64_t c = e->corr[calls[k]];
        min = c < min ? c : min;
        max = c > max ? c : max;
    }
    *ci = (call_index){ .min = min };
    if (ncalls && (uint64_t)(max - min) < (uint64_t)DENSE_SLOTS_PER_CALL * ncalls) {
        ci->range = (size_t)(max - min) + 1;
        ci->dense = kt_none_array(ci->range);
        for (size_t k = 0; ci->dense && k < ncalls; k++) {
            uint32_t *slot = &ci->dense[e->corr[calls[k]] - min];
            if (*slot == KT_NONE) *slot = calls[k]; /* first call wins */
        }
        return ci->dense;
    }
    if (!kt_i64map_init(&ci->map, ncalls)) return false;
    for (size_t k = 0; k < ncalls; k++)
        kt_i64map_slot(&ci->map, e->corr[calls[k]], calls[k]); /* first call wins */
    return true;
}

static uint32_t call_of(const call_index *ci, int64_t corr)
{
    if (!ci->range) return kt_i64map_get(&ci->map, corr, KT_NONE);
    bool inside = corr >= ci->min && (uint64_t)(corr - ci->min) < ci->range;
    return inside ? ci->dense[corr - ci->min] : KT_NONE;
}

/* launcher[] for every GPU-side event, from the launch calls (file order). */
static bool link_launchers(const kt_events *e, const uint32_t *calls, size_t ncalls,
                           const uint32_t *gpu_by_ts, size_t ngpu, uint32_t *launcher)
{
    call_index ci;
    bool ok = call_index_init(&ci, e, calls, ncalls);
    for (size_t k = 0; ok && k < ngpu; k++) {
        uint32_t g = gpu_by_ts[k];
        if (e->corr[g] >= 0) launcher[g] = call_of(&ci, e->corr[g]);
    }
    free(ci.dense);
    kt_i64map_free(&ci.map);
    return ok;
}

/* CSR call → GPU events, each call's list in ts order.  Only launch calls
 * can have GPU events: walking them, not every event, lays out the lists
 * in the same (file) order.                                                */
static bool group_by_launcher(const uint32_t *calls, size_t ncalls, const uint32_t *gpu_by_ts,
                              size_t ngpu, kt_index *idx)
{
    idx->launched = malloc((ngpu ? ngpu : 1) * sizeof *idx->launched);
    if (!idx->launched) return false;
    for (size_t k = 0; k < ngpu; k++) {
        uint32_t c = idx->launcher[gpu_by_ts[k]];
        if (c != KT_NONE) idx->launch_count[c]++;
    }
    uint32_t pos = 0;
    for (size_t k = 0; k < ncalls; k++)
        if (idx->launch_count[calls[k]]) {
            idx->launch_first[calls[k]] = pos;
            pos += idx->launch_count[calls[k]];
        }
    /* fill using launch_first as a cursor, then restore it */
    for (size_t k = 0; k < ngpu; k++) {
        uint32_t c = idx->launcher[gpu_by_ts[k]];
        if (c == KT_NONE) continue;
        idx->launched[idx->launch_first[c]++] = gpu_by_ts[k];
    }
    for (size_t k = 0; k < ncalls; k++)
        if (idx->launch_count[calls[k]]) idx->launch_first[calls[k]] -= idx->launch_count[calls[k]];
    idx->nlaunched = pos;
    return true;
}

kt_status kt_build_correlation(const kt_rank *r, const uint32_t *gpu_by_ts, size_t ngpu,
                               kt_index *idx)
{
    const kt_events *e = &r->ev;
    size_t ncalls = 0;
    uint32_t *calls = kt_select_events(e, is_launch_call, &ncalls);
    idx->launcher = kt_none_array(e->n);
    idx->launch_first = kt_none_array(e->n);
    idx->launch_count = calloc(e->n ? e->n : 1, sizeof *idx->launch_count);
    bool ok = calls && idx->launcher && idx->launch_first && idx->launch_count &&
              link_launchers(e, calls, ncalls, gpu_by_ts, ngpu, idx->launcher) &&
              group_by_launcher(calls, ncalls, gpu_by_ts, ngpu, idx);
    free(calls);
    return ok ? KT_OK : KT_ENOMEM;
}
