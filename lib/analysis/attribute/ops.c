/*
 * ops.c — `kineta ops`: which kernels each ATen op launches, and how long
 * the launches wait (HTA get_aten_op_kernels_and_delay, spec A4.6).
 *
 * For every launch call, its wrapping aten:: op; per op instance, the
 * sequence of kernels its launches ran, the delay from the op's start to
 * its first launch call and from that call to its first GPU event; then
 * per (op name, kernel sequence) the count and mean delays.
 *
 * Differences from HTA, each a bug or limit of HTA's (docs/attribution.md):
 * every launch API counts (HTA knows only CUDA kernel launches and raises
 * KeyError on ROCm and Triton traces); the wrapping op is the innermost
 * aten:: op around the call on the call's own thread (HTA takes the latest
 * starting aten:: op on any thread that encloses the call, which can be
 * another thread's op); graph launches contribute all their kernels; ranks
 * are never accumulated into each other's tables.  hta_compat reproduces
 * HTA's launch names and wrapping rule.  Each rank is one map; the table is
 * the concatenation of their rows.
 */
#include "analysis/common/launch_api.h"
#include "analysis/common/np_sort.h"
#include "analysis/common/stats.h"
#include "model/index.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

/* Per-name memo of a string test (0 unknown, 1 yes, 2 no). */
typedef struct name_memo {
    uint8_t *v;
    const kt_strtab *strs;
    bool (*test)(const char *);
} name_memo;

static bool memo_is(name_memo *m, uint32_t name)
{
    if (name == KT_NONE) return false;
    if (!m->v[name]) m->v[name] = m->test(kt_strtab_get(m->strs, name)) ? 1 : 2;
    return m->v[name] == 1;
}

static bool is_aten(const char *s) { return kt_starts_with(s, "aten::"); }

/* One launch with its wrapping op and first GPU event. */
typedef struct rec {
    uint32_t op, call, gpu;
} rec;

/* One row: an op name and a kernel sequence (name ids in the pool). */
typedef struct group {
    uint32_t name;
    size_t seq, nseq;
    uint64_t count;
    int64_t aten_ns, runtime_ns; /* sums of the first delays */
    char *text;                  /* the joined sequence, for output */
} group;

typedef struct ops_rank {
    const kt_trace *t;
    const kt_rank *r;
    name_memo launch, aten;
    rec *recs;
    size_t nrecs;
    uint64_t no_gpu, no_op, launches;
    uint32_t *pool;   /* kernel name ids of every group's sequence */
    size_t npool, cap_pool;
    group *g;
    size_t ng, cap_g;
    uint32_t *slot;   /* hash: group index + 1 */
    size_t nslot;
} ops_rank;

/* ---- the wrapping op ------------------------------------------------------ */

typedef struct aten_index {
    uint32_t *ev; /* aten ops by ts, ties in file order */
    size_t n;
} aten_index;

static int by_ts(const void *a, const void *b, void *ctx)
{
    const kt_events *e = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (e->ts[x] != e->ts[y]) return e->ts[x] < e->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static bool aten_index_build(ops_rank *o, aten_index *ai)
{
    const kt_events *e = &o->r->ev;
    ai->n = 0;
    for (uint32_t i = 0; i < e->n; i++) ai->n += e->ph[i] == 'X' && memo_is(&o->aten, e->name[i]);
    if (!(ai->ev = malloc((ai->n ? ai->n : 1) * sizeof *ai->ev))) return false;
    ai->n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (e->ph[i] == 'X' && memo_is(&o->aten, e->name[i])) ai->ev[ai->n++] = i;
    qsort_r(ai->ev, ai->n, sizeof *ai->ev, by_ts, (void *)e);
    return true;
}

/* HTA: of all aten ops with op.ts <= call.ts and op.end >= call.end, the
 * latest starting; among equal starts the first written (idxmax).       */
static uint32_t hta_wrapping_op(const kt_events *e, const aten_index *ai, uint32_t call)
{
    size_t lo = 0, hi = ai->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->ts[ai->ev[mid]] <= e->ts[call]) lo = mid + 1;
        else hi = mid;
    }
    int64_t end = e->ts[call] + e->dur[call];
    uint32_t found = KT_NONE;
    for (size_t k = lo; k-- > 0;) {
        uint32_t op = ai->ev[k];
        if (found != KT_NONE && e->ts[op] != e->ts[found]) break;
        if (e->ts[op] + e->dur[op] >= end) found = op;
    }
    return found;
}

