/*
 * gpu_busy.c — see gpu_busy.h.
 *
 * Two passes over the selected GPU events: the first finds each event's
 * group (device, step) and class and counts, the second copies intervals
 * into one block per (group, class) in stream order.  Each block is then a
 * few time-sorted runs (one per stream), which kt_intervals_merge_runs
 * merges in linear time.  (HTA's event set is taken in file order, which
 * is nearly sorted; the merge costs n log n at worst.)
 */
#include "analysis/common/gpu_busy.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"

#include <stdlib.h>
#include <string.h>

/* (device, step) → group index, open addressing; most lookups hit the
 * previous event's group.                                                   */
typedef struct groups {
    kt_busy_group *g;
    size_t (*count)[KT_BUSY_CLASSES];
    size_t n, cap;
    uint32_t *slot; /* group index + 1; 0 = empty */
    size_t nslot;   /* power of two */
    size_t last;
} groups;

static size_t slot_of(const groups *gs, int64_t dev, int64_t step)
{
    uint64_t h = (uint64_t)dev * 0x9E3779B97F4A7C15u ^ (uint64_t)step * 0xC2B2AE3D27D4EB4Fu;
    size_t i = (size_t)(h ^ h >> 29) & (gs->nslot - 1);
    for (;; i = (i + 1) & (gs->nslot - 1)) {
        uint32_t v = gs->slot[i];
        if (!v || (gs->g[v - 1].device == dev && gs->g[v - 1].step == step)) return i;
    }
}

static bool rehash(groups *gs)
{
    size_t nslot = gs->nslot ? gs->nslot * 2 : 64;
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!slot) return false;
    free(gs->slot);
    gs->slot = slot;
    gs->nslot = nslot;
    for (size_t i = 0; i < gs->n; i++) gs->slot[slot_of(gs, gs->g[i].device, gs->g[i].step)] = (uint32_t)i + 1;
    return true;
}

static bool add_group(groups *gs, int64_t dev, int64_t step)
{
    if (gs->n == gs->cap) {
        size_t cap = gs->cap ? gs->cap * 2 : 8;
        kt_busy_group *g = realloc(gs->g, cap * sizeof *g);
        if (!g) return false;
        gs->g = g;
        size_t(*count)[KT_BUSY_CLASSES] = realloc(gs->count, cap * sizeof *count);
        if (!count) return false;
        gs->count = count;
        gs->cap = cap;
    }
    memset(&gs->g[gs->n], 0, sizeof gs->g[gs->n]);
    memset(gs->count[gs->n], 0, sizeof gs->count[gs->n]);
    gs->g[gs->n].device = dev;
    gs->g[gs->n].step = step;
    gs->n++;
    return (gs->n * 2 < gs->nslot) || rehash(gs);
}

/* Group index, or SIZE_MAX on allocation failure. */
static size_t group_of(groups *gs, int64_t dev, int64_t step)
{
    if (gs->n && gs->g[gs->last].device == dev && gs->g[gs->last].step == step) return gs->last;
    if (!gs->nslot && !rehash(gs)) return SIZE_MAX;
    size_t i = slot_of(gs, dev, step);
    if (!gs->slot[i]) {
        if (!add_group(gs, dev, step)) return SIZE_MAX;
        i = slot_of(gs, dev, step);
        gs->slot[i] = (uint32_t)gs->n;
    }
    return gs->last = gs->slot[i] - 1;
}

/* The selected events in walk order, with their group and class. */
typedef struct picks {
    uint32_t *ev, *group;
    uint8_t *cls;
    size_t n;
    bool all; /* class 0 built */
    kt_step_cursor step; /* events come in time order per stream */
} picks;

static kt_status pick(const kt_rank *r, const kt_busy_query *q, groups *gs, picks *p, uint32_t ev, int64_t dev)
{
    int c = q->classify ? q->classify(q->ctx, r, ev) : 0;
    if (c < 0) return KT_OK;
    size_t g = group_of(gs, q->by_device ? dev : KT_BUSY_ALL, q->by_step ? kt_event_step_at(r, ev, &p->step) : KT_BUSY_ALL);
    if (g == SIZE_MAX) return KT_ENOMEM;
    p->ev[p->n] = ev;
    p->group[p->n] = (uint32_t)g;
    p->cls[p->n] = (uint8_t)c;
    p->n++;
    gs->count[g][0] += p->all;
    if (c > 0) gs->count[g][c]++;
    return KT_OK;
}

