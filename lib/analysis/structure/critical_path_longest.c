/*
 * critical_path_longest.c — see critical_path_longest.h.
 *
 * Kahn's algorithm over CSR adjacency lists kept in edge insertion order
 * reproduces networkx's topological_generations, so equally long paths
 * resolve to the one HTA reports; the whole pass is linear in the graph.
 * Most graphs do without it: their nodes, sorted by time, are nearly in
 * topological order already (longest_by_time), which costs half as much.
 */
#include "analysis/structure/critical_path_longest.h"
#include "analysis/common/kernel_type.h"
#include "analysis/common/name_match.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *cp_class_name(cp_class c)
{
    static const char *const names[CP__NCLASSES] = { "", "cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
                                                     "gpu_kernel_launch_overhead", "gpu_kernel_kernel_overhead" };
    return c < CP__NCLASSES ? names[c] : "";
}

/* Class of a span attributed to event ev (comm: kernel names tested once
 * each, GPU spans alternate between a few of them).                       */
static uint8_t span_class(const kt_rank *r, kt_name_test *comm, uint32_t ev)
{
    if (ev == KT_NONE || !cp_is_stream_event(&r->ev, ev)) return CP_CLASS_CPU;
    return kt_name_passes(comm, r->ev.name[ev]) ? CP_CLASS_COMM : CP_CLASS_GPU;
}

static uint8_t edge_class(const kt_rank *r, kt_name_test *comm, const cp_graph *g, uint32_t e)
{
    switch (g->type[e]) {
    case CP_LAUNCH: return CP_CLASS_LAUNCH;
    case CP_KERNEL_KERNEL: return CP_CLASS_KERNEL_GAP;
    case CP_DEPENDENCY:
    case CP_SYNC: return CP_CLASS_NONE;
    default: return span_class(r, comm, g->attr[e]);
    }
}

bool cp_classify_edges(const kt_rank *r, const kt_strtab *strs, const cp_graph *g, const uint32_t *edges, size_t n,
                       uint8_t *cls)
{
    kt_name_test comm;
    if (!kt_name_test_init(&comm, strs, kt_is_comm_kernel_name)) return false;
    for (size_t k = 0; k < n; k++) {
        uint32_t e = edges ? edges[k] : (uint32_t)k;
        cls[e] = edge_class(r, &comm, g, e);
    }
    kt_name_test_free(&comm);
    return true;
}

uint8_t *cp_edge_classes(const kt_rank *r, const kt_strtab *strs, const cp_graph *g)
{
    uint8_t *cls = malloc(g->m ? g->m : 1);
    if (cls && !cp_classify_edges(r, strs, g, NULL, g->m, cls)) free(cls), cls = NULL;
    return cls;
}

static inline int64_t weight(const cp_graph *g, const uint8_t *cls, const double *scale, size_t e, size_t *negative)
{
    int64_t w = cp_edge_weight(g, e);
    if (w < 0) {
        (*negative)++;
        return 0;
    }
    if (scale && cls && scale[cls[e]] != 1.0) w = (int64_t)llround((double)w * scale[cls[e]]);
    return w;
}

/* Adjacency in insertion order: off[n + 1], list[m] of edge ids. */
static bool csr(const cp_graph *g, const uint32_t *end, uint32_t **off, uint32_t **list)
{
    *off = calloc(g->n + 1, sizeof **off);
    *list = malloc((g->m ? g->m : 1) * sizeof **list);
    if (!*off || !*list) return false;
    for (size_t e = 0; e < g->m; e++) (*off)[end[e] + 1]++;
    for (size_t v = 0; v < g->n; v++) (*off)[v + 1] += (*off)[v];
    uint32_t *cur = malloc((g->n ? g->n : 1) * sizeof *cur);
    if (!cur) return false;
    memcpy(cur, *off, g->n * sizeof *cur);
    for (size_t e = 0; e < g->m; e++) (*list)[cur[end[e]]++] = (uint32_t)e;
    free(cur);
    return true;
}

