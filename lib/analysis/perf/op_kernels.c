/*
 * op_kernels.c — kernel launchers, modelled ops and their GPU events for
 * one rank (op_kernels.h).
 *
 * A pass over the events finds the modelled ops and the linked GPU events;
 * with the call tree each GPU event's launch call gives its launcher, and
 * the ops that get a record are known.  Then one walk up from each event's
 * launch call notes the records on the way, and the notes are put in one
 * array by record.  The events are walked in time order, so each record's
 * list comes out in that order.
 */
#include "analysis/perf/op_kernels.h"
#include "analysis/common/name_match.h"
#include "analysis/kernels/kernel_stats.h"
#include "model/index.h"
#include "model/radix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the build keeps by event while it finds the records. */
typedef struct op_build {
    const kt_rank *r;
    const uint32_t *parent; /* the call tree's */
    uint8_t *role;          /* KT_OPK_* bits */
    int8_t *family;         /* set where role has KT_OPK_MODELLED */
    uint32_t *slot;         /* set where role is not 0: the record's index */
    uint32_t *gpu;          /* the linked GPU events, by (ts, id) */
    uint32_t *call;         /* gpu[i]'s launch call */
    uint32_t *own;          /* gpu[i]'s op (direct_launcher), or KT_NONE */
    size_t ngpu;
    size_t nrec;            /* events with a role */
} op_build;

/* GPU event gpu[i] is below record rec. */
typedef struct below {
    uint32_t rec, i;
} below;

/* TraceLens's tree holds cpu_op, runtime and driver events only. */
static bool in_tl_tree(uint8_t k) { return k == KT_K_CPU_OP || k == KT_K_RUNTIME || k == KT_K_DRIVER; }

static uint32_t tl_parent(const op_build *b, uint32_t ev)
{
    uint32_t p = b->parent[ev];
    while (p != KT_NONE && !in_tl_tree(b->r->ev.kind[p])) p = b->parent[p];
    return p;
}

/* The op whose own GPU event gpu_ev is (launched by call rt), or KT_NONE:
 * the cpu_op right above the call, else the call itself.  nccl: kernel
 * names with "nccl" in them (a strstr per kernel was a twentieth of kineta
 * perf on top of the load).                                               */
static uint32_t direct_launcher(const op_build *b, uint32_t rt, uint32_t gpu_ev, kt_name_match *nccl)
{
    const kt_rank *r = b->r;
    uint32_t p = tl_parent(b, rt);
    bool is_nccl = kt_name_contains(nccl, r->ev.name[gpu_ev]);
    if (p != KT_NONE && r->ev.kind[p] == KT_K_CPU_OP) return is_nccl ? KT_NONE : p;
    const uint32_t *evs;
    if (is_nccl && kt_launched_events(r, rt, &evs) == 1) return KT_NONE;
    return rt;
}

/* The union of (start-sorted) intervals, its length summed as it goes. */
typedef struct busy_sum {
    double total, start, end;
    uint32_t n;
} busy_sum;

static void busy_add(busy_sum *u, double s, double e)
{
    if (u->n++ && s <= u->end) {
        u->end = e > u->end ? e : u->end;
        return;
    }
    if (u->n > 1) u->total += u->end - u->start;
    u->start = s;
    u->end = e;
}

static double busy_total(const busy_sum *u) { return u->n ? u->total + (u->end - u->start) : 0; }

/* The op's busy µs, of all its events and of its own (one pass). */
static void busy_times(const kt_rank *r, const kt_op_map *m, kt_op_rec *o)
{
    busy_sum all = { 0 }, own = { 0 };
    for (uint32_t i = o->kfirst; i < o->kfirst + o->nk; i++) {
        uint32_t ev = m->kev[i];
        int64_t d = r->ev.dur[ev] > 0 ? r->ev.dur[ev] : 0;
        double s = (double)r->ev.ts[ev] / 1e3, e = s + (double)d / 1e3; /* = the file's decimals as doubles */
        busy_add(&all, s, e);
        if (m->kdirect[i]) busy_add(&own, s, e);
    }
    o->subtree_us = busy_total(&all);
    o->direct_us = busy_total(&own);
}

