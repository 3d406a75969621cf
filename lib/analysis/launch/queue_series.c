/*
 * queue_series.c — see queue_series.h.
 */
#include "analysis/launch/queue_series.h"
#include "analysis/common/launch_pairs.h"
#include "analysis/common/np_sort.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

/* One +1/−1 change, before sorting. */
typedef struct change {
    int64_t *ts;
    int32_t *delta;
    uint32_t *gpu; /* the GPU event giving pid/tid/stream */
    size_t n;
} change;

static bool change_alloc(change *c, size_t n)
{
    c->ts = malloc((n ? n : 1) * sizeof *c->ts);
    c->delta = malloc((n ? n : 1) * sizeof *c->delta);
    c->gpu = malloc((n ? n : 1) * sizeof *c->gpu);
    c->n = 0;
    return c->ts && c->delta && c->gpu;
}

static void change_free(change *c)
{
    free(c->ts);
    free(c->delta);
    free(c->gpu);
}

static void add_change(change *c, int64_t ts, int32_t delta, uint32_t gpu)
{
    c->ts[c->n] = ts;
    c->delta[c->n] = delta;
    c->gpu[c->n++] = gpu;
}

/* HTA: launches (+1, one per joined GPU row) then the distinct GPU rows
 * (−1) in file order — the concat HTA sorts.                               */
static bool hta_changes(const kt_events *e, const kt_launch_pair *p, size_t np, change *c)
{
    if (!change_alloc(c, 2 * np)) return false;
    for (size_t i = 0; i < np; i++) add_change(c, e->ts[p[i].call], 1, p[i].gpu);
    uint32_t *g = malloc((np ? np : 1) * sizeof *g);
    if (!g) return false;
    for (size_t i = 0; i < np; i++) g[i] = p[i].gpu;
    uint64_t *keys = malloc((np ? np : 1) * sizeof *keys);
    bool ok = keys != NULL;
    for (size_t i = 0; ok && i < np; i++) keys[i] = g[i];
    ok = ok && kt_radix_sort(keys, g, np);
    for (size_t i = 0; ok && i < np; i++)
        if (i == 0 || g[i] != g[i - 1]) add_change(c, e->ts[g[i]], -1, g[i]);
    free(keys);
    free(g);
    return ok;
}

/* A GPU event cannot start before it was enqueued: one that the trace
 * puts before its launch call leaves the queue when the call starts.
 * The +1s come first, then the −1s, each in pair order: calls and GPU
 * events come nearly in time order, so each half is a few ascending runs
 * of ts (order_changes merges them), where interleaving them was not.    */
static bool default_changes(const kt_events *e, const kt_launch_pair *p, size_t np, change *c)
{
    if (!change_alloc(c, 2 * np)) return false;
    for (size_t i = 0; i < np; i++) add_change(c, e->ts[p[i].call], 1, p[i].gpu);
    for (size_t i = 0; i < np; i++) {
        int64_t call = e->ts[p[i].call], gpu = e->ts[p[i].gpu];
        add_change(c, gpu < call ? call : gpu, -1, p[i].gpu);
    }
    return true;
}

static kt_queue_early find_early(const kt_events *e, const kt_launch_pair *p, size_t np)
{
    kt_queue_early k = { .gpu = KT_NONE, .call = KT_NONE };
    for (size_t i = 0; i < np; i++) {
        if (e->ts[p[i].gpu] >= e->ts[p[i].call]) continue;
        k.pairs++;
        if (k.gpu == KT_NONE || p[i].gpu < k.gpu) k = (kt_queue_early){ k.pairs, p[i].gpu, p[i].call };
    }
    return k;
}

/* Stable merge of the +1s ord[0..np) and the −1s ord[np..2np), each in
 * ts order (keys alongside), into out: equal times keep the order of the
 * interleaved changes (pair i's +1, then its −1, then pair i+1's).      */
static void merge_halves(const uint64_t *keys, const uint32_t *ord, size_t np, uint32_t *out)
{
    size_t i = 0, j = np, o = 0;
    while (i < np && j < 2 * np) {
        bool minus_first = keys[j] < keys[i] || (keys[j] == keys[i] && ord[j] - np < ord[i]);
        out[o++] = minus_first ? ord[j++] : ord[i++];
    }
    while (i < np) out[o++] = ord[i++];
    while (j < 2 * np) out[o++] = ord[j++];
}