/* networkx knows a node from the first edge naming it (HTA adds no
 * isolated nodes): that order seeds its first generation.  Returns the
 * nodes that are in the graph, in that order.                             */
static uint32_t *appearance_order(const cp_graph *g, size_t *n)
{
    uint32_t *seen = malloc((g->n ? g->n : 1) * sizeof *seen);
    uint8_t *in = calloc(g->n ? g->n : 1, 1);
    *n = 0;
    for (size_t e = 0; seen && in && e < g->m; e++) {
        uint32_t ends[2] = { g->src[e], g->dst[e] };
        for (int k = 0; k < 2; k++)
            if (!in[ends[k]]) in[ends[k]] = 1, seen[(*n)++] = ends[k];
    }
    free(in);
    return seen;
}

/* networkx topological_generations over the nodes in appearance order;
 * when it stalls on a cycle, the earliest node not yet visited is released
 * and its pending in-edges are counted as ignored.  order[] gets the
 * visiting order of the n nodes.                                            */
static size_t topo_order(const cp_graph *g, const uint32_t *out_off, const uint32_t *out, uint32_t *indeg,
                         const uint32_t *nodes, size_t n, uint32_t *order)
{
    size_t head = 0, tail = 0, ignored = 0, scan = 0;
    uint8_t *queued = calloc(g->n ? g->n : 1, 1);
    if (!queued) return SIZE_MAX;
    for (size_t k = 0; k < n; k++)
        if (indeg[nodes[k]] == 0) order[tail++] = nodes[k], queued[nodes[k]] = 1;
    while (tail < n) {
        while (head < tail) {
            uint32_t v = order[head++];
            for (uint32_t k = out_off[v]; k < out_off[v + 1]; k++) {
                uint32_t d = g->dst[out[k]];
                if (!queued[d] && --indeg[d] == 0) order[tail++] = d, queued[d] = 1;
            }
        }
        if (tail == n) break;
        while (queued[nodes[scan]]) scan++;
        ignored += indeg[nodes[scan]];
        indeg[nodes[scan]] = 0;
        queued[nodes[scan]] = 1;
        order[tail++] = nodes[scan];
    }
    free(queued);
    return ignored;
}

/* dag_longest_path: best predecessor (first maximum, insertion order) of
 * each node in topological order; the path ends at the first node with the
 * largest distance.  pred[v] = edge, KT_NONE when v starts a path.        */
static uint32_t relax(const cp_graph *g, const uint8_t *cls, const double *scale, const uint32_t *order,
                      size_t n, const uint32_t *in_off, const uint32_t *in, int64_t *dist, uint32_t *pred,
                      uint8_t *done, size_t *negative)
{
    uint32_t best = KT_NONE;
    for (size_t k = 0; k < n; k++) {
        uint32_t v = order[k];
        int64_t d = INT64_MIN;
        uint32_t p = KT_NONE;
        for (uint32_t j = in_off[v]; j < in_off[v + 1]; j++) {
            uint32_t e = in[j], u = g->src[e];
            if (!done[u]) continue; /* an edge of a broken cycle */
            int64_t c = dist[u] + weight(g, cls, scale, e, negative);
            if (c > d) d = c, p = e;
        }
        if (p == KT_NONE || d < 0) d = 0, p = KT_NONE;
        dist[v] = d, pred[v] = p, done[v] = 1;
        if (best == KT_NONE || d > dist[best]) best = v;
    }
    return best;
}

static kt_status trace_back(const cp_graph *g, const int64_t *dist, const uint32_t *pred, uint32_t last,
                            cp_path *out)
{
    size_t len = 1;
    for (uint32_t v = last; pred[v] != KT_NONE; v = g->src[pred[v]]) len++;
    out->nodes = malloc(len * sizeof *out->nodes);
    out->edges = malloc(len * sizeof *out->edges);
    if (!out->nodes || !out->edges) return KT_ENOMEM;
    out->nn = len;
    out->ne = len - 1;
    size_t k = len;
    for (uint32_t v = last;; v = g->src[pred[v]]) {
        out->nodes[--k] = v;
        if (pred[v] == KT_NONE) break;
        out->edges[k - 1] = pred[v];
    }
    out->length = dist[last];
    return KT_OK;
}

