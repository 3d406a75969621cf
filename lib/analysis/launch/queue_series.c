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
    c->ts = kt_alloc_written(n * sizeof *c->ts);
    c->delta = kt_alloc_written(n * sizeof *c->delta);
    c->gpu = kt_alloc_written(n * sizeof *c->gpu);
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
        if (k.gpu == KT_NONE || p[i].gpu < k.gpu) k = (kt_queue_early){ k.pairs, p[i].gpu, p[i].call, 0 };
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

/* The order of the changes is built in two arrays, each step reading one
 * and writing the other (copying 4 bytes per change back after each step
 * cost as much as the step).                                              */
typedef struct order {
    uint32_t *ord, *spare;
    uint64_t *keys;
} order;

static void flip(order *o)
{
    uint32_t *t = o->ord;
    o->ord = o->spare;
    o->spare = t;
}

/* The default order's first key: ts, stable over the interleaved changes
 * (see default_changes); o->ord becomes that order.                       */
static bool order_by_ts(const change *c, order *o)
{
    size_t np = c->n / 2;
    for (size_t i = 0; i < c->n; i++) o->keys[i] = kt_radix_key_i64(c->ts[i]);
    if (!kt_radix_sort(o->keys, o->ord, np) || !kt_radix_sort(o->keys + np, o->ord + np, np)) return false;
    merge_halves(o->keys, o->ord, np, o->spare);
    flip(o);
    return true;
}

/* The queues (device, stream) — stream alone under hta — a trace has are
 * few: the changes are grouped by queue in one counting pass, instead of
 * two stable radix sorts over every change, when there are at most
 * FEW_QUEUES of them.                                                    */
#define FEW_QUEUES 64

typedef struct queue_key {
    int32_t pid_col, stream; /* the columns (pid_col 0 under hta) */
    int64_t pid;             /* the device as written: the order */
} queue_key;

/* Queue of GPU event g among q[0..*nq) (tried at last first), added when
 * new; FEW_QUEUES when that would make too many.                          */
static size_t queue_of(const kt_rank *r, uint32_t g, bool hta, queue_key *q, size_t *nq, size_t last)
{
    int32_t pid = hta ? 0 : kt_ev_pid(&r->ev, g), stream = kt_ev_stream(&r->ev, g);
    if (last < *nq && q[last].stream == stream && q[last].pid_col == pid) return last;
    for (size_t i = 0; i < *nq; i++)
        if (q[i].stream == stream && q[i].pid_col == pid) return i;
    if (*nq == FEW_QUEUES) return FEW_QUEUES;
    q[*nq] = (queue_key){ pid, stream, hta ? 0 : kt_event_pid(r, g) };
    return (*nq)++;
}

/* Where each of q[0..nq) goes in (device, stream) order. */
static void rank_queues(const queue_key *q, size_t nq, size_t *rank)
{
    for (size_t i = 0; i < nq; i++) {
        rank[i] = 0;
        for (size_t j = 0; j < nq; j++)
            rank[i] += q[j].pid < q[i].pid || (q[j].pid == q[i].pid && q[j].stream < q[i].stream);
    }
}

/* Change i's point: its GPU event's queue, that queue's length after it. */
static inline kt_step_point point_of(const kt_rank *r, const change *c, size_t i, int32_t len)
{
    uint32_t g = c->gpu[i];
    return (kt_step_point){ .ts = c->ts[i], .ev = g,
                            .key = kt_ev_stream(&r->ev, g), .value = len };
}

/* The points of the changes in ord (time order) grouped by queue, in queue
 * order, each with its queue's running length, when there are at most
 * FEW_QUEUES queues: one pass placing each change in its queue's slots
 * instead of sorting the order by queue and summing it again.  False
 * (pts unset) with more queues or without memory.                        */
