/*
 * gpu_file_order.c — see gpu_file_order.h.
 */
#include "analysis/common/gpu_file_order.h"
#include "model/index.h"
#include "model/radix.h"

#include <stdlib.h>

uint64_t *kt_gpu_events_file_order(const kt_rank *r, kt_gpu_keep_fn keep, void *ctx, size_t *n)
{
    size_t total = 0;
    for (size_t q = 0; q < r->idx->nstreams; q++) total += r->idx->streams[q].n;
    uint64_t *ev = malloc((total ? total : 1) * sizeof *ev);
    if (!ev) return NULL;
    *n = 0;
    for (size_t q = 0; q < r->idx->nstreams; q++) {
        const kt_gpu_stream *st = &r->idx->streams[q];
        for (size_t k = 0; k < st->n; k++)
            if (kt_kind_is_gpu(r->ev.kind[st->ev[k]]) && (!keep || keep(ctx, r, st->ev[k]))) ev[(*n)++] = st->ev[k];
    }
    if (kt_radix_sort(ev, NULL, *n)) return ev;
    free(ev);
    return NULL;
}
