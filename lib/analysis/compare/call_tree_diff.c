/*
 * call_tree_diff.c — merging two runs' call-path trees (call_tree_diff.h).
 *
 * Map: each run's tree (profile_tree.c).  Reduce: from the roots down,
 * the children of two matched nodes are aligned by normalised name
 * (tree_align.c); matched pairs recurse, and what only one run has is
 * listed with its subtree under the lowest common ancestor, whose GPU time
 * (inclusive, both runs) already holds the difference.  Rows come out in
 * preorder; a node's kernels (per run) go to the "kernels" table.
 */
#include "call_tree_diff.h"
#include "profile_tree.h"
#include "tree_align.h"
#include "table/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_ALIGN_CELLS ((size_t)1 << 22)

typedef struct merger {
    const kt_ptree *t[2];
    kt_table *tree, *kern;
    int64_t rows;
} merger;

enum { C_NODE, C_PARENT, C_DEPTH, C_STATUS, C_NAME, C_TEST_NAME, C_COUNT, C_CPU = C_COUNT + 2,
       C_GPU = C_CPU + 2, C_DELTA = C_GPU + 2, C_DELTA_PCT };

static kt_table *tree_table(const char *cl, const char *tl)
{
    kt_table *tb = kt_table_new("tree");
    char col[256];
    kt_table_add_col(tb, "node", KT_COL_INT, 0);
    kt_table_add_col(tb, "parent", KT_COL_INT, 0);
    kt_table_add_col(tb, "depth", KT_COL_INT, 0);
    kt_table_add_col(tb, "status", KT_COL_STR, 0);
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    kt_table_add_col(tb, "test_name", KT_COL_STR, 0);
    static const char *const what[] = { "count", "cpu_us", "gpu_us" };
    for (size_t w = 0; w < 3; w++)
        for (int s = 0; s < 2; s++) {
            snprintf(col, sizeof col, "%s_%s", s ? tl : cl, what[w]);
            kt_table_add_col(tb, col, w ? KT_COL_FLOAT : KT_COL_INT, 3);
        }
    kt_table_add_col(tb, "delta_gpu_us", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "delta_gpu_pct", KT_COL_FLOAT, 2);
    return tb;
}

static kt_table *kernels_table(void)
{
    kt_table *tb = kt_table_new("kernels");
    kt_table_add_col(tb, "node", KT_COL_INT, 0);
    kt_table_add_col(tb, "side", KT_COL_STR, 0);
    kt_table_add_col(tb, "kernel", KT_COL_STR, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    kt_table_add_col(tb, "time_us", KT_COL_FLOAT, 3);
    return tb;
}

static const char *node_name(const kt_ptree *t, uint32_t n)
{
    uint32_t name = t->node[n].name;
    if (n == 0) return "(root)";
    return name == KT_NONE ? "" : kt_strtab_get(t->side->t->strs, name);
}

static void kernel_rows(merger *m, int side, uint32_t n, int64_t row)
{
    const kt_ptree *t = m->t[side];
    size_t lo = 0, hi = t->nkern;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->kern[mid].node < n) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k < t->nkern && t->kern[k].node == n; k++) {
        kt_table_add_row(m->kern);
        kt_table_set_int(m->kern, 0, row);
        kt_table_set_str(m->kern, 1, t->side->label);
        kt_table_set_str(m->kern, 2, kt_strtab_get(t->side->t->strs, t->kern[k].name));
        kt_table_set_int(m->kern, 3, (int64_t)t->kern[k].count);
        kt_table_set_float(m->kern, 4, (double)t->kern[k].dur / 1000.0);
    }
}

/* One merged node's row (n[s] = KT_NONE where run s lacks it). */
static int64_t emit(merger *m, const uint32_t n[2], int64_t parent, int64_t depth)
{
    kt_table *tb = m->tree;
    int64_t row = m->rows++;
    bool both = n[0] != KT_NONE && n[1] != KT_NONE;
    kt_table_add_row(tb);
    kt_table_set_int(tb, C_NODE, row);
    if (parent >= 0) kt_table_set_int(tb, C_PARENT, parent);
    kt_table_set_int(tb, C_DEPTH, depth);
    kt_table_set_str(tb, C_STATUS, both ? "matched" : n[0] != KT_NONE ? "only-control" : "only-test");
    kt_table_set_str(tb, C_NAME, n[0] != KT_NONE ? node_name(m->t[0], n[0]) : node_name(m->t[1], n[1]));
    if (both) kt_table_set_str(tb, C_TEST_NAME, node_name(m->t[1], n[1]));
    double gpu[2];
    for (int s = 0; s < 2; s++) {
        const kt_ptree_node *x = n[s] != KT_NONE ? &m->t[s]->node[n[s]] : NULL;
        gpu[s] = x ? (double)x->gpu_ns / 1000.0 : 0.0;
        kt_table_set_int(tb, C_COUNT + s, x ? (int64_t)x->count : 0);
        kt_table_set_float(tb, C_CPU + s, x ? (double)x->cpu_ns / 1000.0 : 0.0);
        kt_table_set_float(tb, C_GPU + s, gpu[s]);
    }
    kt_table_set_float(tb, C_DELTA, gpu[1] - gpu[0]);
    kt_table_set_float(tb, C_DELTA_PCT, gpu[0] > 0 ? 100.0 * (gpu[1] - gpu[0]) / gpu[0] : NAN);
    for (int s = 0; s < 2; s++)
        if (n[s] != KT_NONE) kernel_rows(m, s, n[s], row);
    return row;
}

