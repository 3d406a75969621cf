/*
 * op_kernels.c — kernel launchers, modelled ops and their GPU events for
 * one rank (op_kernels.h).
 *
 * A pass over the events finds each GPU event's launch call and launcher
 * (kept in a list of the linked GPU events) and marks the ops that get a
 * record; then walks up the call tree from each listed event's launch
 * call hand the event to every marked op on the way (counted first, then
 * filled, so the lists are one array).
 */
#include "analysis/perf/op_kernels.h"
#include "analysis/common/name_match.h"
#include "model/index.h"

#include <stdlib.h>
#include <string.h>

/* TraceLens's tree holds cpu_op, runtime and driver events only. */
static bool in_tl_tree(uint8_t k) { return k == KT_K_CPU_OP || k == KT_K_RUNTIME || k == KT_K_DRIVER; }

static uint32_t tl_parent(const kt_rank *r, uint32_t ev)
{
    uint32_t p = r->idx->parent[ev];
    while (p != KT_NONE && !in_tl_tree(r->ev.kind[p])) p = r->idx->parent[p];
    return p;
}

/* The op whose own GPU event gpu_ev is (launched by call rt), or KT_NONE:
 * the cpu_op right above the call, else the call itself.  nccl: kernel
 * names with "nccl" in them (a strstr per kernel was a twentieth of kineta
 * perf on top of the load).                                               */
static uint32_t direct_launcher(const kt_rank *r, uint32_t rt, uint32_t gpu_ev, kt_name_match *nccl)
{
    uint32_t p = tl_parent(r, rt);
    bool is_nccl = kt_name_contains(nccl, r->ev.name[gpu_ev]);
    if (p != KT_NONE && r->ev.kind[p] == KT_K_CPU_OP) return is_nccl ? KT_NONE : p;
    const uint32_t *evs;
    if (is_nccl && kt_launched_events(r, rt, &evs) == 1) return KT_NONE;
    return rt;
}

typedef struct kitem {
    int64_t ts;
    uint32_t ev;
    uint8_t direct;
} kitem;

static int by_ts(const void *a, const void *b)
{
    const kitem *x = a, *y = b;
    if (x->ts != y->ts) return (x->ts > y->ts) - (x->ts < y->ts);
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Busy µs of the (start-sorted) events: the union's length, in doubles. */
static double busy(const kt_rank *r, const kitem *k, size_t n, bool direct_only)
{
    double total = 0, start = 0, end = 0;
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (direct_only && !k[i].direct) continue;
        int64_t d = r->ev.dur[k[i].ev] > 0 ? r->ev.dur[k[i].ev] : 0;
        double s = (double)k[i].ts / 1e3, e = s + (double)d / 1e3; /* = the file's decimals as doubles */
        if (m++ && s <= end) {
            end = e > end ? e : end;
            continue;
        }
        if (m > 1) total += end - start;
        start = s;
        end = e;
    }
    if (m) total += end - start;
    return total;
}

/* Sort each op's events by time and take the two busy times. */
static bool finish_ops(const kt_rank *r, kt_op_map *m)
{
    size_t most = 0;
    for (size_t i = 0; i < m->n; i++) most = m->ops[i].nk > most ? m->ops[i].nk : most;
    kitem *k = malloc((most ? most : 1) * sizeof *k);
    if (!k) return false;
    for (size_t i = 0; i < m->n; i++) {
        kt_op_rec *o = &m->ops[i];
        for (uint32_t j = 0; j < o->nk; j++) {
            uint32_t ev = m->kev[o->kfirst + j];
            k[j] = (kitem){ r->ev.ts[ev], ev, m->kdirect[o->kfirst + j] };
        }
        qsort(k, o->nk, sizeof *k, by_ts);
        for (uint32_t j = 0; j < o->nk; j++) {
            m->kev[o->kfirst + j] = k[j].ev;
            m->kdirect[o->kfirst + j] = k[j].direct;
        }
        o->subtree_us = busy(r, k, o->nk, false);
        o->direct_us = busy(r, k, o->nk, true);
    }
    free(k);
    return true;
}

/* A GPU event with its launch call and the op it is the own event of. */
typedef struct linked {
    uint32_t ev, rt, own;
} linked;

/* Hand every linked GPU event to each op record above its launch call:
 * fill == false counts, fill == true writes.                             */
