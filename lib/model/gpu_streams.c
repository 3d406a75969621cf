/*
 * gpu_streams.c — the GPU queues of a rank: per (device, stream), the events
 * that occupy the stream, in time order.
 *
 * Idle time, overlap, queue length and kernel timelines are all sweeps over
 * one stream's events; grouping them once here keeps those sweeps linear.
 * The device is the GPU event's pid (Kineto writes the device id there);
 * ROCm's stream 0 is an ordinary stream.
 */
#include "index_build.h"
#include "radix.h"

#include <stdlib.h>

/* Kernels, memcpy and memset always occupy a stream; a cuda_sync event only
 * when it carries one (Event Sync / Context Sync are device-wide).          */
static bool on_stream(const kt_events *e, uint32_t i)
{
    return kt_kind_is_gpu(e->kind[i]) || (e->kind[i] == KT_K_CUDA_SYNC && kt_ev_stream(e, i) >= 0);
}

/* Stable re-sort of ids by (device, stream), keeping the ts order inside. */
static bool sort_by_queue(const kt_rank *r, uint32_t *ids, size_t n)
{
    const kt_events *e = &r->ev;
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return false;
    for (size_t i = 0; i < n; i++) keys[i] = kt_radix_key_i64(kt_ev_stream(e, ids[i]));
    bool ok = kt_radix_sort(keys, ids, n);
    for (size_t i = 0; ok && i < n; i++) keys[i] = kt_radix_key_i64(kt_event_pid(r, ids[i]));
    ok = ok && kt_radix_sort(keys, ids, n);
    free(keys);
    return ok;
}

static size_t count_queues(const kt_events *e, const uint32_t *ids, size_t n)
{
    size_t q = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || kt_ev_pid(e, ids[i]) != kt_ev_pid(e, ids[i - 1]) || kt_ev_stream(e, ids[i]) != kt_ev_stream(e, ids[i - 1]))
            q++;
    return q;
}

kt_status kt_build_gpu_streams(const kt_rank *r, const uint32_t *gpu_by_ts, size_t ngpu,
                               kt_index *idx)
{
    const kt_events *e = &r->ev;
    uint32_t *ids = malloc((ngpu ? ngpu : 1) * sizeof *ids);
    if (!ids) return KT_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < ngpu; i++)
        if (on_stream(e, gpu_by_ts[i])) ids[n++] = gpu_by_ts[i];
    if (!sort_by_queue(r, ids, n)) { free(ids); return KT_ENOMEM; }
    size_t nq = count_queues(e, ids, n);
    kt_gpu_stream *qs = calloc(nq ? nq : 1, sizeof *qs);
    if (!qs) { free(ids); return KT_ENOMEM; }
    size_t q = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || kt_event_pid(r, ids[i]) != qs[q - 1].device || kt_ev_stream(e, ids[i]) != qs[q - 1].stream) {
            qs[q++] = (kt_gpu_stream){ .device = kt_event_pid(r, ids[i]), .stream = kt_ev_stream(e, ids[i]), .ev = ids + i };
        }
        qs[q - 1].n++;
    }
    idx->streams = qs;
    idx->nstreams = nq;
    idx->stream_events = ids;
    return KT_OK;
}
