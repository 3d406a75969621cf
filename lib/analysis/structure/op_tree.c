/*
 * op_tree.c — see op_tree.h.
 */
#include "analysis/structure/op_tree.h"
#include "analysis/structure/hta_nesting.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

static int64_t clamped_dur(const kt_events *e, uint32_t i)
{
    return e->dur[i] > 0 ? e->dur[i] : 0;
}

/* HTA's CPU side: complete events without a stream (stream == -1 and no
 * stream too large for the column).  Ours: CPU kinds only, whatever the
 * stream arg says (AMD runtime calls write "stream": "0x0").            */
static bool is_member(const kt_rank *r, uint32_t i, bool compat)
{
    const kt_events *e = &r->ev;
    if (e->ph[i] != 'X') return false;
    uint8_t k = e->kind[i];
    if (compat)
        return kt_ev_stream(e, i) == -1 && !kt_kind_is_gpu(k) && !kt_event_arg(r, i, KT_ARG_RAW_STREAM) &&
               k != KT_K_TRACE_SPAN;
    return k == KT_K_CPU_OP || k == KT_K_USER_ANNOTATION || k == KT_K_PYTHON_FUNCTION ||
           k == KT_K_RUNTIME || k == KT_K_DRIVER;
}

/* ---- members by (thread, ts, longer first, file order) -------------------
 * Threads are few and Kineto writes each thread nearly in time order: a
 * counting sort groups the members by thread (dense thread numbers from a
 * small hash), and only a thread found out of order is sorted (two stable
 * radix passes), instead of three radix passes over every member.        */

typedef struct thread_ids {
    uint64_t *key;
    uint32_t *id;
    size_t mask, n;
} thread_ids;

static bool thread_ids_init(thread_ids *th)
{
    th->mask = 63;
    th->n = 0;
    th->key = malloc((th->mask + 1) * sizeof *th->key);
    th->id = malloc((th->mask + 1) * sizeof *th->id);
    if (th->id) memset(th->id, 0xff, (th->mask + 1) * sizeof *th->id);
    return th->key && th->id;
}

static bool thread_ids_grow(thread_ids *th);

/* Dense number of a thread key (KT_NONE on allocation failure). */
static uint32_t thread_id(thread_ids *th, uint64_t key)
{
    if ((th->n + 1) * 2 > th->mask + 1 && !thread_ids_grow(th)) return KT_NONE;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & th->mask;
    while (th->id[h] != KT_NONE && th->key[h] != key) h = (h + 1) & th->mask;
    if (th->id[h] == KT_NONE) {
        th->key[h] = key;
        th->id[h] = (uint32_t)th->n++;
    }
    return th->id[h];
}

static bool thread_ids_grow(thread_ids *th)
{
    thread_ids big = { .mask = th->mask * 2 + 1 };
    big.key = malloc((big.mask + 1) * sizeof *big.key);
    big.id = malloc((big.mask + 1) * sizeof *big.id);
    bool ok = big.key && big.id;
    if (ok) {
        memset(big.id, 0xff, (big.mask + 1) * sizeof *big.id);
        for (size_t i = 0; i <= th->mask; i++) {
            if (th->id[i] == KT_NONE) continue;
            size_t h = (size_t)((th->key[i] * 0x9E3779B97F4A7C15ull) >> 32) & big.mask;
            while (big.id[h] != KT_NONE) h = (h + 1) & big.mask;
            big.key[h] = th->key[i];
            big.id[h] = th->id[i];
        }
        big.n = th->n;
        free(th->key);
        free(th->id);
        *th = big;
    } else {
        free(big.key);
        free(big.id);
    }
    return ok;
}

static bool in_order(const kt_events *e, uint32_t a, uint32_t b)
{
    if (e->ts[a] != e->ts[b]) return e->ts[a] < e->ts[b];
    int64_t da = clamped_dur(e, a), db = clamped_dur(e, b);
    return da != db ? da > db : a < b;
}

/* Sort one thread's run (file order) by ts, longer first, file order.  A
 * thread's events come nearly in start order, so they are ordered by ts
 * with the sort that merges ascending runs (stable: file order at equal
 * ts), and only the groups of equal ts are then ordered by duration; two
 * radix sorts of the whole run (by duration, then by ts) were 20 % of
 * `patterns` on the synthetic trace.                                     */
