/*
 * peak_ops.c — see peak_ops.h.  Frees are matched to allocations by
 * address (the allocator reuses addresses, so a later allocation at the
 * same address replaces the freed one); the op of an allocation is found
 * from the call tree: the last op on the thread that started at or before
 * the allocation, then up its parents to the first cpu_op still open.
 */
#include "analysis/memory/peak_ops.h"
#include "analysis/kernels/kernel_stats.h"
#include "model/i64map.h"
#include "model/index.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

typedef struct thread_op {
    uint64_t key;  /* (pid, tid) */
    int64_t ts;
    uint32_t ev;
} thread_op;

/* Innermost cpu_op of ops[0..n) (sorted) open at (key, ts), or KT_NONE. */
static uint32_t op_at(const kt_rank *r, const thread_op *ops, size_t n, uint64_t key, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ops[mid].key < key || (ops[mid].key == key && ops[mid].ts <= ts)) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0 || ops[lo - 1].key != key) return KT_NONE;
    const kt_events *e = &r->ev;
    for (uint32_t p = ops[lo - 1].ev; p != KT_NONE; p = r->idx->parent[p])
        if (e->kind[p] == KT_K_CPU_OP && e->ts[p] <= ts && e->ts[p] + e->dur[p] >= ts) return p;
    return KT_NONE;
}

struct kt_thread_ops {
    thread_op *op;
    size_t n;
};

/* A cpu_op a lookup can start from: one starting by the horizon. */
static bool usable_op(const kt_events *e, uint32_t i, int64_t horizon)
{
    return e->kind[i] == KT_K_CPU_OP && e->ph[i] == 'X' && e->ts[i] <= horizon;
}

/* The usable ops in file order, in one scan (the array grows). */
static thread_op *gather_ops(const kt_events *e, int64_t horizon, size_t *k)
{
    size_t cap = 0;
    thread_op *ops = NULL;
    *k = 0;
    if (!kt_grow((void **)&ops, &cap, 1, sizeof *ops)) return NULL; /* a list even when empty */
    for (uint32_t i = 0, n = e->n; i < n; i++) { /* n read once: a store to ops may alias e->n */
        if (!usable_op(e, i, horizon)) continue;
        if (!kt_grow((void **)&ops, &cap, *k + 1, sizeof *ops)) {
            free(ops);
            return NULL;
        }
        ops[(*k)++] = (thread_op){ kt_ev_thread_key(e, i), e->ts[i], i };
    }
    return ops;
}

kt_thread_ops *kt_thread_ops_new(const kt_rank *r, int64_t horizon)
{
    if (kt_index_call_tree(r) != KT_OK) return NULL;
    size_t k;
    thread_op *ops = gather_ops(&r->ev, horizon, &k);
    kt_thread_ops *t = malloc(sizeof *t);
    uint64_t *key = malloc((k ? k : 1) * sizeof *key), *ts = malloc((k ? k : 1) * sizeof *ts);
    bool ok = ops && t && key && ts;
    for (size_t i = 0; ok && i < k; i++) key[i] = ops[i].key, ts[i] = kt_radix_key_i64(ops[i].ts);
    /* by thread, then time; events in file order where both are equal */
    ok = ok && kt_radix_sort_records(ops, sizeof *ops, k, key, ts);
    free(key);
    free(ts);
    if (!ok) {
        free(ops);
        free(t);
        return NULL;
    }
    *t = (kt_thread_ops){ ops, k };
    return t;
}

void kt_thread_ops_free(kt_thread_ops *t)
{
    if (!t) return;
    free(t->op);
    free(t);
}

/* Replay allocations and frees up to the peak: addr → live event index. */
static bool live_at(const kt_mem_device *d, size_t peak, kt_i64map *live)
{
    if (!kt_i64map_init(live, peak + 1)) return false;
    for (size_t i = 0; i <= peak && i < d->n; i++) {
        const kt_mem_event *m = &d->e[i];
        if (m->bytes > 0) *kt_i64map_slot(live, m->addr, KT_NONE) = (uint32_t)i;
        else if (m->bytes < 0 && kt_i64map_get(live, m->addr, KT_NONE) != KT_NONE)
            *kt_i64map_slot(live, m->addr, KT_NONE) = KT_NONE;
    }
    return true;
}

static int by_bytes_desc(const void *a, const void *b)
{
    const kt_peak_op *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return (x->op > y->op) - (x->op < y->op);
}

static bool add_bytes(kt_peak_op **v, size_t *n, size_t *cap, uint32_t op, int64_t bytes)
{
    size_t i = 0;
    while (i < *n && (*v)[i].op != op) i++;
    if (i == *n) {
        if (*n == *cap) {
            size_t c = *cap ? 2 * *cap : 32;
            kt_peak_op *p = realloc(*v, c * sizeof *p);
            if (!p) return false;
            *v = p;
            *cap = c;
        }
        (*v)[(*n)++] = (kt_peak_op){ op, 0, 0 };
    }
    (*v)[i].bytes += bytes;
    (*v)[i].allocations++;
    return true;
}

kt_status kt_peak_ops(const kt_rank *r, const kt_thread_ops *ops, const kt_mem_device *d, size_t peak,
                      kt_peak_op **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    kt_i64map live = { 0 };
    bool ok = live_at(d, peak, &live);
    for (size_t s = 0; ok && s <= live.mask; s++) {
        if (live.key[s] == INT64_MIN || live.val[s] == KT_NONE) continue;
        const kt_mem_event *m = &d->e[live.val[s]];
        uint32_t op = op_at(r, ops->op, ops->n, kt_ev_thread_key(&r->ev, m->ev), m->ts);
        ok = add_bytes(out, n, &cap, op == KT_NONE ? KT_NONE : r->ev.name[op], m->bytes);
    }
    if (ok && *n) qsort(*out, *n, sizeof **out, by_bytes_desc);
    kt_i64map_free(&live);
    if (!ok) { free(*out); *out = NULL; *n = 0; }
    return ok ? KT_OK : KT_ENOMEM;
}
