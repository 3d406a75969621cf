/*
 * profile_tree.c — one run's call-path tree with GPU time (profile_tree.h).
 *
 * Each selected call finds its node by walking up the model's call tree
 * (index.h: parents on the same thread) to the first call that already has
 * one, then adding nodes on the way down: (parent node, normalised name)
 * identifies a node, so every call path is folded once.  Ancestors outside
 * the iteration cut the path (the call hangs under the root).  A GPU event
 * adds its time to the node of the call that launched it; its kernel row
 * goes to that call's enclosing node (the op that asked for it).
 */
#include "profile_tree.h"
#include "op_name_norm.h"
#include "model/i64map.h"
#include "analysis/common/sat_math.h"

#include <stdlib.h>
#include <string.h>

typedef struct builder {
    const kt_diff_side *s;
    kt_strtab *norm;
    uint32_t *norm_of_name; /* per name id of the run, KT_NONE = not yet */
    uint8_t *sel;           /* per event: selected                        */
    uint32_t *memo;         /* per event: its node, KT_NONE = not yet     */
    kt_i64map nodes;        /* parent << 32 | norm → node                 */
    kt_i64map kmap;         /* node << 32 | kernel name → kernel row      */
    kt_ptree *out;
    size_t node_cap, kern_cap;
    uint32_t *chain;
    size_t nchain, chain_cap;
    uint32_t step_node;     /* the iteration's ProfilerStep node, or 0    */
} builder;

static bool member(const kt_events *e, uint32_t i)
{
    uint8_t k = e->kind[i];
    return e->dur[i] >= 0 && (k == KT_K_CPU_OP || k == KT_K_USER_ANNOTATION || k == KT_K_RUNTIME || k == KT_K_DRIVER);
}

static uint32_t norm_id(builder *b, uint32_t ev)
{
    const kt_rank *r = b->s->r;
    uint32_t name = r->ev.name[ev];
    if (name == KT_NONE) return kt_strtab_intern(b->norm, "", 0);
    if (b->norm_of_name[name] == KT_NONE) {
        const char *s = kt_strtab_get(b->s->t->strs, name);
        size_t cap = strlen(s) + 1;
        char *buf = malloc(cap);
        if (!buf) return KT_NONE;
        bool call = r->ev.kind[ev] == KT_K_RUNTIME || r->ev.kind[ev] == KT_K_DRIVER;
        kt_norm_op_name(s, call, buf, cap);
        b->norm_of_name[name] = kt_strtab_intern(b->norm, buf, strlen(buf));
        free(buf);
    }
    return b->norm_of_name[name];
}

static bool add_node(builder *b, uint32_t parent, uint32_t norm, uint32_t name, int64_t ts)
{
    kt_ptree *t = b->out;
    if (t->n == b->node_cap) return false;
    t->node[t->n++] = (kt_ptree_node){ .parent = parent, .norm = norm, .name = name, .first_ts = ts };
    return true;
}

/* The node of call ev under node parent, its count and time added. */
static uint32_t add_call(builder *b, uint32_t parent, uint32_t ev)
{
    uint32_t norm = norm_id(b, ev);
    if (norm == KT_NONE) return KT_NONE;
    int64_t ts, dur;
    kt_diff_side_time(b->s, ev, &ts, &dur);
    uint32_t *slot = kt_i64map_slot(&b->nodes, (int64_t)((uint64_t)parent << 32 | norm), KT_NONE);
    if (*slot == KT_NONE) {
        if (!add_node(b, parent, norm, b->s->r->ev.name[ev], ts)) return KT_NONE;
        *slot = (uint32_t)(b->out->n - 1);
    }
    kt_ptree_node *n = &b->out->node[*slot];
    n->count++;
    n->cpu_ns = kt_sat_add(n->cpu_ns, dur);
    if (ts < n->first_ts) n->first_ts = ts;
    return *slot;
}

/* The enclosing call that is a node (python functions skipped), or
 * KT_NONE at a root or where the iteration ends.                          */
static uint32_t node_parent(const builder *b, uint32_t ev)
{
    const kt_rank *r = b->s->r;
    uint32_t p = r->idx->parent[ev];
    while (p != KT_NONE && r->ev.kind[p] == KT_K_PYTHON_FUNCTION) p = r->idx->parent[p];
    return p != KT_NONE && b->sel[p] && member(&r->ev, p) ? p : KT_NONE;
}