static bool sort_run(const kt_events *e, uint32_t *ids, size_t n)
{
    size_t i = 1;
    while (i < n && in_order(e, ids[i - 1], ids[i])) i++;
    if (i >= n) return true;
    if (!kt_sort_ids_by_i64(ids, n, e->ts)) return false;
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && e->ts[ids[b]] == e->ts[ids[a]]; b++) {}
        if (b - a > 1 && !kt_sort_ids_longer_first(ids + a, b - a, e->dur, true)) return false;
    }
    return true;
}

static bool sort_members(const kt_events *e, uint32_t *ids, size_t n)
{
    thread_ids th;
    uint32_t *tid = kt_alloc_written(n * sizeof *tid), *out = kt_alloc_written(n * sizeof *out);
    bool ok = thread_ids_init(&th) && tid && out;
    uint64_t last = 0;
    uint32_t last_id = KT_NONE;
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t key = kt_ev_thread_key(e, ids[i]);
        if (last_id == KT_NONE || key != last) last_id = thread_id(&th, key);
        last = key;
        tid[i] = last_id;
        ok = last_id != KT_NONE;
    }
    size_t *start = ok ? calloc(th.n + 1, sizeof *start) : NULL;
    ok = ok && start;
    for (size_t i = 0; ok && i < n; i++) start[tid[i] + 1]++;
    for (size_t k = 0; ok && k < th.n; k++) start[k + 1] += start[k];
    for (size_t i = 0; ok && i < n; i++) out[start[tid[i]]++] = ids[i];
    if (ok) memcpy(ids, out, n * sizeof *ids);
    for (size_t k = 0, from = 0; ok && k < th.n; k++) { /* start[k] is now thread k's end */
        ok = sort_run(e, ids + from, start[k] - from);
        from = start[k];
    }
    free(start);
    free(tid);
    free(out);
    free(th.key);
    free(th.id);
    return ok;
}

/* Does the open event `top` end before `ev` starts (HTA's endpoint order:
 * a close at the open's instant comes first, except between two
 * zero-length events at the same instant, which nest)?                  */
static bool closes_before(const kt_events *e, uint32_t top, uint32_t ev)
{
    int64_t end = e->ts[top] + clamped_dur(e, top);
    if (end != e->ts[ev]) return end < e->ts[ev];
    return !(clamped_dur(e, top) == 0 && clamped_dur(e, ev) == 0);
}

/* One stack sweep per thread (members are grouped by thread): parents. */
static bool link_parents(kt_op_tree *tr)
{
    const kt_events *e = &tr->r->ev;
    uint32_t *stack = malloc((tr->n ? tr->n : 1) * sizeof *stack);
    if (!stack) return false;
    size_t sp = 0;
    for (size_t k = 0; k < tr->n; k++) {
        uint32_t ev = tr->node[k];
        if (k > 0 && kt_ev_thread_key(e, tr->node[k - 1]) != kt_ev_thread_key(e, ev)) sp = 0;
        while (sp > 0 && closes_before(e, tr->node[stack[sp - 1]], ev)) sp--;
        tr->parent[k] = sp ? stack[sp - 1] : KT_NONE;
        stack[sp++] = (uint32_t)k;
    }
    free(stack);
    return true;
}

/* ---- HTA's main/backward stack linking (compat only) -------------------- */

static bool name_has(const kt_strtab *strs, uint32_t name, const char *needle, bool prefix)
{
    if (name == KT_NONE) return false;
    const char *s = kt_strtab_get(strs, name);
    return prefix ? kt_starts_with(s, needle) : strstr(s, needle) != NULL;
}

typedef struct thread_label {
    uint64_t key;
    int label; /* 0 other, 1 main (ProfilerStep#), 2 bwd (autograd::) */
} thread_label;

/* The one main and one backward thread, if the rank has exactly those two
 * labelled threads (HTA links only then).                                */