/* Every (record, GPU event below it) pair, in the GPU events' order (*n
 * of them); NULL on OOM.                                                 */
static below *list_below(const op_build *b, size_t *n)
{
    below *p = NULL;
    size_t cap = 0;
    bool ok = kt_grow((void **)&p, &cap, 2 * b->ngpu + 16, sizeof *p);
    *n = 0;
    for (size_t i = 0; ok && i < b->ngpu; i++)
        for (uint32_t a = b->call[i]; ok && a != KT_NONE; a = b->parent[a]) {
            if (!b->role[a]) continue;
            ok = *n < cap || kt_grow((void **)&p, &cap, *n + 1, sizeof *p);
            if (ok) p[(*n)++] = (below){ b->slot[a], (uint32_t)i };
        }
    if (!ok) {
        free(p);
        return NULL;
    }
    return p;
}

/* The modelled ops (role and family) and the linked GPU events (gpu[],
 * room for every linked event), in time order.                          */
static bool scan_events(op_build *b, int (*family_of)(void *, uint32_t), void *ctx)
{
    const kt_rank *r = b->r;
    /* locals: a store through role, family or gpu may alias the rank's
     * fields, which the loop would read again at every event            */
    const uint8_t *kind = r->ev.kind;
    const uint32_t *name = r->ev.name;
    uint32_t *gpu = b->gpu, n = r->ev.n;
    size_t ngpu = 0, nrec = 0;
    for (uint32_t ev = 0; ev < n; ev++) {
        uint8_t k = kind[ev];
        if (k == KT_K_CPU_OP && name[ev] != KT_NONE) {
            int f = family_of(ctx, name[ev]);
            if (f >= 0) {
                b->family[ev] = (int8_t)f;
                b->role[ev] = KT_OPK_MODELLED;
                nrec++;
            }
        } else if (kt_kind_is_gpu(k) && kt_gpu_launcher(r, ev) != KT_NONE) {
            gpu[ngpu++] = ev;
        }
    }
    b->ngpu = ngpu;
    b->nrec += nrec;
    return kt_sort_ids_by_i64(b->gpu, b->ngpu, r->ev.ts); /* stable: ties stay in id order */
}

/* TraceLens's total_time: first start to last end of the linked GPU
 * events (the list in hand, not another pass over every event).          */
static void gpu_span(const op_build *b, kt_op_map *m)
{
    const kt_rank *r = b->r;
    m->gpu_first_us = INFINITY;
    m->gpu_last_us = -INFINITY;
    for (size_t i = 0; i < b->ngpu; i++) {
        uint32_t ev = b->gpu[i];
        double s = (double)r->ev.ts[ev] / 1e3, e = s + (double)(r->ev.dur[ev] > 0 ? r->ev.dur[ev] : 0) / 1e3;
        m->gpu_first_us = s < m->gpu_first_us ? s : m->gpu_first_us;
        m->gpu_last_us = e > m->gpu_last_us ? e : m->gpu_last_us;
    }
}

/* Each linked GPU event's launch call and own op, marked a launcher. */
static void mark_launchers(const kt_trace *t, op_build *b)
{
    kt_name_match nccl;
    kt_name_match_init(&nccl, t->strs, "nccl");
    for (size_t i = 0; i < b->ngpu; i++) {
        b->call[i] = kt_gpu_launcher(b->r, b->gpu[i]);
        uint32_t own = b->own[i] = direct_launcher(b, b->call[i], b->gpu[i], &nccl);
        if (own == KT_NONE) continue;
        b->nrec += !b->role[own];
        b->role[own] |= KT_OPK_LAUNCHER;
    }
    kt_name_match_free(&nccl);
}

/* A record for each event with a role, in event order (role has room for
 * a multiple of 8 events, zeros past the last).                          */