/* The longest path by time.  Nodes are sorted by time and an edge almost
 * always leads to a later node, so node order is nearly topological: only
 * nodes of equal time joined by an edge back in node order need reordering
 * (a few per trace).  Distances and best predecessors do not depend on the
 * topological order; only which of equally long ends comes first does:
 * networkx visits generations (hops from a source) in turn, so the end
 * with the fewest hops.                                                    */
typedef struct in_lists {
    const uint32_t *head, *next; /* the edges into each node, latest first */
} in_lists;

#define RETRIES 16 /* passes over a time's nodes to order them, then give up */

/* Nodes [a, b) (one time) into order[a, b) so that edges among them lead
 * forward; placed[] marks the nodes done.  False when RETRIES passes do not
 * suffice (a cycle or a long chain backwards: the general way handles it). */
static bool order_same_time(const cp_graph *g, const in_lists *in, uint32_t a, uint32_t b, uint8_t *placed,
                            uint32_t *order)
{
    uint32_t k = a;
    for (int pass = 0; pass < RETRIES && k < b; pass++) {
        for (uint32_t v = a; v < b; v++) {
            bool ready = !placed[v];
            for (uint32_t e = in->head[v]; ready && e != KT_NONE; e = in->next[e]) {
                uint32_t u = g->src[e];
                ready = u < a || placed[u];
            }
            if (ready) order[k++] = v, placed[v] = 1;
        }
    }
    return k == b;
}

/* A topological order of the nodes by time (order[] ascending but where
 * edges between nodes of one time run backwards); false when an edge runs
 * back in time (a negative duration) or order_same_time gives up.          */
static bool order_by_time(const cp_graph *g, const in_lists *in, uint32_t *order, bool *nomem)
{
    uint8_t *placed = NULL;
    bool ok = true;
    for (uint32_t v = 0; v < g->n; v++) order[v] = v;
    for (size_t e = 0; ok && e < g->m; e++) {
        uint32_t v = g->dst[e], a = v, b = v + 1;
        if (g->src[e] < v) continue;
        ok = g->ts[g->src[e]] == g->ts[v];
        if (!ok || (placed && placed[v])) continue;
        if (!placed && !(placed = calloc(g->n, 1))) {
            *nomem = true;
            return false;
        }
        while (a > 0 && g->ts[a - 1] == g->ts[v]) a--;
        while (b < g->n && g->ts[b] == g->ts[v]) b++;
        ok = order_same_time(g, in, a, b, placed, order);
    }
    free(placed);
    return ok;
}

/* Relax the nodes in a topological order; the end: the longest, of those
 * the one with the fewest hops (gen[]), KT_NONE when that does not decide
 * (a tie in hops too, or no edge weighs).                                */
static uint32_t relax_in_order(const cp_graph *g, const uint8_t *cls, const double *scale, const uint32_t *order,
                               const in_lists *in, int64_t *dist, uint32_t *pred, uint32_t *gen, size_t *negative)
{
    uint32_t best = KT_NONE;
    bool tied = false;
    for (uint32_t k = 0; k < g->n; k++) {
        uint32_t v = order[k], p = KT_NONE, hops = 0;
        int64_t d = 0;
        for (uint32_t e = in->head[v]; e != KT_NONE; e = in->next[e]) {
            uint32_t u = g->src[e];
            int64_t c = dist[u] + weight(g, cls, scale, e, negative);
            if (p == KT_NONE || c >= d) d = c, p = e; /* latest first: >= keeps the first added of equals */
            if (gen[u] >= hops) hops = gen[u] + 1;
        }
        dist[v] = d, pred[v] = p, gen[v] = hops;
        if (best != KT_NONE && (d < dist[best] || (d == dist[best] && hops > gen[best]))) continue;
        tied = best != KT_NONE && d == dist[best] && hops == gen[best];
        if (!tied) best = v;
    }
    return tied || best == KT_NONE || dist[best] == 0 ? KT_NONE : best;
}

