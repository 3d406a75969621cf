/*
 * perf_coverage.c — the share of GPU time `kineta perf` models
 * (perf_coverage.h).
 *
 * Records come from the op map: an outermost modelled op owns every GPU
 * event below it, a launcher outside any modelled op its own events.
 * Events no record owns (NCCL kernels, whose launcher TraceLens drops;
 * events without a launch link) are named as the kernel tables name
 * their launcher, so the list adds up to the whole GPU time.
 */
#include "analysis/perf/perf_coverage.h"

#include "analysis/common/kernel_launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double dur_us(const kt_rank *r, uint32_t ev)
{
    return (double)(r->ev.dur[ev] > 0 ? r->ev.dur[ev] : 0) / 1e3;
}

static bool add_unmodelled(kt_perf_cover *cv, const char *op, const char *reason, double us)
{
    size_t len = strlen(op) + strlen(reason) + 2;
    char *key = malloc(len);
    if (!key) return false;
    snprintf(key, len, "%s\x1f%s", op, reason);
    bool created;
    kt_pgroup *g = kt_pgroups_get(&cv->unmodelled, key, &created);
    free(key);
    if (!g) return false;
    g->subtree_sum_us += us;
    return kt_pgroup_add_call(g, us, 0);
}

/* Σ durations of o's GPU events (direct_only: its own), marked owned. */
static double own_events(kt_perf_cover_pass *p, const kt_op_rec *o, bool direct_only)
{
    double us = 0;
    for (uint32_t j = 0; j < o->nk; j++) {
        uint32_t k = p->m->kev[o->kfirst + j];
        if ((direct_only && !p->m->kdirect[o->kfirst + j]) || (p->owned[k / 8] >> (k % 8) & 1)) continue;
        p->owned[k / 8] |= (uint8_t)(1u << (k % 8));
        us += dur_us(p->r, k);
    }
    return us;
}

bool kt_perf_cover_op(kt_perf_cover_pass *p, const kt_op_rec *o, const char *name, bool modelled, const char *why)
{
    if (!(o->role & KT_OPK_UNIFIED)) return true; /* counted with the op it is under */
    if (!(o->role & KT_OPK_MODELLED)) return add_unmodelled(p->cv, name, "no model for this op", own_events(p, o, true));
    double us = own_events(p, o, false);
    if (modelled) {
        p->cv->modelled_us += us;
        return true;
    }
    char reason[200];
    snprintf(reason, sizeof reason, "shapes do not fit its model%s%s", why && *why ? ": " : "", why ? why : "");
    return add_unmodelled(p->cv, name, reason, us);
}

bool kt_perf_cover_rest(kt_perf_cover_pass *p)
{
    const kt_rank *r = p->r;
    kt_launch_memo memo = { KT_NONE, false };
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        if (!kt_kind_is_gpu(r->ev.kind[ev])) continue;
        double us = dur_us(r, ev);
        p->cv->gpu_us += us;
        if (p->owned[ev / 8] >> (ev % 8) & 1) continue;
        uint64_t key = kt_launcher_key(p->t, r, ev, &memo);
        const char *reason = kt_launcher_kind(key) == KT_LAUNCH_UNLINKED ? "no launch call found"
                             : kt_launcher_kind(key) == KT_LAUNCH_GRAPH ? "graph launch: no op per kernel"
                                                                         : "no model for this op";
        if (!add_unmodelled(p->cv, kt_launcher_label(p->t, key), reason, us)) return false;
    }
    return true;
}

bool kt_perf_cover_merge(kt_perf_cover *dst, kt_perf_cover *src)
{
    dst->gpu_us += src->gpu_us;
    dst->modelled_us += src->modelled_us;
    src->gpu_us = src->modelled_us = 0;
    return kt_pgroups_merge(&dst->unmodelled, &src->unmodelled);
}

void kt_perf_cover_free(kt_perf_cover *cv)
{
    kt_pgroups_free(&cv->unmodelled);
    memset(cv, 0, sizeof *cv);
}