static bool points_of_few_queues(const kt_rank *r, const change *c, bool hta, const uint32_t *ord,
                                 kt_step_point *pts)
{
    uint8_t *qid = kt_alloc_written(c->n);
    queue_key q[FEW_QUEUES];
    size_t nq = 0, last = 0, rank[FEW_QUEUES], count[FEW_QUEUES] = { 0 }, at[FEW_QUEUES];
    int32_t len[FEW_QUEUES] = { 0 };
    bool ok = qid != NULL;
    for (size_t k = 0; ok && k < c->n; k++) {
        last = queue_of(r, c->gpu[ord[k]], hta, q, &nq, last);
        ok = last < FEW_QUEUES;
        if (ok) qid[k] = (uint8_t)last, count[last]++;
    }
    if (ok) {
        rank_queues(q, nq, rank);
        for (size_t i = 0; i < nq; i++) at[i] = 0;
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < nq; j++) at[i] += rank[j] < rank[i] ? count[j] : 0;
        for (size_t k = 0; k < c->n; k++) {
            size_t i = ord[k], qk = qid[k];
            len[qk] += c->delta[i];
            pts[at[qk]++] = point_of(r, c, i, len[qk]);
        }
    }
    free(qid);
    return ok;
}

static bool same_queue(const kt_events *e, uint32_t g1, uint32_t g2, bool hta)
{
    return kt_ev_stream(e, g1) == kt_ev_stream(e, g2) && (hta || kt_ev_pid(e, g1) == kt_ev_pid(e, g2));
}

/* The same for any number of queues: the order sorted by queue (stable
 * radix sorts by stream, then, default, by device), then summed.         */
static bool points_by_radix(const kt_rank *r, const change *c, bool hta, order *o, kt_step_point *pts)
{
    const kt_events *e = &r->ev;
    for (size_t i = 0; i < c->n; i++) o->keys[i] = kt_radix_key_i64(kt_ev_stream(e, c->gpu[o->ord[i]]));
    bool ok = kt_radix_sort(o->keys, o->ord, c->n);
    for (size_t i = 0; ok && !hta && i < c->n; i++)
        o->keys[i] = kt_radix_key_i64(kt_event_pid(r, c->gpu[o->ord[i]]));
    if (!ok || (!hta && !kt_radix_sort(o->keys, o->ord, c->n))) return false;
    int32_t len = 0;
    for (size_t k = 0; k < c->n; k++) {
        size_t i = o->ord[k];
        if (k == 0 || !same_queue(e, c->gpu[i], c->gpu[o->ord[k - 1]], hta)) len = 0;
        len += c->delta[i];
        pts[k] = point_of(r, c, i, len);
    }
    return true;
}

/* One point per change in the order of the changes — HTA: numpy quicksort
 * by ts, then a stable group by stream; default: stable by (device,
 * stream, ts) — with its queue's running length; false without memory.  */
static bool change_points(const kt_rank *r, const change *c, bool hta, kt_step_point *pts)
{
    order o = { kt_alloc_written(c->n * sizeof *o.ord), kt_alloc_written(c->n * sizeof *o.spare),
                kt_alloc_written(c->n * sizeof *o.keys) };
    bool ok = o.ord && o.spare && o.keys;
    for (size_t i = 0; ok && i < c->n; i++) o.ord[i] = (uint32_t)i;
    if (ok && hta) kt_np_argsort_i64(c->ts, o.ord, c->n);
    if (ok && !hta) ok = order_by_ts(c, &o);
    ok = ok && (points_of_few_queues(r, c, hta, o.ord, pts) || points_by_radix(r, c, hta, &o, pts));
    free(o.ord);
    free(o.spare);
    free(o.keys);
    return ok;
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
    kt_step_point *pts = ok ? kt_alloc_written(c.n * sizeof *pts) : NULL;
    if (early) early->changes = c.n;
    if (pts && change_points(r, &c, hta_compat, pts)) {
        *n = hta_compat ? c.n : kt_merge_steps(r, pts, c.n);
        *out = pts;
    } else {
        free(pts);
        pts = NULL;
    }
    change_free(&c);
    free(p);
    return pts ? KT_OK : KT_ENOMEM;
}