/* The path's end found by time, or KT_NONE: then the general way. */
static uint32_t longest_by_time(const cp_graph *g, const uint8_t *cls, const double *scale, const in_lists *in,
                                int64_t *dist, uint32_t *pred, cp_path *out, bool *nomem)
{
    uint32_t *order = malloc(g->n * sizeof *order), *gen = malloc(g->n * sizeof *gen);
    uint32_t last = KT_NONE;
    size_t negative = 0;
    *nomem = !order || !gen;
    if (!*nomem && order_by_time(g, in, order, nomem))
        last = relax_in_order(g, cls, scale, order, in, dist, pred, gen, &negative);
    if (last != KT_NONE) out->negative = negative;
    free(order), free(gen);
    return last;
}

/* The general way: topological generations as networkx visits them
 * (cycles broken), then relax in that order.                             */
static kt_status longest_general(const cp_graph *g, const uint8_t *cls, const double *scale, int64_t *dist,
                                 uint32_t *pred, cp_path *out)
{
    uint32_t *out_off = NULL, *out_list = NULL, *in_off = NULL, *in_list = NULL;
    size_t nin = 0;
    uint32_t *nodes = appearance_order(g, &nin);
    uint32_t *indeg = malloc(g->n * sizeof *indeg), *order = malloc(g->n * sizeof *order);
    uint8_t *done = calloc(g->n, 1);
    bool ok = nodes && indeg && order && done && csr(g, g->src, &out_off, &out_list) &&
              csr(g, g->dst, &in_off, &in_list);
    if (ok) {
        for (size_t v = 0; v < g->n; v++) indeg[v] = in_off[v + 1] - in_off[v];
        out->cycle_edges = topo_order(g, out_off, out_list, indeg, nodes, nin, order);
        ok = out->cycle_edges != SIZE_MAX;
    }
    kt_status s = ok ? KT_OK : KT_ENOMEM;
    if (ok) {
        uint32_t last = relax(g, cls, scale, order, nin, in_off, in_list, dist, pred, done, &out->negative);
        s = trace_back(g, dist, pred, last, out);
    }
    free(nodes), free(out_off), free(out_list), free(in_off), free(in_list), free(indeg), free(order), free(done);
    return s;
}

/* The graph's lists of edges into each node; a graph made by hand (tests)
 * has none: made here then, into own.                                    */
static bool lists_of(const cp_graph *g, in_lists *in, uint32_t **own)
{
    *in = (in_lists){ g->in_head, g->in_next };
    if (in->head) return true;
    uint32_t *head = own[0] = malloc(g->n * sizeof *head), *next = own[1] = malloc(g->m * sizeof *next);
    if (!head || !next) return false;
    memset(head, 0xff, g->n * sizeof *head); /* KT_NONE */
    for (size_t e = 0; e < g->m; e++) next[e] = head[g->dst[e]], head[g->dst[e]] = (uint32_t)e;
    *in = (in_lists){ head, next };
    return true;
}

kt_status cp_longest_path(const cp_graph *g, const uint8_t *cls, const double *scale, cp_path *out)
{
    *out = (cp_path){ 0 };
    if (g->m == 0) return KT_OK;
    uint32_t *own[2] = { NULL, NULL };
    in_lists in;
    uint32_t *pred = malloc(g->n * sizeof *pred);
    int64_t *dist = malloc(g->n * sizeof *dist);
    bool nomem = !pred || !dist || !lists_of(g, &in, own);
    uint32_t last = nomem ? KT_NONE : longest_by_time(g, cls, scale, &in, dist, pred, out, &nomem);
    kt_status s = nomem ? KT_ENOMEM : KT_OK;
    if (s == KT_OK && last != KT_NONE) s = trace_back(g, dist, pred, last, out);
    else if (s == KT_OK) s = longest_general(g, cls, scale, dist, pred, out);
    free(own[0]), free(own[1]), free(pred), free(dist);
    if (s != KT_OK) cp_path_free(out);
    return s;
}

void cp_path_free(cp_path *p)
{
    free(p->nodes);
    free(p->edges);
    *p = (cp_path){ 0 };
}