/* Ours: the innermost aten op above the call in its thread's call tree. */
static uint32_t own_thread_op(ops_rank *o, uint32_t call)
{
    const uint32_t *parent = o->r->idx->parent;
    for (uint32_t p = parent[call]; p != KT_NONE; p = parent[p])
        if (memo_is(&o->aten, o->r->ev.name[p])) return p;
    return KT_NONE;
}

static bool collect_launches(ops_rank *o)
{
    const kt_events *e = &o->r->ev;
    bool compat = o->t->hta_compat;
    aten_index ai = { 0 };
    if (compat ? !aten_index_build(o, &ai) : kt_index_call_tree(o->r) != KT_OK) return false;
    size_t cap = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < e->n; i++) {
        if ((e->kind[i] != KT_K_RUNTIME && e->kind[i] != KT_K_DRIVER) || e->ph[i] != 'X' ||
            !memo_is(&o->launch, e->name[i]))
            continue;
        o->launches++;
        uint32_t op = compat ? hta_wrapping_op(e, &ai, i) : own_thread_op(o, i);
        const uint32_t *gpu;
        size_t ngpu = kt_launched_events(o->r, i, &gpu);
        if (op == KT_NONE) { o->no_op++; continue; }
        if (ngpu == 0) { o->no_gpu++; continue; }
        if (o->nrecs == cap) {
            cap = cap ? 2 * cap : 1024;
            rec *p = realloc(o->recs, cap * sizeof *p);
            if (!(ok = p != NULL)) break;
            o->recs = p;
        }
        o->recs[o->nrecs++] = (rec){ op, i, gpu[0] };
    }
    free(ai.ev);
    return ok;
}

/* ---- op instances → groups -------------------------------------------------- */

/* HTA groups launches by (thread, op name, op start); we by op event.    */
static int by_instance(const void *a, const void *b, void *ctx)
{
    const ops_rank *o = ctx;
    const kt_events *e = &o->r->ev;
    const rec *x = a, *y = b;
    if (o->t->hta_compat) {
        if (kt_ev_tid(e, x->op) != kt_ev_tid(e, y->op)) return kt_ev_tid(e, x->op) < kt_ev_tid(e, y->op) ? -1 : 1;
        if (e->name[x->op] != e->name[y->op]) return e->name[x->op] < e->name[y->op] ? -1 : 1;
        if (e->ts[x->op] != e->ts[y->op]) return e->ts[x->op] < e->ts[y->op] ? -1 : 1;
    } else if (x->op != y->op) {
        return x->op < y->op ? -1 : 1;
    }
    return (x->call > y->call) - (x->call < y->call);
}

static bool same_instance(const ops_rank *o, const rec *x, const rec *y)
{
    return by_instance(&(rec){ x->op, 0, 0 }, &(rec){ y->op, 0, 0 }, (void *)o) == 0;
}

static bool pool_push(ops_rank *o, uint32_t v)
{
    if (o->npool == o->cap_pool) {
        size_t cap = o->cap_pool ? 2 * o->cap_pool : 4096;
        uint32_t *p = realloc(o->pool, cap * sizeof *p);
        if (!p) return false;
        o->pool = p;
        o->cap_pool = cap;
    }
    o->pool[o->npool++] = v;
    return true;
}

/* Kernel names of the instance recs[a..b) appended to the pool. */
static bool push_sequence(ops_rank *o, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        if (o->t->hta_compat) {
            if (!pool_push(o, o->r->ev.name[o->recs[k].gpu])) return false;
            continue;
        }
        const uint32_t *gpu;
        size_t n = kt_launched_events(o->r, o->recs[k].call, &gpu);
        for (size_t j = 0; j < n; j++)
            if (!pool_push(o, o->r->ev.name[gpu[j]])) return false;
    }
    return true;
}

