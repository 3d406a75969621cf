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

/* launcher[] for every GPU-side event, from the launch calls (file order). */
static bool link_launchers(const kt_events *e, const uint32_t *calls, size_t ncalls,
                           const uint32_t *gpu_by_ts, size_t ngpu, uint32_t *launcher)
{
    kt_i64map m = { 0 };
    bool ok = kt_i64map_init(&m, ncalls);
    for (size_t k = 0; ok && k < ncalls; k++)
        kt_i64map_slot(&m, e->corr[calls[k]], calls[k]); /* first call wins */
    for (size_t k = 0; ok && k < ngpu; k++) {
        uint32_t g = gpu_by_ts[k];
        if (e->corr[g] >= 0) launcher[g] = kt_i64map_get(&m, e->corr[g], KT_NONE);
    }
    kt_i64map_free(&m);
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
