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
#include "corr_index.h"

#include <stdlib.h>

struct kt_launch_calls {
    uint32_t *calls; /* launch calls in file order */
    size_t ncalls;
    kt_corr_index ci; /* correlation id → ordinal in calls */
};

void kt_launch_calls_free(kt_launch_calls *lc)
{
    if (!lc) return;
    free(lc->calls);
    kt_corr_index_free(&lc->ci);
    free(lc);
}

kt_launch_calls *kt_launch_calls_prepare(const kt_rank *r, kt_index *idx)
{
    kt_launch_calls *lc = calloc(1, sizeof *lc);
    if (!lc) return NULL;
    lc->calls = kt_select_events(&r->ev, kt_is_launch_call, &lc->ncalls);
    idx->link = kt_none_array(r->ev.n);
    if (!lc->calls || !idx->link || !kt_corr_index_init(&lc->ci, r->ev.corr, lc->calls, lc->ncalls)) {
        kt_launch_calls_free(lc);
        return NULL;
    }
    return lc;
}

/* ord[k]: the ordinal in calls[] of the call that launched gpu_by_ts[k]
 * (KT_NONE if none); count[c]: how many GPU events call c launched.       */
static void match_calls(const kt_events *e, const kt_launch_calls *lc, const uint32_t *gpu_by_ts,
                        size_t ngpu, uint32_t *ord, uint32_t *count)
{
    for (size_t k = 0; k < ngpu; k++) {
        int64_t corr = e->corr[gpu_by_ts[k]];
        ord[k] = corr >= 0 ? kt_corr_index_get(&lc->ci, corr) : KT_NONE;
        if (ord[k] != KT_NONE) count[ord[k]]++;
    }
}

/* The links and the groups: each call that launched something gets a
 * group in launched[] (its count, then its GPU events in ts order; the
 * groups in the calls' file order) and links to it; each GPU event links
 * to its call.  count[] becomes the groups' write cursors.                */
static bool link_groups(const kt_launch_calls *lc, const uint32_t *gpu_by_ts, size_t ngpu,
                        const uint32_t *ord, uint32_t *count, kt_index *idx)
{
    size_t len = 0;
    for (size_t c = 0; c < lc->ncalls; c++) len += count[c] ? 1 + count[c] : 0;
    idx->launched = kt_alloc_written(len * sizeof *idx->launched);
    if (!idx->launched) return false;
    uint32_t pos = 0;
    for (size_t c = 0; c < lc->ncalls; c++) {
        if (!count[c]) continue;
        idx->link[lc->calls[c]] = pos;
        idx->launched[pos] = count[c];
        count[c] = pos + 1;
        pos += 1 + idx->launched[pos];
    }
    for (size_t k = 0; k < ngpu; k++) {
        if (ord[k] == KT_NONE) continue;
        idx->launched[count[ord[k]]++] = gpu_by_ts[k];
        idx->link[gpu_by_ts[k]] = lc->calls[ord[k]];
    }
    idx->launched_len = len;
    return true;
}

kt_status kt_build_correlation(const kt_rank *r, const kt_launch_calls *lc, const uint32_t *gpu_by_ts,
                               size_t ngpu, kt_index *idx)
{
    if (!lc->ncalls) ngpu = 0; /* no GPU event has a launcher (a kernel trace alone): none looked up */
    uint32_t *ord = malloc((ngpu ? ngpu : 1) * sizeof *ord);
    uint32_t *count = calloc(lc->ncalls ? lc->ncalls : 1, sizeof *count);
    bool ok = ord && count;
    if (ok) match_calls(&r->ev, lc, gpu_by_ts, ngpu, ord, count);
    ok = ok && link_groups(lc, gpu_by_ts, ngpu, ord, count, idx);
    free(ord);
    free(count);
    return ok ? KT_OK : KT_ENOMEM;
}
