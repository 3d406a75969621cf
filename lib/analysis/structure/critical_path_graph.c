/*
 * critical_path_graph.c — the nodes and the edge list of the critical-path
 * graph, and the order of building it (spec A4.11 steps 2-3).
 *
 * Edges are appended in the order HTA adds them to its networkx graph (CPU
 * call stacks thread by thread, then GPU events in time order) because the
 * longest path's ties are broken by that order.
 */
#include "analysis/structure/critical_path_graph.h"
#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

const char *cp_type_name(cp_edge_type t)
{
    static const char *const names[CP__NTYPES] = {
        "critical_path_operator", "critical_path_dependency", "critical_path_kernel_launch_delay",
        "critical_path_kernel_kernel_delay", "critical_path_sync_dependency",
    };
    return t < CP__NTYPES ? names[t] : "";
}

void cp_blocking_calls_init(cp_blocking_calls *b, const kt_strtab *strs)
{
    static const char *const calls[CP_NBLOCKING] = { "cudaDeviceSynchronize", "cudaStreamSynchronize",
                                                     "cudaEventQuery", "cudaEventSynchronize", "cudaMemcpy",
                                                     "cudaMemcpyAsync" };
    for (size_t i = 0; i < CP_NBLOCKING; i++) b->id[i] = kt_strtab_find(strs, calls[i], strlen(calls[i]));
}

bool cp_is_blocking_call(const cp_blocking_calls *b, uint32_t name)
{
    for (size_t i = 0; i < CP_NBLOCKING; i++)
        if (name == b->id[i] && name != KT_NONE) return true;
    return false;
}

uint32_t cp_hta_pointed_gpu(const kt_rank *r, uint32_t call)
{
    const uint32_t *evs;
    size_t k = kt_launched_events(r, call, &evs);
    uint32_t last = KT_NONE;
    for (size_t j = 0; j < k; j++) last = last == KT_NONE || evs[j] > last ? evs[j] : last;
    return last;
}

static bool is_node_event(const kt_events *e, uint32_t i)
{
    uint8_t k = e->kind[i];
    if (k == KT_K_CPU_OP || k == KT_K_RUNTIME || k == KT_K_DRIVER) return true;
    return cp_is_stream_event(e, i) && e->corr[i] >= 0;
}

static bool alloc_nodes(cp_graph *g, size_t n, size_t nev)
{
    g->n = n;
    g->ts = malloc((n ? n : 1) * sizeof *g->ts);
    g->ev = malloc((n ? n : 1) * sizeof *g->ev);
    g->flags = malloc(n ? n : 1);
    g->start_of = malloc((nev ? nev : 1) * sizeof *g->start_of);
    g->end_of = malloc((nev ? nev : 1) * sizeof *g->end_of);
    return g->ts && g->ev && g->flags && g->start_of && g->end_of;
}

/* The kept events that become nodes, and per such event its node flags
 * other than CP_NODE_START (looked up once per event, not per node).     */
static size_t node_events(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t nkept,
                          uint32_t *evs, uint8_t *ev_flags)
{
    const kt_events *e = &r->ev;
    cp_blocking_calls blocking;
    cp_blocking_calls_init(&blocking, strs);
    size_t nev = 0;
    for (size_t j = 0; j < nkept; j++) {
        uint32_t i = kept[j];
        if (!is_node_event(e, i)) continue;
        evs[nev] = i;
        ev_flags[nev++] = cp_is_blocking_call(&blocking, e->name[i]) ? CP_NODE_BLOCKING : 0;
    }
    return nev;
}