static bool find_main_bwd(const kt_trace *t, const kt_op_tree *tr, uint64_t *main_key, uint64_t *bwd_key)
{
    const kt_events *e = &tr->r->ev;
    int nmain = 0, nbwd = 0;
    for (size_t k = 0; k < tr->n;) {
        uint64_t key = kt_ev_thread_key(e, tr->node[k]);
        bool is_main = false, is_bwd = false;
        for (; k < tr->n && kt_ev_thread_key(e, tr->node[k]) == key; k++) {
            uint32_t nm = e->name[tr->node[k]];
            is_main |= name_has(t->strs, nm, "ProfilerStep#", true);
            is_bwd |= name_has(t->strs, nm, "autograd::", false);
        }
        if (is_main) { nmain++; *main_key = key; }
        else if (is_bwd) { nbwd++; *bwd_key = key; }
    }
    return nmain == 1 && nbwd == 1;
}

static void relink_backward(const kt_trace *t, kt_op_tree *tr)
{
    const kt_events *e = &tr->r->ev;
    uint64_t main_key = 0, bwd_key = 0;
    if (!find_main_bwd(t, tr, &main_key, &bwd_key)) return;
    const char *anns[] = { "## backward ##", "ProfilerStep#" };
    for (int a = 0; a < 2; a++) {
        bool any = false;
        for (size_t k = 0; k < tr->n; k++) {
            uint32_t ev = tr->node[k];
            if (kt_ev_thread_key(e, ev) != main_key || !name_has(t->strs, e->name[ev], anns[a], true)) continue;
            any = true;
            int64_t ts = e->ts[ev], end = ts + clamped_dur(e, ev);
            for (size_t j = 0; j < tr->n; j++) {
                uint32_t b = tr->node[j];
                if (kt_ev_thread_key(e, b) != bwd_key || tr->parent[j] != KT_NONE) continue;
                if (e->ts[b] >= ts && e->ts[b] + clamped_dur(e, b) <= end) {
                    tr->parent[j] = (uint32_t)k;
                    tr->relinked = true;
                }
            }
        }
        if (any) return;
    }
}

/* ---- depths, children, kernel totals ------------------------------------ */

static bool compute_depths(kt_op_tree *tr)
{
    if (!tr->relinked) { /* parents come first: one forward pass */
        for (size_t k = 0; k < tr->n; k++)
            tr->depth[k] = tr->parent[k] == KT_NONE ? 0 : tr->depth[tr->parent[k]] + 1;
        return true;
    }
    uint32_t *chain = malloc((tr->n ? tr->n : 1) * sizeof *chain);
    if (!chain) return false;
    for (size_t k = 0; k < tr->n; k++) tr->depth[k] = -1;
    for (size_t k = 0; k < tr->n; k++) {
        size_t len = 0;
        uint32_t j = (uint32_t)k;
        while (j != KT_NONE && tr->depth[j] < 0 && len < tr->n) {
            chain[len++] = j;
            j = tr->parent[j];
        }
        int32_t d = j == KT_NONE ? -1 : tr->depth[j];
        while (len > 0) tr->depth[chain[--len]] = ++d;
    }
    free(chain);
    return true;
}

static void link_children(kt_op_tree *tr)
{
    for (size_t k = 0; k < tr->n; k++) tr->first_child[k] = tr->next_sibling[k] = KT_NONE;
    for (size_t k = tr->n; k-- > 0;) {
        uint32_t p = tr->parent[k];
        if (p == KT_NONE) continue;
        tr->next_sibling[k] = tr->first_child[p];
        tr->first_child[p] = (uint32_t)k;
    }
}

bool kt_op_tree_counts_gpu(const kt_op_tree *tr, uint32_t g)
{
    return !tr->compat || kt_ev_stream(&tr->r->ev, g) > 0;
}

size_t kt_op_tree_launched(const kt_op_tree *tr, uint32_t node, const uint32_t **evs)
{
    uint32_t ev = tr->node[node];
    uint8_t k = tr->r->ev.kind[ev];
    if (k != KT_K_RUNTIME && k != KT_K_DRIVER && !tr->compat) return 0;
    return kt_launched_events(tr->r, ev, evs);
}