static bool alloc_picks(picks *p, size_t n)
{
    p->ev = malloc((n ? n : 1) * sizeof *p->ev);
    p->group = malloc((n ? n : 1) * sizeof *p->group);
    p->cls = malloc(n ? n : 1);
    return p->ev && p->group && p->cls;
}

/* HTA's test is stream != -1 on the raw integer, so 4294967295 counts. */
static bool hta_has_stream(const kt_rank *r, uint32_t ev)
{
    return kt_ev_stream(&r->ev, ev) != -1 || (r->ev.argi[ev] != KT_NONE && kt_event_arg(r, ev, KT_ARG_RAW_STREAM));
}

/* HTA: every event with a stream, in file order (the merge sorts it). */
static kt_status pick_hta_events(const kt_rank *r, const kt_busy_query *q, groups *gs, picks *p)
{
    if (!alloc_picks(p, r->ev.n)) return KT_ENOMEM;
    kt_status s = KT_OK;
    for (uint32_t ev = 0; ev < r->ev.n && s == KT_OK; ev++)
        if (hta_has_stream(r, ev)) s = pick(r, q, gs, p, ev, kt_event_pid(r, ev));
    return s;
}

/* Kernels, memcpys and memsets, as they keep the GPU busy. */
static bool gpu_busy_event(const kt_rank *r, uint32_t ev)
{
    return kt_kind_is_gpu(r->ev.kind[ev]) && r->ev.dur[ev] >= 0;
}

/* Kernels, memcpys and memsets from the index's time-sorted streams. */
static kt_status pick_gpu_events(const kt_rank *r, const kt_busy_query *q, groups *gs, picks *p)
{
    size_t total = 0;
    for (size_t i = 0; i < r->idx->nstreams; i++) total += r->idx->streams[i].n;
    if (!alloc_picks(p, total)) return KT_ENOMEM;
    kt_status s = KT_OK;
    for (size_t i = 0; i < r->idx->nstreams && s == KT_OK; i++) {
        const kt_gpu_stream *st = &r->idx->streams[i];
        for (size_t k = 0; k < st->n && s == KT_OK; k++) {
            uint32_t ev = st->ev[k];
            if (gpu_busy_event(r, ev)) s = pick(r, q, gs, p, ev, st->device);
        }
    }
    return s;
}

/* Copy intervals into one block per (group, class), then merge each. */
static kt_status fill_and_merge(const kt_rank *r, groups *gs, const picks *p, kt_busy *out)
{
    size_t total = 0, biggest = 0;
    for (size_t g = 0; g < gs->n; g++)
        for (int c = 0; c < KT_BUSY_CLASSES; c++) {
            total += gs->count[g][c];
            if (gs->count[g][c] > biggest) biggest = gs->count[g][c];
        }
    out->mem = kt_alloc_written(total * sizeof *out->mem);
    kt_interval *tmp = kt_alloc_written(biggest * sizeof *tmp);
    if (!out->mem || !tmp) { free(tmp); return KT_ENOMEM; }
    size_t off = 0;
    for (size_t g = 0; g < gs->n; g++)
        for (int c = 0; c < KT_BUSY_CLASSES; c++) {
            gs->g[g].iv[c] = out->mem + off;
            off += gs->count[g][c];
        }
    for (size_t i = 0; i < p->n; i++) {
        kt_busy_group *g = &gs->g[p->group[i]];
        uint32_t ev = p->ev[i];
        kt_interval x = { r->ev.ts[ev], r->ev.ts[ev] + r->ev.dur[ev] };
        if (p->all) g->iv[0][g->n[0]++] = x;
        if (p->cls[i]) g->iv[p->cls[i]][g->n[p->cls[i]]++] = x;
    }
    for (size_t g = 0; g < gs->n; g++)
        for (int c = 0; c < KT_BUSY_CLASSES; c++)
            gs->g[g].n[c] = kt_intervals_merge_runs(gs->g[g].iv[c], gs->g[g].n[c], tmp);
    free(tmp);
    return KT_OK;
}