/* Node k of the unsorted list is event evs[k / 2], its start when k is even. */
static kt_status make_nodes(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t nkept,
                            cp_graph *g)
{
    const kt_events *e = &r->ev;
    uint32_t *evs = malloc((nkept ? nkept : 1) * sizeof *evs);
    uint8_t *ev_flags = malloc(nkept ? nkept : 1);
    size_t nev = evs && ev_flags ? node_events(r, strs, kept, nkept, evs, ev_flags) : 0;
    uint32_t *ids = malloc((nev ? 2 * nev : 1) * sizeof *ids);
    uint64_t *keys = malloc((nev ? 2 * nev : 1) * sizeof *keys);
    bool ok = evs && ev_flags && ids && keys && alloc_nodes(g, 2 * nev, e->n);
    size_t k = 0;
    if (ok) {
        memset(g->start_of, 0xff, e->n * sizeof *g->start_of); /* KT_NONE */
        memset(g->end_of, 0xff, e->n * sizeof *g->end_of);
    }
    for (size_t j = 0; ok && j < nev; j++) {
        uint32_t i = evs[j];
        keys[k] = kt_radix_key_i64(e->ts[i]), ids[k] = (uint32_t)k, k++;
        keys[k] = kt_radix_key_i64(e->ts[i] + e->dur[i]), ids[k] = (uint32_t)k, k++;
    }
    ok = ok && kt_radix_sort(keys, ids, k);
    for (size_t n = 0; ok && n < k; n++) {
        uint32_t ev = evs[ids[n] / 2];
        bool start = ids[n] % 2 == 0;
        g->ts[n] = e->ts[ev] + (start ? 0 : e->dur[ev]);
        g->ev[n] = ev;
        g->flags[n] = ev_flags[ids[n] / 2] | (start ? CP_NODE_START : 0);
        if (start) g->start_of[ev] = (uint32_t)n;
        else g->end_of[ev] = (uint32_t)n;
    }
    free(ids);
    free(keys);
    free(evs);
    free(ev_flags);
    return ok ? KT_OK : KT_ENOMEM;
}

/* Room for cap edges (a graph has about one edge per node: reserving that
 * once saves copying the arrays while they grow).                         */
static bool grow_edges(cp_graph *g, size_t cap)
{
    uint32_t *src = realloc(g->src, cap * sizeof *src);
    if (src) g->src = src;
    uint32_t *dst = realloc(g->dst, cap * sizeof *dst);
    if (dst) g->dst = dst;
    uint32_t *attr = realloc(g->attr, cap * sizeof *attr);
    if (attr) g->attr = attr;
    uint8_t *type = realloc(g->type, cap);
    if (type) g->type = type;
    uint8_t *fl = realloc(g->eflags, cap);
    if (fl) g->eflags = fl;
    if (!src || !dst || !attr || !type || !fl) return false;
    g->cap = cap;
    return true;
}

void cp_add_edge(cp_graph *g, uint32_t src, uint32_t dst, cp_edge_type type, bool zero)
{
    if (g->oom || src == dst || src == KT_NONE || dst == KT_NONE) return;
    if (g->m == g->cap && !grow_edges(g, g->cap ? 2 * g->cap : 1024)) {
        g->oom = true;
        return;
    }
    g->src[g->m] = src;
    g->dst[g->m] = dst;
    g->attr[g->m] = KT_NONE;
    g->type[g->m] = (uint8_t)type;
    g->eflags[g->m] = zero ? CP_EDGE_ZERO : 0;
    g->m++;
}

/* HTA's _attribute_edge on the last edge added: spans and kernel-kernel
 * delays belong to an event — start→start and start→end to the source,
 * end→end to the destination, end→start to the source's parent, a
 * kernel-kernel delay to the previous kernel.                               */
void cp_attribute(cp_graph *g, uint32_t parent_ev)
{
    if (g->oom || g->m == 0) return;
    size_t e = g->m - 1;
    if (g->type[e] != CP_OPERATOR && g->type[e] != CP_KERNEL_KERNEL) return;
    uint32_t s = g->src[e], d = g->dst[e];
    if (g->type[e] == CP_KERNEL_KERNEL || (g->flags[s] & CP_NODE_START)) g->attr[e] = g->ev[s];
    else if (!(g->flags[d] & CP_NODE_START)) g->attr[e] = g->ev[d];
    else g->attr[e] = parent_ev;
}

