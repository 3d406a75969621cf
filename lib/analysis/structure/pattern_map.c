/*
 * pattern_map.c — see pattern_map.h.
 */
#include "analysis/structure/pattern_map.h"
#include "analysis/common/name_match.h"

#include <stdlib.h>
#include <string.h>

/* ---- which names match: decided once per distinct name ----------------- */

typedef struct name_matcher {
    const kt_op_query *q;
    kt_name_match sub; /* the substring query's answers */
} name_matcher;

static bool matches(name_matcher *m, uint32_t name)
{
    if (name == KT_NONE) return false;
    if (!m->q->substr) return name == m->q->exact;
    return kt_name_contains(&m->sub, name);
}

/* ---- picking ops ---------------------------------------------------------- */

static uint32_t launching_op(const kt_op_tree *tr, uint32_t node)
{
    const kt_events *e = &tr->r->ev;
    for (uint32_t k = tr->parent[node]; k != KT_NONE; k = tr->parent[k])
        if (e->kind[tr->node[k]] == KT_K_CPU_OP) return k;
    return KT_NONE;
}

typedef struct op_count {
    uint32_t name;
    int64_t n;
    const char *text;
} op_count;

static int by_count_then_name(const void *a, const void *b)
{
    const op_count *x = a, *y = b;
    if (x->n != y->n) return x->n > y->n ? -1 : 1;
    return strcmp(x->text, y->text);
}

kt_status kt_pick_launching_ops(const kt_trace *t, const kt_op_tree *tr, size_t want, uint32_t *names,
                                int64_t *gpu_events, size_t *n)
{
    const kt_events *e = &tr->r->ev;
    size_t nstr = kt_strtab_count(t->strs);
    int64_t *per_name = calloc(nstr ? nstr : 1, sizeof *per_name);
    if (!per_name) return KT_ENOMEM;
    size_t distinct = 0;
    for (size_t k = 0; k < tr->n; k++) {
        const uint32_t *g;
        size_t ng = kt_op_tree_launched(tr, (uint32_t)k, &g), counted = 0;
        for (size_t i = 0; i < ng; i++) counted += kt_op_tree_counts_gpu(tr, g[i]);
        uint32_t op = counted ? launching_op(tr, (uint32_t)k) : KT_NONE;
        uint32_t name = op == KT_NONE ? KT_NONE : e->name[tr->node[op]];
        if (name == KT_NONE || name >= nstr) continue;
        distinct += per_name[name] == 0;
        per_name[name] += (int64_t)counted;
    }
    op_count *c = malloc((distinct ? distinct : 1) * sizeof *c);
    if (!c) {
        free(per_name);
        return KT_ENOMEM;
    }
    size_t m = 0;
    for (size_t s = 0; s < nstr; s++)
        if (per_name[s]) c[m++] = (op_count){ (uint32_t)s, per_name[s], kt_strtab_get(t->strs, (uint32_t)s) };
    qsort(c, m, sizeof *c, by_count_then_name);
    *n = m < want ? m : want;
    for (size_t i = 0; i < *n; i++) {
        names[i] = c[i].name;
        gpu_events[i] = c[i].n;
    }
    free(c);
    free(per_name);
    return KT_OK;
}

/* ---- roots ---------------------------------------------------------------- */

static bool has_matching_ancestor(const kt_op_tree *tr, name_matcher *m, uint32_t node)
{
    for (uint32_t k = tr->parent[node]; k != KT_NONE; k = tr->parent[k])
        if (matches(m, tr->r->ev.name[tr->node[k]])) return true;
    return false;
}

/* HTA: candidates are every event of the rank with a matching name;
 * roots those at the candidates' minimum depth (non-members have -1).   */
static size_t roots_compat(const kt_op_tree *tr, name_matcher *m, size_t min_len, uint32_t *roots)
{
    const kt_events *e = &tr->r->ev;
    int32_t min_depth = INT32_MAX;
    for (size_t i = 0; i < e->n; i++)
        if (matches(m, e->name[i])) {
            int32_t d = kt_op_tree_depth(tr, (uint32_t)i);
            min_depth = d < min_depth ? d : min_depth;
        }
    size_t n = 0;
    for (size_t i = 0; i < e->n; i++) {
        uint32_t k = tr->pos[i];
        if (k != KT_NONE && tr->depth[k] == min_depth && tr->nkernels[k] >= min_len && matches(m, e->name[i]))
            roots[n++] = k;
    }
    return n;
}

