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

/* The calls whose nodes are flagged (CP_NODE_BLOCKING, CP_NODE_LOCK). */
static const struct {
    const char *name;
    uint8_t flags;
} flagged[] = {
    { "cudaDeviceSynchronize", CP_NODE_BLOCKING }, { "cudaStreamSynchronize", CP_NODE_BLOCKING },
    { "cudaEventQuery", CP_NODE_BLOCKING },        { "cudaEventSynchronize", CP_NODE_BLOCKING },
    { "cudaMemcpy", CP_NODE_BLOCKING },            { "cudaMemcpyAsync", CP_NODE_BLOCKING | CP_NODE_LOCK },
    { "cudaLaunchKernel", CP_NODE_LOCK },          { "cudaHostAlloc", CP_NODE_LOCK },
};
#define NFLAGGED (sizeof flagged / sizeof *flagged)

/* Their name ids (KT_NONE: not in this trace): compared as ids, not
 * strings, once per event; a bit per id modulo 64 turns most names away
 * before the comparisons.                                                */
typedef struct flagged_calls {
    uint32_t id[NFLAGGED];
    uint64_t may_be; /* bit id % 64 of each id */
} flagged_calls;

static void flagged_calls_init(flagged_calls *c, const kt_strtab *strs)
{
    c->may_be = 0;
    for (size_t i = 0; i < NFLAGGED; i++) {
        c->id[i] = kt_strtab_find(strs, flagged[i].name, strlen(flagged[i].name));
        c->may_be |= (uint64_t)1 << (c->id[i] % 64);
    }
}

static uint8_t call_flags(const flagged_calls *c, uint32_t name)
{
    if (name == KT_NONE || !(c->may_be >> (name % 64) & 1)) return 0;
    uint8_t f = 0;
    for (size_t i = 0; i < NFLAGGED; i++)
        if (name == c->id[i]) f |= flagged[i].flags;
    return f;
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
    g->ts = kt_alloc_written(n * sizeof *g->ts);
    g->ev = kt_alloc_written(n * sizeof *g->ev);
    g->flags = kt_alloc_written(n);
    g->start_of = kt_alloc_written(nev * sizeof *g->start_of);
    g->end_node = kt_alloc_written(n * sizeof *g->end_node);
    return g->ts && g->ev && g->flags && g->start_of && g->end_node;
}

/* The kept events that become nodes, and per such event its node flags
 * other than CP_NODE_START (looked up once per event, not per node).     */
static size_t node_events(const kt_rank *r, const kt_strtab *strs, const uint32_t *kept, size_t nkept,
                          uint32_t *evs, uint8_t *ev_flags)
{
    const kt_events *e = &r->ev;
    flagged_calls calls;
    flagged_calls_init(&calls, strs);
    size_t nev = 0;
    for (size_t j = 0; j < nkept; j++) {
        uint32_t i = kept[j];
        if (!is_node_event(e, i)) continue;
        evs[nev] = i;
        ev_flags[nev++] = call_flags(&calls, e->name[i]);
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
    uint32_t *ids = kt_alloc_written(2 * nev * sizeof *ids);
    uint64_t *keys = kt_alloc_written(2 * nev * sizeof *keys);
    uint32_t *ends = kt_alloc_written(nev * sizeof *ends);
    bool ok = evs && ev_flags && ids && keys && ends && alloc_nodes(g, 2 * nev, e->n);
    size_t k = 0;
    if (ok) memset(g->start_of, 0xff, e->n * sizeof *g->start_of); /* KT_NONE */
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
        else ends[ids[n] / 2] = (uint32_t)n; /* its start may come later: a negative duration */
    }
    for (size_t j = 0; ok && j < nev; j++) g->end_node[g->start_of[evs[j]]] = ends[j];
    free(ids);
    free(keys);
    free(evs);
    free(ev_flags);
    free(ends);
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

bool cp_grow_edges(cp_graph *g)
{
    if (!grow_edges(g, g->cap ? 2 * g->cap : 1024)) g->oom = true;
    return !g->oom;
}

/* Edges marked in drop[] removed, the others kept in order. */
static void remove_edges(cp_graph *g, const uint8_t *drop)
{
    size_t w = 0;
    for (size_t e = 0; e < g->m; e++) {
        if (drop[e]) continue;
        g->src[w] = g->src[e], g->dst[w] = g->dst[e], g->attr[w] = g->attr[e];
        g->type[w] = g->type[e], g->eflags[w] = g->eflags[e];
        w++;
    }
    g->m = w;
}

/* The lists of edges into each node, latest first. */
static void link_in_edges(cp_graph *g)
{
    memset(g->in_head, 0xff, g->n * sizeof *g->in_head); /* KT_NONE: no edge in */
    for (size_t e = 0; e < g->m; e++) g->in_next[e] = g->in_head[g->dst[e]], g->in_head[g->dst[e]] = (uint32_t)e;
}

/* Duplicates share a destination: each edge looks for one from its source
 * among the edges into its destination kept so far (a list per node, of
 * one or two edges mostly) and merges into it, in insertion order, so that
 * the first keeps its position and takes the last one's data.  Traces
 * rarely have any: the lists are then those of the final edges.          */
kt_status cp_merge_duplicate_edges(cp_graph *g)
{
    uint32_t *head = g->in_head = malloc((g->n ? g->n : 1) * sizeof *head);
    uint32_t *next = g->in_next = malloc((g->m ? g->m : 1) * sizeof *next);
    uint8_t *drop = NULL;
    bool ok = head && next;
    if (ok) memset(head, 0xff, g->n * sizeof *head); /* KT_NONE: no edge in yet */
    for (size_t e = 0; ok && e < g->m; e++) {
        uint32_t d = g->dst[e], first = head[d];
        while (first != KT_NONE && g->src[first] != g->src[e]) first = next[first];
        if (first == KT_NONE) {
            next[e] = head[d], head[d] = (uint32_t)e;
            continue;
        }
        if (!drop && !(drop = calloc(g->m, 1))) ok = false;
        if (!ok) break;
        g->type[first] = g->type[e];
        g->eflags[first] = g->eflags[e];
        if (g->attr[e] != KT_NONE) g->attr[first] = g->attr[e];
        drop[e] = 1;
    }
    if (ok && drop) {
        remove_edges(g, drop);
        link_in_edges(g);
    }
    free(drop);
    return ok ? KT_OK : KT_ENOMEM;
}

void cp_graph_free(cp_graph *g)
{
    free(g->ts);
    free(g->ev);
    free(g->flags);
    free(g->start_of);
    free(g->end_node);
    free(g->src);
    free(g->dst);
    free(g->attr);
    free(g->type);
    free(g->eflags);
    free(g->in_head);
    free(g->in_next);
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
    if (s == KT_OK) cp_add_lock_edges(g);
    if (s == KT_OK) s = cp_add_cpu_edges(r, strs, kept, nkept, g);
    if (s == KT_OK) s = cp_add_gpu_edges(r, strs, cfg, kept, nkept, g);
    if (s == KT_OK && g->oom) s = KT_ENOMEM;
    if (s == KT_OK) s = cp_merge_duplicate_edges(g);
    free(kept);
    if (s != KT_OK) cp_graph_free(g);
    return s;
}