/* Duplicates share a destination: grouping the edges by destination (a
 * counting sort, insertion order kept inside a group) puts each next to
 * the first of its kind, where networkx keeps it, with the last one's data. */
static void merge_into_first(cp_graph *g, const uint32_t *by_dst, uint32_t lo, uint32_t hi, uint8_t *drop)
{
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t first = by_dst[i];
        if (drop[first]) continue;
        for (uint32_t j = i + 1; j < hi; j++) {
            uint32_t later = by_dst[j];
            if (drop[later] || g->src[later] != g->src[first]) continue;
            g->type[first] = g->type[later];
            g->eflags[first] = g->eflags[later];
            if (g->attr[later] != KT_NONE) g->attr[first] = g->attr[later];
            drop[later] = 1;
        }
    }
}

kt_status cp_merge_duplicate_edges(cp_graph *g)
{
    size_t m = g->m;
    uint32_t *off = calloc(g->n + 1, sizeof *off);
    uint32_t *by_dst = malloc((m ? m : 1) * sizeof *by_dst);
    uint8_t *drop = calloc(m ? m : 1, 1);
    bool ok = off && by_dst && drop;
    for (size_t e = 0; ok && e < m; e++) off[g->dst[e] + 1]++;
    for (size_t v = 0; ok && v < g->n; v++) off[v + 1] += off[v];
    for (size_t e = 0; ok && e < m; e++) by_dst[off[g->dst[e]]++] = (uint32_t)e;
    for (size_t v = g->n; ok && v > 0; v--) off[v] = off[v - 1]; /* back to group starts */
    if (ok) off[0] = 0;
    for (size_t v = 0; ok && v < g->n; v++)
        if (off[v + 1] - off[v] > 1) merge_into_first(g, by_dst, off[v], off[v + 1], drop);
    size_t w = 0;
    for (size_t e = 0; ok && e < m; e++) {
        if (drop[e]) continue;
        g->src[w] = g->src[e], g->dst[w] = g->dst[e], g->attr[w] = g->attr[e];
        g->type[w] = g->type[e], g->eflags[w] = g->eflags[e];
        w++;
    }
    if (ok) g->m = w;
    free(off);
    free(by_dst);
    free(drop);
    return ok ? KT_OK : KT_ENOMEM;
}

void cp_graph_free(cp_graph *g)
{
    free(g->ts);
    free(g->ev);
    free(g->flags);
    free(g->start_of);
    free(g->end_of);
    free(g->src);
    free(g->dst);
    free(g->attr);
    free(g->type);
    free(g->eflags);
    *g = (cp_graph){ 0 };
}

kt_status cp_graph_build(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, cp_graph *g,
                         char *err, size_t errlen)
{
    *g = (cp_graph){ 0 };
    uint32_t *kept = malloc((r->ev.n ? r->ev.n : 1) * sizeof *kept);
    if (!kept) return KT_ENOMEM;
    size_t nkept = 0;
    kt_status s = cp_select_window(r, strs, cfg, kept, &nkept, &g->win_first, &g->win_last, err, errlen);
    if (s == KT_OK) s = make_nodes(r, strs, kept, nkept, g);
    if (s == KT_OK && !grow_edges(g, g->n + g->n / 8 + 1024)) s = KT_ENOMEM;
    uint8_t *lock = NULL;
    if (s == KT_OK) s = cp_add_lock_edges(r, strs, g, &lock);
    if (s == KT_OK) s = cp_add_cpu_edges(r, strs, kept, nkept, lock, g);
    free(lock);
    if (s == KT_OK) s = cp_add_gpu_edges(r, strs, cfg, kept, nkept, g);
    if (s == KT_OK && g->oom) s = KT_ENOMEM;
    if (s == KT_OK) s = cp_merge_duplicate_edges(g);
    free(kept);
    if (s != KT_OK) cp_graph_free(g);
    return s;
}