static size_t roots_outermost(const kt_op_tree *tr, name_matcher *m, size_t min_len, uint32_t *roots)
{
    size_t n = 0;
    for (size_t k = 0; k < tr->n; k++)
        if (tr->nkernels[k] >= min_len && matches(m, tr->r->ev.name[tr->node[k]]) &&
            !has_matching_ancestor(tr, m, (uint32_t)k))
            roots[n++] = (uint32_t)k;
    return n;
}

/* ---- one root's launch sequence ------------------------------------------ */

typedef struct gather {
    uint32_t *stack, *gpu, *seq;
    size_t ngpu;
} gather;

static int by_ts_then_id(const void *a, const void *b, void *ts_col)
{
    const int64_t *ts = ts_col;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ts[x] != ts[y]) return ts[x] < ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* GPU events under root (DFS), occurrences noted once the pattern is known. */
static void collect(const kt_op_tree *tr, uint32_t root, gather *g)
{
    size_t sp = 0;
    g->ngpu = 0;
    g->stack[sp++] = root;
    while (sp > 0) {
        uint32_t k = g->stack[--sp];
        const uint32_t *evs;
        size_t n = kt_op_tree_launched(tr, k, &evs);
        for (size_t i = 0; i < n; i++)
            if (kt_op_tree_counts_gpu(tr, evs[i])) g->gpu[g->ngpu++] = evs[i];
        for (uint32_t c = tr->first_child[k]; c != KT_NONE; c = tr->next_sibling[c]) g->stack[sp++] = c;
    }
}

static void note_occurrence(const kt_op_tree *tr, uint32_t root, uint32_t pattern, gather *g, kt_pattern_set *s)
{
    size_t sp = 0;
    g->stack[sp++] = root;
    while (sp > 0) {
        uint32_t k = g->stack[--sp];
        kt_pattern_add_occ(s, pattern, tr->node[k]);
        for (uint32_t c = tr->first_child[k]; c != KT_NONE; c = tr->next_sibling[c]) g->stack[sp++] = c;
    }
    for (size_t i = 0; i < g->ngpu; i++) kt_pattern_add_occ(s, pattern, g->gpu[i]);
}

static void add_root(const kt_op_tree *tr, uint32_t root, gather *g, kt_pattern_set *s)
{
    const kt_events *e = &tr->r->ev;
    collect(tr, root, g);
    qsort_r(g->gpu, g->ngpu, sizeof *g->gpu, by_ts_then_id, (void *)e->ts);
    uint32_t ev = tr->node[root];
    g->seq[0] = e->name[ev];
    for (size_t i = 0; i < g->ngpu; i++) g->seq[i + 1] = e->name[g->gpu[i]];
    uint32_t p = kt_pattern_find_or_add(s, g->seq, g->ngpu + 1);
    if (p == KT_NONE) return;
    s->p[p].count++;
    s->p[p].gpu_dur += tr->kernel_dur[root];
    s->p[p].cpu_dur += tr->compat || e->dur[ev] > 0 ? e->dur[ev] : 0;
    note_occurrence(tr, root, p, g, s);
}

kt_status kt_patterns_map(const kt_trace *t, const kt_op_tree *tr, const kt_op_query *q, size_t min_len,
                          kt_pattern_set *s, int64_t *nroots)
{
    size_t most = 1; /* GPU events under any node: the gather buffers' size */
    for (size_t k = 0; k < tr->n; k++) most = tr->nkernels[k] > most ? tr->nkernels[k] : most;
    name_matcher m = { .q = q };
    bool memo = kt_name_match_init(&m.sub, t->strs, q->substr);
    uint32_t *roots = malloc((tr->n ? tr->n : 1) * sizeof *roots);
    gather g = { .stack = malloc((tr->n ? tr->n : 1) * sizeof *g.stack),
                 .gpu = malloc(most * sizeof *g.gpu), .seq = malloc((most + 1) * sizeof *g.seq) };
    kt_status st = KT_ENOMEM;
    if (memo && roots && g.stack && g.gpu && g.seq) {
        size_t n = tr->compat ? roots_compat(tr, &m, min_len, roots) : roots_outermost(tr, &m, min_len, roots);
        for (size_t i = 0; i < n; i++) add_root(tr, roots[i], &g, s);
        *nroots = (int64_t)n;
        st = s->failed ? KT_ENOMEM : KT_OK;
    }
    kt_name_match_free(&m.sub);
    free(roots);
    free(g.stack);
    free(g.gpu);
    free(g.seq);
    return st;
}