/* The default order's first key: ts, stable over the interleaved changes
 * (see default_changes); ord becomes that order.                          */
static bool order_by_ts(const change *c, uint32_t *ord, uint64_t *keys)
{
    size_t np = c->n / 2;
    uint32_t *merged = malloc((c->n ? c->n : 1) * sizeof *merged);
    if (!merged) return false;
    for (size_t i = 0; i < c->n; i++) keys[i] = kt_radix_key_i64(c->ts[i]);
    bool ok = kt_radix_sort(keys, ord, np) && kt_radix_sort(keys + np, ord + np, np);
    if (ok) {
        merge_halves(keys, ord, np, merged);
        memcpy(ord, merged, c->n * sizeof *ord);
    }
    free(merged);
    return ok;
}

/* Order of the changes: HTA = numpy quicksort by ts, then a stable group by
 * stream; default = stable by (device, stream, ts).                        */
static uint32_t *order_changes(const kt_rank *r, const change *c, bool hta)
{
    const kt_events *e = &r->ev;
    uint32_t *ord = malloc((c->n ? c->n : 1) * sizeof *ord);
    uint64_t *keys = malloc((c->n ? c->n : 1) * sizeof *keys);
    bool ok = ord && keys;
    for (size_t i = 0; ok && i < c->n; i++) ord[i] = (uint32_t)i;
    if (ok && hta) kt_np_argsort_i64(c->ts, ord, c->n);
    if (ok && !hta) ok = order_by_ts(c, ord, keys);
    for (size_t i = 0; ok && i < c->n; i++) keys[i] = kt_radix_key_i64(e->stream[c->gpu[ord[i]]]);
    ok = ok && kt_radix_sort(keys, ord, c->n);
    for (size_t i = 0; ok && !hta && i < c->n; i++) keys[i] = kt_radix_key_i64(kt_event_pid(r, c->gpu[ord[i]]));
    ok = ok && (hta || kt_radix_sort(keys, ord, c->n));
    free(keys);
    if (!ok) {
        free(ord);
        return NULL;
    }
    return ord;
}

static bool same_queue(const kt_events *e, uint32_t g1, uint32_t g2, bool hta)
{
    return e->stream[g1] == e->stream[g2] && (hta || e->pid[g1] == e->pid[g2]);
}

/* Running sums per queue, one point per change. */
static size_t accumulate(const kt_rank *r, const change *c, const uint32_t *ord, bool hta,
                         kt_step_point *out)
{
    const kt_events *e = &r->ev;
    int32_t len = 0;
    for (size_t k = 0; k < c->n; k++) {
        size_t i = ord[k];
        uint32_t g = c->gpu[i];
        if (k == 0 || !same_queue(e, g, c->gpu[ord[k - 1]], hta)) len = 0;
        len += c->delta[i];
        out[k] = (kt_step_point){ .ts = c->ts[i], .pid = kt_event_pid(r, g), .tid = kt_event_tid(r, g),
                                  .key = e->stream[g], .value = len };
    }
    return c->n;
}

kt_status kt_queue_series(const kt_rank *r, const kt_strtab *strs, bool hta_compat,
                          kt_step_point **out, size_t *n, kt_queue_early *early)
{
    *out = NULL;
    *n = 0;
    kt_launch_pair *p;
    size_t np;
    kt_status s = kt_launch_pairs(r, strs, hta_compat ? KT_PAIRS_HTA_QUEUE : KT_PAIRS_ALL_LAUNCHES,
                                  &p, &np);
    if (s != KT_OK) return s;
    if (early) *early = find_early(&r->ev, p, np);
    change c = { 0 };
    bool ok = hta_compat ? hta_changes(&r->ev, p, np, &c) : default_changes(&r->ev, p, np, &c);
    uint32_t *ord = ok ? order_changes(r, &c, hta_compat) : NULL;
    kt_step_point *pts = ord ? malloc((c.n ? c.n : 1) * sizeof *pts) : NULL;
    if (pts) {
        *n = accumulate(r, &c, ord, hta_compat, pts);
        if (!hta_compat) *n = kt_merge_steps(pts, *n);
        *out = pts;
    }
    free(ord);
    change_free(&c);
    free(p);
    return pts ? KT_OK : KT_ENOMEM;
}