static uint64_t hash_group(uint32_t name, const uint32_t *seq, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ name;
    for (size_t i = 0; i < n; i++) h = (h ^ seq[i]) * 1099511628211ull;
    return h * 0x9e3779b97f4a7c15ull;
}

static bool grow_slots(ops_rank *o)
{
    size_t n = o->nslot ? 2 * o->nslot : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < o->ng; i++) {
        const group *g = &o->g[i];
        size_t h = hash_group(g->name, o->pool + g->seq, g->nseq) & (n - 1);
        while (s[h]) h = (h + 1) & (n - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(o->slot);
    o->slot = s;
    o->nslot = n;
    return true;
}

/* The group of (name, the sequence at the pool's end from seq); a new
 * group keeps the sequence, a found one gives it back to the pool.      */
static group *find_group(ops_rank *o, uint32_t name, size_t seq)
{
    size_t n = o->npool - seq;
    if ((o->ng + 1) * 2 > o->nslot && !grow_slots(o)) return NULL;
    size_t h = hash_group(name, o->pool + seq, n) & (o->nslot - 1);
    for (; o->slot[h]; h = (h + 1) & (o->nslot - 1)) {
        group *g = &o->g[o->slot[h] - 1];
        if (g->name == name && g->nseq == n && !memcmp(o->pool + g->seq, o->pool + seq, n * sizeof *o->pool)) {
            o->npool = seq;
            return g;
        }
    }
    if (o->ng == o->cap_g) {
        size_t cap = o->cap_g ? 2 * o->cap_g : 256;
        group *p = realloc(o->g, cap * sizeof *p);
        if (!p) return NULL;
        o->g = p;
        o->cap_g = cap;
    }
    o->slot[h] = (uint32_t)o->ng + 1;
    o->g[o->ng] = (group){ .name = name, .seq = seq, .nseq = n };
    return &o->g[o->ng++];
}

static bool build_groups(ops_rank *o)
{
    const kt_events *e = &o->r->ev;
    if (o->nrecs) qsort_r(o->recs, o->nrecs, sizeof *o->recs, by_instance, o);
    for (size_t a = 0, b; a < o->nrecs; a = b) {
        for (b = a + 1; b < o->nrecs && same_instance(o, &o->recs[a], &o->recs[b]); b++) {}
        size_t seq = o->npool;
        const rec *first = &o->recs[a];
        group *g = push_sequence(o, a, b) ? find_group(o, e->name[first->op], seq) : NULL;
        if (!g) return false;
        g->count++;
        g->aten_ns += e->ts[first->call] - e->ts[first->op];
        g->runtime_ns += e->ts[first->gpu] - e->ts[first->call];
    }
    return true;
}

/* ---- output ------------------------------------------------------------------ */

static bool join_sequences(ops_rank *o)
{
    for (size_t i = 0; i < o->ng; i++) {
        group *g = &o->g[i];
        size_t len = 1;
        for (size_t k = 0; k < g->nseq; k++) len += kt_strtab_len(o->t->strs, o->pool[g->seq + k]) + 4;
        if (!(g->text = malloc(len))) return false;
        char *p = g->text;
        for (size_t k = 0; k < g->nseq; k++) {
            uint32_t id = o->pool[g->seq + k];
            if (k) {
                memcpy(p, " -> ", 4);
                p += 4;
            }
            size_t l = kt_strtab_len(o->t->strs, id);
            memcpy(p, kt_strtab_get(o->t->strs, id), l);
            p += l;
        }
        *p = '\0';
    }
    return true;
}

static int by_name_text(const void *a, const void *b, void *ctx)
{
    const group *x = a, *y = b;
    int c = strcmp(kt_strtab_get(ctx, x->name), kt_strtab_get(ctx, y->name));
    return c ? c : strcmp(x->text, y->text);
}

/* pandas groupby order (op name, sequence), then sort_values(
 * "occurrence_count", ascending=False): numpy quicksort of the reversed
 * column, reversed.                                                        */
static bool emit_rows(ops_rank *o, kt_table *tb)
{
    if (o->ng) qsort_r(o->g, o->ng, sizeof *o->g, by_name_text, (void *)o->t->strs);
    uint32_t *idx = malloc((o->ng ? o->ng : 1) * sizeof *idx);
    int64_t *count = malloc((o->ng ? o->ng : 1) * sizeof *count);
    if (!idx || !count) { free(idx); free(count); return false; }
    for (size_t i = 0; i < o->ng; i++) {
        idx[i] = (uint32_t)(o->ng - 1 - i);
        count[i] = (int64_t)o->g[i].count;
    }
    kt_np_argsort_i64(count, idx, o->ng);
    for (size_t k = o->ng; k-- > 0;) {
        const group *g = &o->g[idx[k]];
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, kt_strtab_get(o->t->strs, g->name));
        kt_table_set_str(tb, 1, g->text);
        kt_table_set_int(tb, 2, (int64_t)g->count);
        kt_table_set_float(tb, 3, kt_np_round((double)g->aten_ns / 1e3 / (double)g->count, 3));
        kt_table_set_float(tb, 4, kt_np_round((double)g->runtime_ns / 1e3 / (double)g->count, 3));
        kt_table_set_int(tb, 5, o->r->rank);
    }
    free(idx);
    free(count);
    return true;
}