static bool make_records(op_build *b, kt_op_map *m)
{
    m->ops = kt_alloc_written(b->nrec * sizeof *m->ops);
    if (!m->ops) return false;
    for (uint32_t base = 0; base < b->r->ev.n; base += 8) {
        uint64_t word;
        memcpy(&word, b->role + base, sizeof word);
        for (uint32_t ev = base; word && ev < base + 8; ev++) { /* most events have no role */
            if (!b->role[ev]) continue;
            b->slot[ev] = (uint32_t)m->n;
            int8_t family = b->role[ev] & KT_OPK_MODELLED ? b->family[ev] : -1;
            m->ops[m->n++] = (kt_op_rec){ .ev = ev, .role = b->role[ev], .family = family };
        }
    }
    return true;
}

/* Each launcher's outermost modelled ancestor (or itself) is UNIFIED. */
static void mark_unified(const op_build *b, kt_op_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        if (!(m->ops[i].role & KT_OPK_LAUNCHER)) continue;
        uint32_t top = m->ops[i].ev;
        for (uint32_t a = top; a != KT_NONE; a = b->parent[a])
            if (b->role[a] & KT_OPK_MODELLED) top = a;
        m->ops[b->slot[top]].role |= KT_OPK_UNIFIED;
    }
}

/* Each record's slice of the event lists, filled; then its busy times. */
static bool fill_events(const op_build *b, kt_op_map *m)
{
    size_t n;
    below *p = list_below(b, &n);
    if (!p || n > UINT32_MAX) { /* op → event pairs past 2^32: too big */
        free(p);
        return false;
    }
    for (size_t k = 0; k < n; k++) m->ops[p[k].rec].nk++;
    for (size_t i = 0; i < m->n; i++) {
        m->ops[i].kfirst = (uint32_t)m->nk;
        m->nk += m->ops[i].nk;
        m->ops[i].nk = 0;
    }
    m->kev = kt_alloc_written(n * sizeof *m->kev);
    m->kdirect = kt_alloc_written(n);
    for (size_t k = 0; m->kev && m->kdirect && k < n; k++) {
        kt_op_rec *o = &m->ops[p[k].rec];
        m->kev[o->kfirst + o->nk] = b->gpu[p[k].i];
        m->kdirect[o->kfirst + o->nk++] = o->ev == b->own[p[k].i];
    }
    free(p);
    if (!m->kev || !m->kdirect) return false;
    for (size_t i = 0; i < m->n; i++) busy_times(b->r, m, &m->ops[i]);
    return true;
}

static void op_build_free(op_build *b)
{
    free(b->role);
    free(b->family);
    free(b->slot);
    free(b->gpu);
    free(b->call);
    free(b->own);
}

kt_status kt_op_map_build(const kt_trace *t, const kt_rank *r, int (*family_of)(void *, uint32_t), void *ctx,
                          kt_op_map *out)
{
    memset(out, 0, sizeof *out);
    kt_status st = kt_index_call_tree(r);
    if (st != KT_OK) return st;
    /* the launch groups list every linked GPU event (after a count per call) */
    size_t n = r->ev.n ? r->ev.n : 1, most = r->idx->launched_len ? r->idx->launched_len : 1;
    op_build b = { .r = r, .parent = r->idx->parent, .role = calloc(n + 8, 1), .family = malloc(n),
                   .slot = malloc(n * sizeof *b.slot), .gpu = malloc(most * sizeof *b.gpu),
                   .call = malloc(most * sizeof *b.call), .own = malloc(most * sizeof *b.own) };
    bool ok = b.role && b.family && b.slot && b.gpu && b.call && b.own && scan_events(&b, family_of, ctx);
    if (ok) mark_launchers(t, &b);
    if (ok) gpu_span(&b, out);
    ok = ok && make_records(&b, out);
    if (ok) mark_unified(&b, out);
    ok = ok && fill_events(&b, out);
    op_build_free(&b);
    if (!ok) kt_op_map_free(out);
    return ok ? KT_OK : KT_ENOMEM;
}

void kt_op_map_free(kt_op_map *m)
{
    free(m->ops);
    free(m->kev);
    free(m->kdirect);
    memset(m, 0, sizeof *m);
}