static int by_device_step(const void *a, const void *b)
{
    const kt_busy_group *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

kt_status kt_busy_build(const kt_rank *r, const kt_busy_query *q, kt_busy *out)
{
    memset(out, 0, sizeof *out);
    groups gs = { 0 };
    picks p = { .all = !q->classes_only };
    kt_status s = q->hta_events ? pick_hta_events(r, q, &gs, &p)
                  : r->idx    ? pick_gpu_events(r, q, &gs, &p)
                              : KT_OK;
    if (s == KT_OK) s = fill_and_merge(r, &gs, &p, out);
    free(p.ev);
    free(p.group);
    free(p.cls);
    free(gs.count);
    free(gs.slot);
    out->g = gs.g;
    out->ng = gs.n;
    if (s == KT_OK && out->ng == 0 && !q->by_device && !q->by_step) {
        out->g = calloc(1, sizeof *out->g);
        if (!out->g) s = KT_ENOMEM;
        else *out->g = (kt_busy_group){ .device = KT_BUSY_ALL, .step = KT_BUSY_ALL }, out->ng = 1;
    }
    if (s != KT_OK) {
        kt_busy_free(out);
        return s;
    }
    /* No groups (by device or step, and no GPU work): g is NULL, which
     * qsort must not be given even with a count of 0. */
    if (out->ng > 1) qsort(out->g, out->ng, sizeof *out->g, by_device_step);
    return KT_OK;
}

void kt_busy_free(kt_busy *b)
{
    free(b->g);
    free(b->mem);
    memset(b, 0, sizeof *b);
}

size_t kt_busy_streams(const kt_rank *r, size_t first, size_t end, kt_interval *iv, kt_interval *tmp)
{
    size_t n = 0;
    for (size_t s = first; s < end; s++) {
        const kt_gpu_stream *st = &r->idx->streams[s];
        for (size_t k = 0; k < st->n; k++) {
            uint32_t ev = st->ev[k];
            if (gpu_busy_event(r, ev)) iv[n++] = (kt_interval){ r->ev.ts[ev], r->ev.ts[ev] + r->ev.dur[ev] };
        }
    }
    return kt_intervals_merge_runs(iv, n, tmp);
}

/* The union of the groups' unions is the union of all their events: each
 * class's lists, sorted runs one per group, merge into one list.         */
kt_status kt_busy_fold_groups(const kt_busy *split, kt_busy *out)
{
    memset(out, 0, sizeof *out);
    size_t total = 0, biggest = 0;
    for (int c = 0; c < KT_BUSY_CLASSES; c++) {
        size_t n = 0;
        for (size_t g = 0; g < split->ng; g++) n += split->g[g].n[c];
        total += n;
        biggest = n > biggest ? n : biggest;
    }
    out->g = calloc(1, sizeof *out->g);
    out->mem = kt_alloc_written(total * sizeof *out->mem);
    kt_interval *tmp = kt_alloc_written(biggest * sizeof *tmp);
    if (!out->g || !out->mem || !tmp) {
        free(tmp);
        kt_busy_free(out);
        return KT_ENOMEM;
    }
    *out->g = (kt_busy_group){ .device = KT_BUSY_ALL, .step = KT_BUSY_ALL };
    out->ng = 1;
    kt_interval *at = out->mem;
    for (int c = 0; c < KT_BUSY_CLASSES; c++) {
        size_t n = 0;
        for (size_t g = 0; g < split->ng; g++) {
            memcpy(at + n, split->g[g].iv[c], split->g[g].n[c] * sizeof *at);
            n += split->g[g].n[c];
        }
        out->g->iv[c] = at;
        out->g->n[c] = kt_intervals_merge_runs(at, n, tmp);
        at += n;
    }
    free(tmp);
    return KT_OK;
}

kt_status kt_busy_each_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_busy_query *q,
                            kt_busy_fn fn, void *ctx)
{
    for (size_t i = 0; i < t->nranks; i++) {
        const kt_rank *r = t->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        kt_busy b;
        kt_status s = kt_busy_build(r, q, &b);
        if (s == KT_OK) s = fn(ctx, r, &b);
        kt_busy_free(&b);
        if (s != KT_OK) return s;
    }
    return KT_OK;
}

int kt_busy_kernel_type(void *types, const kt_rank *r, uint32_t ev)
{
    return 1 + (int)kt_event_kernel_type(types, r, ev);
}
