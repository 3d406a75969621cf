/*
 * hta_nesting.c — see hta_nesting.h.
 */
#include "analysis/structure/hta_nesting.h"
#include "analysis/common/np_sort.h"
#include "analysis/common/py_sort.h"

#include <stdlib.h>

/* One thread's endpoints: opens then closes of its rows in file order. */
typedef struct endpoints {
    const kt_events *e;
    uint32_t *node;  /* node of each endpoint (index into tr->node)   */
    uint32_t *ev;    /* its event: HTA's "index"                       */
    int64_t *dur;    /* clamped at 0                                   */
    int64_t *time;   /* ts (open) or ts + dur (close)                  */
    uint32_t *order; /* endpoint numbers being sorted                  */
    size_t rows;     /* endpoint k < rows is an open                   */
} endpoints;

static bool is_open(const endpoints *p, uint32_t x) { return x < p->rows; }

/* trace_call_stack._cmp_events_with_zero_duration */
static bool zero_less(const endpoints *p, uint32_t x, uint32_t y)
{
    if (p->dur[x] == 0 && p->dur[y] > 0) return !is_open(p, y);
    if (p->dur[x] > 0 && p->dur[y] == 0) return is_open(p, x);
    if (is_open(p, x) && is_open(p, y)) return p->ev[x] < p->ev[y];
    if (!is_open(p, x) && !is_open(p, y)) return p->ev[x] > p->ev[y];
    return is_open(p, x);
}

/* trace_call_stack._less_than */
static bool hta_less(void *ctx, uint32_t x, uint32_t y)
{
    const endpoints *p = ctx;
    if (p->time[x] != p->time[y]) return p->time[x] < p->time[y];
    if (p->ev[x] == p->ev[y]) return is_open(p, x);
    if (p->dur[x] == 0 || p->dur[y] == 0) return zero_less(p, x, y);
    bool ox = is_open(p, x), oy = is_open(p, y);
    if (!ox && oy) return true;
    if (ox && !oy) return false;
    if (p->dur[x] != p->dur[y]) return ox ? p->dur[x] > p->dur[y] : p->dur[x] < p->dur[y];
    return ox ? p->ev[x] < p->ev[y] : p->ev[x] > p->ev[y];
}

static int by_event(const void *a, const void *b, void *tr_)
{
    const kt_op_tree *tr = tr_;
    uint32_t x = tr->node[*(const uint32_t *)a], y = tr->node[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* Endpoints of nodes run[0..m), in HTA's melt order. */
static void melt(const kt_op_tree *tr, uint32_t *run, size_t m, endpoints *p)
{
    qsort_r(run, m, sizeof *run, by_event, (void *)tr);
    p->rows = m;
    for (size_t i = 0; i < 2 * m; i++) {
        uint32_t k = run[i % m], ev = tr->node[k];
        int64_t dur = p->e->dur[ev] > 0 ? p->e->dur[ev] : 0;
        p->node[i] = k;
        p->ev[i] = ev;
        p->dur[i] = dur;
        p->time[i] = p->e->ts[ev] + (i < m ? 0 : dur);
        p->order[i] = (uint32_t)i;
    }
}

static bool nest_thread(kt_op_tree *tr, uint32_t *run, size_t m, endpoints *p, uint32_t *stack)
{
    melt(tr, run, m, p);
    kt_np_argsort_i64(p->time, p->order, 2 * m);
    if (!kt_py_sort(p->order, 2 * m, hta_less, p)) return false;
    size_t sp = 0;
    for (size_t i = 0; i < 2 * m; i++) {
        uint32_t x = p->order[i];
        if (is_open(p, x)) {
            tr->parent[p->node[x]] = sp ? stack[sp - 1] : KT_NONE;
            stack[sp++] = p->node[x];
        } else if (sp) {
            sp--;
        }
    }
    return true;
}

bool kt_hta_link_parents(kt_op_tree *tr)
{
    size_t n = tr->n ? tr->n : 1;
    endpoints p = { .e = &tr->r->ev };
    p.node = malloc(2 * n * sizeof *p.node);
    p.ev = malloc(2 * n * sizeof *p.ev);
    p.dur = malloc(2 * n * sizeof *p.dur);
    p.time = malloc(2 * n * sizeof *p.time);
    p.order = malloc(2 * n * sizeof *p.order);
    uint32_t *run = malloc(n * sizeof *run), *stack = malloc(n * sizeof *stack);
    bool ok = p.node && p.ev && p.dur && p.time && p.order && run && stack;
    const kt_events *e = p.e;
    for (size_t k = 0; ok && k < tr->n;) {
        size_t m = 0;
        int32_t pid = kt_ev_pid(e, tr->node[k]), tid = kt_ev_tid(e, tr->node[k]);
        for (; k < tr->n && kt_ev_pid(e, tr->node[k]) == pid && kt_ev_tid(e, tr->node[k]) == tid; k++) run[m++] = (uint32_t)k;
        ok = nest_thread(tr, run, m, &p, stack);
    }
    free(p.node);
    free(p.ev);
    free(p.dur);
    free(p.time);
    free(p.order);
    free(run);
    free(stack);
    return ok;
}
