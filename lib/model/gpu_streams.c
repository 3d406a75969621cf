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

#include <stdlib.h>

/* Kernels, memcpy and memset always occupy a stream; a cuda_sync event only
 * when it carries one (Event Sync / Context Sync are device-wide).          */
static bool on_stream(const kt_events *e, uint32_t i)
{
    return kt_kind_is_gpu(e->kind[i]) || (e->kind[i] == KT_K_CUDA_SYNC && kt_ev_stream(e, i) >= 0);
}

/* The queues of a rank's thread slots (events' (pid, tid, stream)
 * triples; a trace has a few hundred at most): slots sharing (device,
 * stream) share a queue, numbered in (device, stream) order, so one
 * counting pass over the events groups them, where two radix sorts of
 * their keys (stream, then device) were a third of the index of a file of
 * GPU events only.                                                        */
typedef struct queue_map {
    uint32_t *of_slot;  /* queue of each thread slot                  */
    kt_gpu_stream *q;   /* (device, stream) of each queue; n, ev later */
    size_t *at;         /* per queue: events counted, then the next place */
    uint32_t nq;
} queue_map;

static int by_device_stream(const void *a, const void *b)
{
    const kt_gpu_stream *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

static void queue_map_free(queue_map *m)
{
    free(m->of_slot);
    free(m->q);
    free(m->at);
}

/* m for r's thread slots: their (device, stream) pairs sorted (each
 * slot's index carried in .n meanwhile), the distinct ones numbered in
 * that order; counts zero.  False on OOM (then queue_map_free).        */
static bool queue_map_init(const kt_rank *r, queue_map *m)
{
    const kt_events *e = &r->ev;
    uint32_t nt = e->nthreads;
    *m = (queue_map){ malloc((nt ? nt : 1) * sizeof *m->of_slot), malloc((nt ? nt : 1) * sizeof *m->q),
                      calloc((size_t)nt + 1, sizeof *m->at), 0 };
    if (!m->of_slot || !m->q || !m->at) return false;
    for (uint32_t t = 0; t < nt; t++)
        m->q[t] = (kt_gpu_stream){ .device = kt_rank_id_get(r, e->threads[t].pid), .stream = e->threads[t].stream,
                                   .n = t };
    qsort(m->q, nt, sizeof *m->q, by_device_stream);
    for (uint32_t t = 0; t < nt; t++) { /* the distinct ones to the front (nq <= t) */
        if (m->nq == 0 || by_device_stream(&m->q[t], &m->q[m->nq - 1])) m->q[m->nq++] = m->q[t];
        m->of_slot[m->q[t].n] = m->nq - 1;
    }
    return true;
}

kt_status kt_build_gpu_streams(const kt_rank *r, const uint32_t *gpu_by_ts, size_t ngpu,
                               kt_index *idx)
{
    const kt_events *e = &r->ev;
    queue_map m;
    uint32_t *ids = malloc((ngpu ? ngpu : 1) * sizeof *ids);
    if (!ids || !queue_map_init(r, &m)) goto oom;
    for (size_t i = 0; i < ngpu; i++)
        if (on_stream(e, gpu_by_ts[i])) m.at[m.of_slot[e->thread[gpu_by_ts[i]]]]++;
    size_t nq = 0, pos = 0;
    for (uint32_t q = 0; q < m.nq; q++) { /* counts to first places; the queues with events kept */
        size_t k = m.at[q];
        m.at[q] = pos;
        if (k) m.q[nq++] = (kt_gpu_stream){ .device = m.q[q].device, .stream = m.q[q].stream, .ev = ids + pos, .n = k };
        pos += k;
    }
    for (size_t i = 0; i < ngpu; i++) /* stable: each queue keeps the time order */
        if (on_stream(e, gpu_by_ts[i])) ids[m.at[m.of_slot[e->thread[gpu_by_ts[i]]]]++] = gpu_by_ts[i];
    kt_gpu_stream *qs = realloc(m.q, (nq ? nq : 1) * sizeof *qs);
    if (qs) m.q = NULL;
    queue_map_free(&m);
    if (!qs) goto oom_ids;
    idx->streams = qs;
    idx->nstreams = nq;
    idx->stream_events = ids;
    return KT_OK;
oom:
    if (ids) queue_map_free(&m);
oom_ids:
    free(ids);
    return KT_ENOMEM;
}