static void walk_events(const kt_rank *r, const linked *gpu, size_t ngpu, const uint32_t *slot, kt_op_map *m,
                        bool fill)
{
    for (size_t i = 0; i < ngpu; i++)
        for (uint32_t a = gpu[i].rt; a != KT_NONE; a = r->idx->parent[a]) {
            if (slot[a] == KT_NONE) continue;
            kt_op_rec *o = &m->ops[slot[a]];
            if (fill) {
                m->kev[o->kfirst + o->nk] = gpu[i].ev;
                m->kdirect[o->kfirst + o->nk] = a == gpu[i].own;
            }
            o->nk++;
        }
}

/* Each event's role and family; the GPU events with a launch call into
 * gpu[] (room for every GPU event), their count into *ngpu.             */
static uint8_t *mark_roles(const kt_trace *t, const kt_rank *r, int (*family_of)(void *, uint32_t), void *ctx,
                           int8_t *family, linked *gpu, size_t *ngpu)
{
    uint8_t *role = calloc(r->ev.n ? r->ev.n : 1, 1);
    if (!role) return NULL;
    kt_name_match nccl;
    kt_name_match_init(&nccl, t->strs, "nccl");
    *ngpu = 0;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        family[ev] = -1;
        uint8_t k = r->ev.kind[ev];
        if (k == KT_K_CPU_OP && r->ev.name[ev] != KT_NONE) {
            int f = family_of(ctx, r->ev.name[ev]);
            if (f >= 0) {
                family[ev] = (int8_t)f;
                role[ev] |= KT_OPK_MODELLED;
            }
        }
        if (!kt_kind_is_gpu(k)) continue;
        uint32_t rt = kt_gpu_launcher(r, ev);
        if (rt == KT_NONE) continue;
        uint32_t own = direct_launcher(r, rt, ev, &nccl);
        if (own != KT_NONE) role[own] |= KT_OPK_LAUNCHER;
        gpu[(*ngpu)++] = (linked){ ev, rt, own };
    }
    kt_name_match_free(&nccl);
    return role;
}

static void mark_unified(const kt_rank *r, uint8_t *role)
{
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        if (!(role[ev] & KT_OPK_LAUNCHER)) continue;
        uint32_t top = ev;
        for (uint32_t a = ev; a != KT_NONE; a = r->idx->parent[a])
            if (role[a] & KT_OPK_MODELLED) top = a;
        role[top] |= KT_OPK_UNIFIED;
    }
}

kt_status kt_op_map_build(const kt_trace *t, const kt_rank *r, int (*family_of)(void *, uint32_t), void *ctx,
                          kt_op_map *out)
{
    memset(out, 0, sizeof *out);
    kt_status st = kt_index_call_tree(r);
    if (st != KT_OK) return st;
    size_t n = r->ev.n ? r->ev.n : 1, ngpu = 0;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) ngpu += kt_kind_is_gpu(r->ev.kind[ev]);
    int8_t *family = malloc(n);
    uint32_t *slot = malloc(n * sizeof *slot);
    linked *gpu = malloc((ngpu ? ngpu : 1) * sizeof *gpu);
    uint8_t *role = family && gpu ? mark_roles(t, r, family_of, ctx, family, gpu, &ngpu) : NULL;
    st = KT_ENOMEM;
    if (!role || !slot) goto done;
    mark_unified(r, role);
    size_t nops = 0;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) nops += role[ev] != 0;
    out->ops = calloc(nops ? nops : 1, sizeof *out->ops);
    if (!out->ops) goto done;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        slot[ev] = KT_NONE;
        if (!role[ev]) continue;
        slot[ev] = (uint32_t)out->n;
        out->ops[out->n++] = (kt_op_rec){ .ev = ev, .role = role[ev], .family = family[ev] };
    }
    walk_events(r, gpu, ngpu, slot, out, false);
    for (size_t i = 0; i < out->n; i++) {
        if (out->nk + out->ops[i].nk > UINT32_MAX) goto done; /* op → event pairs past 2^32: too big */
        out->ops[i].kfirst = (uint32_t)out->nk;
        out->nk += out->ops[i].nk;
        out->ops[i].nk = 0;
    }
    out->kev = malloc((out->nk ? out->nk : 1) * sizeof *out->kev);
    out->kdirect = malloc(out->nk ? out->nk : 1);
    if (!out->kev || !out->kdirect) goto done;
    walk_events(r, gpu, ngpu, slot, out, true);
    st = finish_ops(r, out) ? KT_OK : KT_ENOMEM;
done:
    free(family);
    free(slot);
    free(gpu);
    free(role);
    if (st != KT_OK) kt_op_map_free(out);
    return st;
}

void kt_op_map_free(kt_op_map *m)
{
    free(m->ops);
    free(m->kev);
    free(m->kdirect);
    memset(m, 0, sizeof *m);
}