/* Work still to emit: a merged node (n[s] = KT_NONE where run s lacks it)
 * under row parent.  An explicit stack, not recursion: a hostile trace can
 * nest calls a million deep.                                              */
typedef struct work {
    uint32_t n[2];
    int64_t parent, depth;
} work;

typedef struct work_stack {
    work *v;
    size_t n, cap;
} work_stack;

static bool push(work_stack *st, uint32_t c, uint32_t t, int64_t parent, int64_t depth)
{
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 256;
        work *p = realloc(st->v, cap * sizeof *p);
        if (!p) return false;
        st->v = p;
        st->cap = cap;
    }
    st->v[st->n++] = (work){ { c, t }, parent, depth };
    return true;
}

/* The children's norm ids of node n (nchild entries). */
static uint32_t *child_names(const kt_ptree *t, uint32_t n)
{
    const kt_ptree_node *x = &t->node[n];
    uint32_t *v = malloc((x->nchild ? x->nchild : 1) * sizeof *v);
    for (uint32_t i = 0; v && i < x->nchild; i++) v[i] = t->node[t->child[x->child0 + i]].norm;
    return v;
}

/* Children of two matched nodes, aligned, pushed last-first (so that they
 * pop in alignment order).                                                */
static bool push_aligned(merger *m, work_stack *st, const work *w, int64_t row)
{
    const kt_ptree_node *c = &m->t[0]->node[w->n[0]], *t = &m->t[1]->node[w->n[1]];
    uint32_t *a = child_names(m->t[0], w->n[0]), *b = child_names(m->t[1], w->n[1]);
    kt_align_step *steps = malloc((c->nchild + t->nchild + 1) * sizeof *steps);
    size_t ns = a && b && steps ? kt_align_names(a, c->nchild, b, t->nchild, MAX_ALIGN_CELLS, steps) : (size_t)-1;
    bool ok = ns != (size_t)-1;
    for (size_t k = ns; ok && k-- > 0;)
        ok = push(st, steps[k].a == KT_ALIGN_GAP ? KT_NONE : m->t[0]->child[c->child0 + steps[k].a],
                  steps[k].b == KT_ALIGN_GAP ? KT_NONE : m->t[1]->child[t->child0 + steps[k].b], row, w->depth + 1);
    free(a);
    free(b);
    free(steps);
    return ok;
}

/* Children of a node only run s has. */
static bool push_one_side(merger *m, work_stack *st, const work *w, int64_t row)
{
    int s = w->n[0] != KT_NONE ? 0 : 1;
    const kt_ptree *t = m->t[s];
    const kt_ptree_node *x = &t->node[w->n[s]];
    for (uint32_t i = x->nchild; i-- > 0;) {
        uint32_t child = t->child[x->child0 + i];
        if (!push(st, s ? KT_NONE : child, s ? child : KT_NONE, row, w->depth + 1)) return false;
    }
    return true;
}

static kt_status merge(merger *m)
{
    work_stack st = { 0 };
    bool ok = push(&st, 0, 0, -1, 0);
    while (ok && st.n) {
        work w = st.v[--st.n];
        int64_t row = emit(m, w.n, w.parent, w.depth);
        ok = w.n[0] != KT_NONE && w.n[1] != KT_NONE ? push_aligned(m, &st, &w, row) : push_one_side(m, &st, &w, row);
    }
    free(st.v);
    return ok ? KT_OK : KT_ENOMEM;
}

kt_status kt_diff_call_trees(const kt_diff_side *control, const kt_diff_side *test, kt_table **tree,
                             kt_table **kernels)
{
    kt_ptree t[2] = { { 0 }, { 0 } };
    kt_strtab *norm = kt_strtab_new();
    kt_status st = norm ? kt_ptree_build(control, norm, &t[0]) : KT_ENOMEM;
    if (st == KT_OK) st = kt_ptree_build(test, norm, &t[1]);
    if (st == KT_OK) {
        merger m = { .t = { &t[0], &t[1] }, .tree = tree_table(control->label, test->label),
                     .kern = kernels_table() };
        st = merge(&m);
        *tree = m.tree;
        *kernels = m.kern;
    }
    kt_ptree_free(&t[0]);
    kt_ptree_free(&t[1]);
    kt_strtab_free(norm);
    return st;
}
