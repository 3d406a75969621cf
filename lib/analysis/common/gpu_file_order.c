/*
 * gpu_file_order.c — see gpu_file_order.h.
 */
#include "analysis/common/gpu_file_order.h"
#include "model/index.h"

#include <stdlib.h>

/* Each event is on one stream: its bit is set once. */
static void mark_taken(const kt_rank *r, kt_gpu_keep_fn keep, void *ctx, uint64_t *bits)
{
    for (size_t q = 0; q < r->idx->nstreams; q++) {
        const kt_gpu_stream *st = &r->idx->streams[q];
        for (size_t k = 0; k < st->n; k++) {
            uint32_t ev = st->ev[k];
            if (kt_kind_is_gpu(r->ev.kind[ev]) && (!keep || keep(ctx, r, ev)))
                bits[ev / 64] |= (uint64_t)1 << (ev % 64);
        }
    }
}

uint64_t *kt_gpu_events_file_order(const kt_rank *r, kt_gpu_keep_fn keep, void *ctx, size_t *n)
{
    size_t total = 0, words = (r->ev.n + 63) / 64;
    for (size_t q = 0; q < r->idx->nstreams; q++) total += r->idx->streams[q].n;
    uint64_t *ev = malloc((total ? total : 1) * sizeof *ev), *bits = calloc(words ? words : 1, sizeof *bits);
    if (!ev || !bits) {
        free(ev);
        free(bits);
        return NULL;
    }
    mark_taken(r, keep, ctx, bits);
    *n = 0;
    for (size_t w = 0; w < words; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) ev[(*n)++] = w * 64 + (uint64_t)__builtin_ctzll(b);
    free(bits);
    return ev;
}