static void ops_rank_free(ops_rank *o)
{
    for (size_t i = 0; i < o->ng; i++) free(o->g[i].text);
    free(o->g);
    free(o->slot);
    free(o->pool);
    free(o->recs);
    free(o->launch.v);
    free(o->aten.v);
}

static bool compat_launch(const char *s) { return kt_is_hta_aten_delay_launch_api(s); }
static bool any_launch(const char *s) { return kt_is_launch_api(s); }

static kt_status one_rank(const kt_trace *t, const kt_rank *r, kt_table *ops, kt_table *unmatched)
{
    size_t nstr = kt_strtab_count(t->strs) + 1;
    ops_rank o = { .t = t, .r = r };
    o.launch = (name_memo){ calloc(nstr, 1), t->strs, t->hta_compat ? compat_launch : any_launch };
    o.aten = (name_memo){ calloc(nstr, 1), t->strs, is_aten };
    bool ok = o.launch.v && o.aten.v && collect_launches(&o) && build_groups(&o) && join_sequences(&o) &&
              emit_rows(&o, ops);
    if (ok) {
        kt_table_add_row(unmatched);
        kt_table_set_int(unmatched, 0, r->rank);
        kt_table_set_int(unmatched, 1, (int64_t)o.launches);
        kt_table_set_int(unmatched, 2, (int64_t)o.no_gpu);
        kt_table_set_int(unmatched, 3, (int64_t)o.no_op);
    }
    ops_rank_free(&o);
    return ok ? KT_OK : KT_ENOMEM;
}

static kt_table *new_table(const char *name, const char *const *cols, const kt_col_type *types, size_t n)
{
    kt_table *tb = kt_table_new(name);
    for (size_t c = 0; tb && c < n; c++) kt_table_add_col(tb, cols[c], types[c], types[c] == KT_COL_FLOAT ? 3 : 0);
    return tb;
}

kt_status kt_ops(const kt_trace *t, const kt_rank_sel *sel, kt_tables **out)
{
    static const char *const ocols[] = { "aten_op_name", "kernel_sequence", "occurrence_count",
                                         "avg_aten_op_launch_delay", "avg_runtime_delay", "rank" };
    static const kt_col_type otypes[] = { KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_FLOAT, KT_COL_FLOAT, KT_COL_INT };
    static const char *const ucols[] = { "rank", "launches", "without_gpu_event", "without_aten_op" };
    static const kt_col_type utypes[] = { KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT };
    kt_table *tb[2] = { new_table("ops", ocols, otypes, 6), new_table("unmatched", ucols, utypes, 4) };
    kt_status s = tb[0] && tb[1] ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = one_rank(t, t->ranks[i], tb[0], tb[1]);
    if (s != KT_OK) {
        kt_table_free(tb[0]);
        kt_table_free(tb[1]);
        *out = NULL;
        return s;
    }
    return kt_tables_from(tb, 2, out);
}
