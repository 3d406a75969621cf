/*
 * memory_events.h — the Kineto "[memory]" instant events of one rank,
 * grouped by device and in time order: what `kineta memory`'s tables and
 * its counter-track trace copy are both built from.
 *
 * profile_memory=True makes the profiler write one instant event per
 * allocation and free, with the allocator's running totals in its args
 * ("Device Type", "Device Id", "Addr", "Bytes", "Total Allocated",
 * "Total Reserved").
 */
#ifndef KT_MEMORY_EVENTS_H
#define KT_MEMORY_EVENTS_H

#include "model/model.h"

typedef struct kt_mem_event {
    uint32_t ev;
    int64_t ts, bytes, addr, allocated, reserved;
} kt_mem_event;

/* Whether an event's totals can be shown: negative ones (a damaged or
 * hand-edited trace) never make a peak, a series point or a counter.     */
static inline bool kt_mem_event_valid(const kt_mem_event *e) { return e->allocated >= 0 && e->reserved >= 0; }

typedef struct kt_mem_device {
    int64_t type, id;       /* PyTorch DeviceType (0 CPU, 1 CUDA) and index */
    char label[32];         /* "cuda:1", "cpu" */
    kt_mem_event *e;        /* time order (file order at equal times) */
    size_t n;
} kt_mem_device;

typedef struct kt_mem_rank {
    kt_mem_device *dev;     /* by (type, id) */
    size_t ndev;
    kt_mem_event *storage;
} kt_mem_rank;

kt_status kt_mem_rank_collect(const kt_trace *t, const kt_rank *r, kt_mem_rank *out);
void kt_mem_rank_free(kt_mem_rank *m);

#endif