static bool push_chain(builder *b, uint32_t ev)
{
    if (b->nchain == b->chain_cap) {
        size_t cap = b->chain_cap ? 2 * b->chain_cap : 64;
        uint32_t *p = realloc(b->chain, cap * sizeof *p);
        if (!p) return false;
        b->chain = p;
        b->chain_cap = cap;
    }
    b->chain[b->nchain++] = ev;
    return true;
}

static uint32_t node_of(builder *b, uint32_t ev)
{
    uint32_t cur = ev;
    b->nchain = 0;
    while (cur != KT_NONE && b->memo[cur] == KT_NONE) {
        if (!push_chain(b, cur)) return KT_NONE;
        cur = node_parent(b, cur);
    }
    uint32_t node = cur == KT_NONE ? b->step_node : b->memo[cur];
    while (b->nchain && node != KT_NONE) {
        uint32_t e = b->chain[--b->nchain];
        node = add_call(b, node, e);
        b->memo[e] = node;
    }
    return node;
}

static bool add_kernel(builder *b, uint32_t node, uint32_t name, int64_t dur)
{
    kt_ptree *t = b->out;
    uint32_t *slot = kt_i64map_slot(&b->kmap, (int64_t)((uint64_t)node << 32 | name), KT_NONE);
    if (*slot == KT_NONE) {
        if (t->nkern == b->kern_cap) return false;
        t->kern[t->nkern++] = (kt_ptree_kernel){ .node = node, .name = name };
        *slot = (uint32_t)(t->nkern - 1);
    }
    t->kern[*slot].count++;
    t->kern[*slot].dur = kt_sat_add(t->kern[*slot].dur, dur);
    return true;
}

/* A GPU event's time on its launching call's node; its kernel row on the
 * call's enclosing node.  Unlinked work counts at the root.               */
static bool add_gpu(builder *b, uint32_t ev)
{
    const kt_rank *r = b->s->r;
    int64_t ts, dur;
    kt_diff_side_time(b->s, ev, &ts, &dur);
    uint32_t rt = kt_gpu_launcher(r, ev), call = 0, owner = 0;
    if (rt != KT_NONE && member(&r->ev, rt)) {
        call = node_of(b, rt);
        if (call == KT_NONE) return false;
        owner = call && b->out->node[call].parent ? b->out->node[call].parent : call;
    }
    b->out->node[call].gpu_ns = kt_sat_add(b->out->node[call].gpu_ns, dur);
    b->out->gpu_total_ns = kt_sat_add(b->out->gpu_total_ns, dur);
    return r->ev.name[ev] == KT_NONE || add_kernel(b, owner, r->ev.name[ev], dur);
}

typedef struct child_key {
    uint32_t parent;
    int64_t ts;
    uint32_t id;
} child_key;

static int by_parent_ts(const void *x, const void *y)
{
    const child_key *a = x, *c = y;
    if (a->parent != c->parent) return a->parent < c->parent ? -1 : 1;
    if (a->ts != c->ts) return a->ts < c->ts ? -1 : 1;
    return a->id < c->id ? -1 : a->id > c->id;
}

static int by_node_time(const void *x, const void *y)
{
    const kt_ptree_kernel *a = x, *c = y;
    if (a->node != c->node) return a->node < c->node ? -1 : 1;
    if (a->dur != c->dur) return a->dur > c->dur ? -1 : 1;
    return a->name < c->name ? -1 : a->name > c->name;
}

/* Inclusive GPU time (a node's parent has a smaller id), the root's CPU
 * time, the children lists and the kernel rows' order.                    */
static bool finish(kt_ptree *t)
{
    for (size_t i = t->n; i-- > 1;) {
        kt_ptree_node *p = &t->node[t->node[i].parent];
        p->gpu_ns = kt_sat_add(p->gpu_ns, t->node[i].gpu_ns);
    }
    child_key *k = malloc((t->n ? t->n : 1) * sizeof *k);
    t->child = malloc((t->n ? t->n : 1) * sizeof *t->child);
    if (!k || !t->child) {
        free(k);
        return false;
    }
    for (size_t i = 1; i < t->n; i++) {
        k[i - 1] = (child_key){ t->node[i].parent, t->node[i].first_ts, (uint32_t)i };
        if (t->node[i].parent == 0) t->node[0].cpu_ns = kt_sat_add(t->node[0].cpu_ns, t->node[i].cpu_ns);
    }
    qsort(k, t->n - 1, sizeof *k, by_parent_ts);
    for (size_t i = 0; i + 1 < t->n; i++) {
        kt_ptree_node *p = &t->node[k[i].parent];
        if (!p->nchild) p->child0 = (uint32_t)i;
        p->nchild++;
        t->child[i] = k[i].id;
    }
    free(k);
    qsort(t->kern, t->nkern, sizeof *t->kern, by_node_time);
    return true;
}