/* Each node's own GPU events. */
static void own_kernels(kt_op_tree *tr)
{
    const kt_events *e = &tr->r->ev;
    for (size_t k = 0; k < tr->n; k++) {
        const uint32_t *g;
        size_t ng = kt_op_tree_launched(tr, (uint32_t)k, &g);
        for (size_t i = 0; i < ng; i++) {
            if (!kt_op_tree_counts_gpu(tr, g[i])) continue;
            tr->nkernels[k]++;
            tr->kernel_dur[k] += tr->compat ? e->dur[g[i]] : clamped_dur(e, g[i]);
        }
    }
}

static void add_to_parent(kt_op_tree *tr, uint32_t k)
{
    uint32_t p = tr->parent[k];
    if (p == KT_NONE) return;
    tr->nkernels[p] += tr->nkernels[k];
    tr->kernel_dur[p] += tr->kernel_dur[k];
}

/* Totals bottom-up: children before parents — reverse node order, or
 * by decreasing depth once parents can follow children (relinked).    */
static bool kernel_totals(kt_op_tree *tr)
{
    own_kernels(tr);
    if (!tr->relinked) {
        for (size_t k = tr->n; k-- > 0;) add_to_parent(tr, (uint32_t)k);
        return true;
    }
    int32_t maxd = 0;
    for (size_t k = 0; k < tr->n; k++) maxd = tr->depth[k] > maxd ? tr->depth[k] : maxd;
    size_t *start = calloc((size_t)maxd + 2, sizeof *start);
    uint32_t *order = malloc((tr->n ? tr->n : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return false;
    }
    for (size_t k = 0; k < tr->n; k++) start[tr->depth[k] + 1]++;
    for (int32_t d = 0; d <= maxd; d++) start[d + 1] += start[d];
    for (size_t k = 0; k < tr->n; k++) order[start[tr->depth[k]]++] = (uint32_t)k;
    for (size_t i = tr->n; i-- > 0;) add_to_parent(tr, order[i]);
    free(start);
    free(order);
    return true;
}

void kt_op_tree_free(kt_op_tree *tr)
{
    free(tr->node);
    free(tr->pos);
    free(tr->parent);
    free(tr->first_child);
    free(tr->next_sibling);
    free(tr->depth);
    free(tr->nkernels);
    free(tr->kernel_dur);
    memset(tr, 0, sizeof *tr);
}

static bool alloc_nodes(kt_op_tree *tr, size_t nev)
{
    size_t n = tr->n ? tr->n : 1;
    tr->pos = kt_alloc_written(nev * sizeof *tr->pos);
    tr->parent = kt_alloc_written(n * sizeof *tr->parent);
    tr->first_child = kt_alloc_written(n * sizeof *tr->first_child);
    tr->next_sibling = kt_alloc_written(n * sizeof *tr->next_sibling);
    tr->depth = kt_alloc_written(n * sizeof *tr->depth);
    tr->nkernels = calloc(n, sizeof *tr->nkernels);
    tr->kernel_dur = calloc(n, sizeof *tr->kernel_dur);
    return tr->pos && tr->parent && tr->first_child && tr->next_sibling && tr->depth && tr->nkernels &&
           tr->kernel_dur;
}

kt_status kt_op_tree_build(const kt_trace *t, const kt_rank *r, kt_op_tree *out)
{
    memset(out, 0, sizeof *out);
    out->r = r;
    out->compat = t->hta_compat;
    const kt_events *e = &r->ev;
    out->node = malloc((e->n ? e->n : 1) * sizeof *out->node);
    if (!out->node) return KT_ENOMEM;
    for (size_t i = 0; i < e->n; i++)
        if (is_member(r, (uint32_t)i, out->compat)) out->node[out->n++] = (uint32_t)i;
    bool ok = sort_members(e, out->node, out->n) && alloc_nodes(out, e->n);
    if (ok) {
        for (size_t i = 0; i < e->n; i++) out->pos[i] = KT_NONE;
        for (size_t k = 0; k < out->n; k++) out->pos[out->node[k]] = (uint32_t)k;
        ok = out->compat ? kt_hta_link_parents(out) : link_parents(out);
        out->relinked = out->compat; /* HTA's parents need not precede */
    }
    if (ok && out->compat) relink_backward(t, out);
    ok = ok && compute_depths(out);
    if (ok) link_children(out);
    ok = ok && kernel_totals(out);
    if (!ok) {
        kt_op_tree_free(out);
        return KT_ENOMEM;
    }
    return KT_OK;
}