static kt_status prepare(builder *b)
{
    const kt_rank *r = b->s->r;
    size_t members = 0, gpu = 0, names = kt_strtab_count(b->s->t->strs);
    b->sel = calloc(r->ev.n ? r->ev.n : 1, 1);
    b->memo = malloc((r->ev.n ? r->ev.n : 1) * sizeof *b->memo);
    b->norm_of_name = malloc((names ? names : 1) * sizeof *b->norm_of_name);
    if (!b->sel || !b->memo || !b->norm_of_name) return KT_ENOMEM;
    memset(b->memo, 0xff, (r->ev.n ? r->ev.n : 1) * sizeof *b->memo);
    memset(b->norm_of_name, 0xff, (names ? names : 1) * sizeof *b->norm_of_name);
    for (size_t k = 0; k < b->s->n; k++) {
        uint32_t ev = b->s->ev[k];
        b->sel[ev] = 1;
        members += member(&r->ev, ev);
        gpu += kt_kind_is_gpu(r->ev.kind[ev]);
    }
    b->node_cap = members + gpu + 1; /* launch calls outside the iteration too */
    b->kern_cap = gpu + 1;
    b->out->node = malloc(b->node_cap * sizeof *b->out->node);
    b->out->kern = malloc(b->kern_cap * sizeof *b->out->kern);
    if (!b->out->node || !b->out->kern || !kt_i64map_init(&b->nodes, b->node_cap) ||
        !kt_i64map_init(&b->kmap, b->kern_cap))
        return KT_ENOMEM;
    uint32_t root = kt_strtab_intern(b->norm, "(root)", 6);
    if (root == KT_NONE || !add_node(b, KT_NONE, root, KT_NONE, INT64_MIN)) return KT_ENOMEM;
    b->out->node[0].count = 1;
    return KT_OK;
}

/* The CPU ProfilerStep annotation of the iteration, or KT_NONE. */
static uint32_t step_event(const builder *b)
{
    const kt_index *idx = b->s->r->idx;
    for (size_t k = 0; b->s->step >= 0 && k < idx->ncpu_steps; k++)
        if (idx->cpu_steps[k].num == b->s->step && b->sel[idx->cpu_steps[k].ev]) return idx->cpu_steps[k].ev;
    return KT_NONE;
}

/* Calls of the iteration that the call tree leaves without an enclosing
 * call (other threads, or a ProfilerStep annotation left out of its
 * thread's stack because a Python frame overlaps it) hang under the step. */
static bool root_at_step(builder *b)
{
    uint32_t ev = step_event(b);
    if (ev == KT_NONE || !member(&b->s->r->ev, ev)) return true;
    b->step_node = add_call(b, 0, ev);
    b->memo[ev] = b->step_node;
    return b->step_node != KT_NONE;
}

static kt_status fold_events(builder *b)
{
    const kt_rank *r = b->s->r;
    if (!root_at_step(b)) return KT_ENOMEM;
    for (size_t k = 0; k < b->s->n; k++) {
        uint32_t ev = b->s->ev[k];
        if (member(&r->ev, ev) && node_of(b, ev) == KT_NONE) return KT_ENOMEM;
    }
    for (size_t k = 0; k < b->s->n; k++)
        if (kt_kind_is_gpu(r->ev.kind[b->s->ev[k]]) && !add_gpu(b, b->s->ev[k])) return KT_ENOMEM;
    return finish(b->out) ? KT_OK : KT_ENOMEM;
}

kt_status kt_ptree_build(const kt_diff_side *s, kt_strtab *norm, kt_ptree *out)
{
    *out = (kt_ptree){ .side = s };
    kt_status st = kt_index_call_tree(s->r);
    if (st != KT_OK) return st;
    builder b = { .s = s, .norm = norm, .out = out };
    st = prepare(&b);
    if (st == KT_OK) st = fold_events(&b);
    free(b.sel);
    free(b.memo);
    free(b.norm_of_name);
    free(b.chain);
    kt_i64map_free(&b.nodes);
    kt_i64map_free(&b.kmap);
    if (st != KT_OK) kt_ptree_free(out);
    return st;
}

void kt_ptree_free(kt_ptree *t)
{
    free(t->node);
    free(t->child);
    free(t->kern);
    *t = (kt_ptree){ 0 };
}
