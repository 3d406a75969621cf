/*
 * categories.c — what kind of work each CPU op's kernels are: every kernel
 * gets a kernel_category (kernel_category.c) and is attributed to the CPU op
 * that launched it (kernel_launcher.c), as TraceLens issue #428 proposed.
 *
 * The point is ops whose kernels are heterogeneous — above all graph
 * launches, where one cudaGraphLaunch runs GEMMs, attention and elementwise
 * kernels that the op name cannot tell apart.
 *
 * Each rank is mapped to a partial keyed by strings (category_partial.c)
 * and the tables are made from the merged partial, here for the ranks of
 * one trace and by kt_categories_reduce for ranks loaded apart
 * (--stream-ranks, MPI): both print the same bytes.
 */
#include "analysis/common/kernel_category.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/gpu_file_order.h"
#include "analysis/common/kernel_launcher.h"
#include "analysis/common/kernel_names.h"
#include "analysis/kernels/category_partial.h"
#include "model/index.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

void kt_categories_options_init(kt_categories_options *o, size_t size)
{
    const kt_categories_options d = { .memory = 1, .pstep = -1 };
    kt_options_init(o, size, &d, sizeof d);
}

/* Totals of one (launcher, kernel name) pair in one rank. */
typedef struct pair {
    uint64_t launcher;
    uint32_t name;
    uint32_t category;
    uint64_t count;
    int64_t sum; /* ns */
} pair;

/* A pair seen lately: the few pairs of a training step recur step after
 * step, and a direct-mapped table of them spares the two hash lookups.  */
#define RECENT 256
typedef struct recent_pair {
    uint64_t launcher;
    uint32_t name, pair; /* pair UINT32_MAX: an empty entry */
} recent_pair;

typedef struct cscan {
    const kt_trace *t;
    const kt_categories_options *o;
    const kt_categorizer *cats;
    kt_category_cache *cc;
    kt_group_map launchers;   /* launcher key → launcher index */
    kt_group_map pairs;       /* launcher index << 32 | name id → pair, this rank */
    pair *p;
    size_t cap_p;
    kt_launch_memo launch;
    uint64_t last_launcher;   /* the previous event's launcher key, name  */
    uint32_t last_name;       /* and pair: runs of one kernel from one op */
    uint32_t last_pair;       /* are common                               */
    recent_pair recent[RECENT]; /* this rank's pairs seen lately, by hash */
    kt_cpartial *acc;
} cscan;

/* The pair of (launcher key lkey, event ev's name), made on first sight
 * with ev's category; UINT32_MAX without memory.                         */
static uint32_t pair_of(cscan *s, const kt_rank *r, uint32_t ev, uint64_t lkey)
{
    uint32_t l = kt_group_id(&s->launchers, lkey);
    if (l == UINT32_MAX) return UINT32_MAX;
    size_t before = s->pairs.n;
    uint32_t g = kt_group_id(&s->pairs, (uint64_t)l << 32 | r->ev.name[ev]);
    if (g == UINT32_MAX || !kt_grow((void **)&s->p, &s->cap_p, s->pairs.n, sizeof *s->p)) return UINT32_MAX;
    if (s->pairs.n > before)
        s->p[g] = (pair){ .launcher = lkey, .name = r->ev.name[ev], .category = kt_event_category(s->cc, r, ev) };
    return g;
}

/* pair_of through the recent pairs. */
static uint32_t recent_pair_of(cscan *s, const kt_rank *r, uint32_t ev, uint64_t lkey)
{
    uint32_t name = r->ev.name[ev];
    uint64_t h = (lkey ^ (uint64_t)name << 17) * 0x9E3779B97F4A7C15u;
    recent_pair *e = &s->recent[h >> 56]; /* RECENT = 2^8 */
    if (e->pair != UINT32_MAX && e->launcher == lkey && e->name == name) return e->pair;
    uint32_t g = pair_of(s, r, ev, lkey);
    if (g != UINT32_MAX) *e = (recent_pair){ lkey, name, g };
    return g;
}

static bool add_event(cscan *s, const kt_rank *r, uint32_t ev)
{
    uint64_t lkey = kt_launcher_key(s->t, r, ev, &s->launch);
    if (lkey != s->last_launcher || r->ev.name[ev] != s->last_name || s->last_pair == UINT32_MAX) {
        s->last_pair = recent_pair_of(s, r, ev, lkey);
        s->last_launcher = lkey;
        s->last_name = r->ev.name[ev];
    }
    uint32_t g = s->last_pair;
    if (g == UINT32_MAX) return false;
    s->p[g].count++;
    s->p[g].sum = kt_sat_add(s->p[g].sum, r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev]);
    return true;
}

/* The rank's pairs, in order of first sight, into the partial. */
static bool emit_rank(cscan *s)
{
    bool ok = true;
    for (size_t i = 0; ok && i < s->pairs.n; i++) {
        const pair *p = &s->p[i];
        ok = kt_cpartial_add(s->acc, kt_launcher_label(s->t, p->launcher), (uint32_t)kt_launcher_kind(p->launcher),
                             p->name == KT_NONE ? "" : kt_strtab_get(s->t->strs, p->name),
                             kt_category_name(s->cats, p->category), p->category, p->count, p->sum);
    }
    kt_group_map_free(&s->pairs);
    return ok;
}

_Static_assert(KT_K_MEMCPY == KT_K_KERNEL + 1 && KT_K_MEMSET == KT_K_KERNEL + 2, "GPU kinds in one range");

/* Kernels alone (--no-memory). */
static bool is_kernel(void *ctx, const kt_rank *r, uint32_t ev)
{
    (void)ctx;
    return r->ev.kind[ev] == KT_K_KERNEL;
}

/* In file order: a pair's category is its first event's and the pairs go
 * out in order of first sight.                                          */
static bool scan_rank(cscan *s, const kt_rank *r)
{
    if (kt_index_call_tree(r) != KT_OK) return false; /* launcher ops */
    size_t n;
    uint64_t *ev = kt_gpu_events_file_order(r, s->o->memory ? NULL : is_kernel, NULL, &n);
    if (!ev) return false;
    int64_t pstep = s->o->pstep;
    bool ok = true;
    s->last_pair = UINT32_MAX; /* the pairs are the rank's */
    for (size_t i = 0; i < RECENT; i++) s->recent[i].pair = UINT32_MAX;
    for (size_t i = 0; ok && i < n; i++)
        if (pstep < 0 || kt_event_step(r, (uint32_t)ev[i]) == pstep) ok = add_event(s, r, (uint32_t)ev[i]);
    free(ev);
    return ok && emit_rank(s);
}

/* Adds every selected rank of t, in t's rank order, to acc. */
static kt_status map_into(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *o,
                          kt_cpartial *acc)
{
    cscan s = { .t = t, .o = o, .launch = { KT_NONE, false }, .acc = acc };
    kt_categorizer *own = NULL;
    kt_status st = o->categorizer ? KT_OK : kt_categorizer_new(&own);
    s.cats = o->categorizer ? o->categorizer : own;
    s.cc = st == KT_OK ? kt_category_cache_new(s.cats, t->strs) : NULL;
    if (st == KT_OK && !s.cc) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank) && !scan_rank(&s, t->ranks[i])) st = KT_ENOMEM;
    kt_category_cache_free(s.cc);
    kt_group_map_free(&s.launchers);
    kt_group_map_free(&s.pairs);
    free(s.p);
    kt_categorizer_free(own);
    return st;
}

/* ---- aggregation and tables (the reduce) ---------------------------------- */

/* Totals of a (launcher, category) or (category) group. */
typedef struct total {
    uint32_t launcher_idx; /* UINT32_MAX: all launchers (categories) */
    uint32_t category, category_idx;
    uint64_t count;
    int64_t sum;
    int64_t op_sum; /* launcher's total (op_categories order and %) */
} total;

static const char *str(const kt_cpartial *p, uint32_t id)
{
    return kt_strtab_get(p->strs, id);
}

static const char *launcher_label(const kt_cpartial *p, uint32_t li)
{
    return str(p, (uint32_t)p->launchers.keys[li]);
}

/* Ties are broken by the launcher's label and the kernel's name, not by
 * ids: string ids depend on which loader thread interned a string first
 * (and on which ranks a process loaded), so an order by id would differ
 * from one run to the next.                                              */
static int by_launcher_label(const kt_cpartial *p, uint32_t x, uint32_t y)
{
    if (x == y) return 0;
    int c = strcmp(launcher_label(p, x), launcher_label(p, y));
    return c ? c : (int)(p->launchers.keys[x] >> 32) - (int)(p->launchers.keys[y] >> 32);
}

static int by_sum_desc(const void *a, const void *b, void *partial)
{
    const kt_cpair *x = a, *y = b;
    const kt_cpartial *p = partial;
    if (x->sum != y->sum) return (x->sum < y->sum) - (x->sum > y->sum);
    int c = by_launcher_label(p, x->launcher_idx, y->launcher_idx);
    return c ? c : strcmp(str(p, x->name), str(p, y->name));
}

static int by_op_then_sum(const void *a, const void *b, void *partial)
{
    const total *x = a, *y = b;
    if (x->op_sum != y->op_sum) return (x->op_sum < y->op_sum) - (x->op_sum > y->op_sum);
    int c = by_launcher_label(partial, x->launcher_idx, y->launcher_idx);
    if (c) return c;
    if (x->sum != y->sum) return (x->sum < y->sum) - (x->sum > y->sum);
    return (x->category_idx > y->category_idx) - (x->category_idx < y->category_idx);
}

/* Sum pairs into (launcher, category) or (category) groups; returns the
 * group count, SIZE_MAX on allocation failure.                           */
static size_t aggregate(const kt_cpartial *p, bool by_launcher, total **out)
{
    kt_group_map m = { 0 };
    total *t = calloc(p->n + 1, sizeof *t);
    int64_t *op_sum = calloc(p->launchers.n + 1, sizeof *op_sum);
    size_t n = 0;
    bool ok = t && op_sum;
    for (size_t i = 0; ok && i < p->n; i++) {
        const kt_cpair *c = &p->p[i];
        op_sum[c->launcher_idx] = kt_sat_add(op_sum[c->launcher_idx], c->sum);
        uint64_t key = (by_launcher ? (uint64_t)c->launcher_idx << 32 : 0) | c->category_idx;
        uint32_t g = kt_group_id(&m, key);
        if (!(ok = g != UINT32_MAX)) break;
        if (g == n)
            t[n++] = (total){ .launcher_idx = by_launcher ? c->launcher_idx : UINT32_MAX, .category = c->category,
                              .category_idx = c->category_idx };
        t[g].count += c->count;
        t[g].sum = kt_sat_add(t[g].sum, c->sum);
    }
    for (size_t g = 0; ok && g < n; g++) t[g].op_sum = by_launcher ? op_sum[t[g].launcher_idx] : 0;
    kt_group_map_free(&m);
    free(op_sum);
    if (!ok) { free(t); t = NULL; n = 0; }
    *out = t;
    return ok ? n : SIZE_MAX;
}

/* Distinct kernel names of the pairs in display form (short unless
 * full_names), as names[i] for pair i.                                   */
static bool kernel_names(const kt_cpartial *p, bool full_names, char **names)
{
    kt_group_map ids = { 0 };
    size_t n = p->n, k = 0;
    const char **full = malloc((n ? n : 1) * sizeof *full);
    uint32_t *which = malloc((n ? n : 1) * sizeof *which);
    char **shown = calloc(n ? n : 1, sizeof *shown);
    bool ok = full && which && shown;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t id = kt_group_id(&ids, p->p[i].name);
        if (!(ok = id != UINT32_MAX)) break;
        if (id == k) full[k++] = str(p, p->p[i].name);
        which[i] = id;
    }
    if (ok && full_names)
        for (size_t j = 0; ok && j < k; j++) ok = (shown[j] = strdup(full[j])) != NULL;
    else if (ok)
        ok = kt_kernel_display_names(full, k, shown);
    for (size_t i = 0; ok && i < n; i++) ok = (names[i] = strdup(shown[which[i]])) != NULL;
    for (size_t j = 0; shown && j < k; j++) free(shown[j]);
    free(shown);
    free(full);
    free(which);
    kt_group_map_free(&ids);
    return ok;
}

/* The first n pairs; names are made distinct over all pairs, so a kernel
 * is shown the same whatever --top is.                                   */
static kt_table *kernels_table(const kt_cpartial *p, bool full_names, size_t n)
{
    kt_table *tb = kt_table_new("kernels");
    char **names = calloc(p->n ? p->n : 1, sizeof *names);
    if (tb && names && kernel_names(p, full_names, names)) {
        kt_table_add_col(tb, "cpu_op", KT_COL_STR, 0);
        kt_table_add_col(tb, "kernel_category", KT_COL_STR, 0);
        kt_table_add_col(tb, "kernel_name", KT_COL_STR, 0);
        kt_table_add_col(tb, "count", KT_COL_INT, 0);
        kt_table_add_col(tb, "total_time_ms", KT_COL_FLOAT, 6);
        kt_table_add_col(tb, "avg_time_us", KT_COL_FLOAT, 3);
        for (size_t i = 0; i < n; i++) {
            const kt_cpair *c = &p->p[i];
            kt_table_add_row(tb);
            kt_table_set_str(tb, 0, launcher_label(p, c->launcher_idx));
            kt_table_set_str(tb, 1, str(p, c->category));
            kt_table_set_str(tb, 2, names[i]);
            kt_table_set_int(tb, 3, (int64_t)c->count);
            kt_table_set_float(tb, 4, (double)c->sum / 1e6);
            kt_table_set_float(tb, 5, (double)c->sum / 1e3 / (double)c->count);
        }
    } else {
        kt_table_free(tb);
        tb = NULL;
    }
    for (size_t i = 0; names && i < p->n; i++) free(names[i]);
    free(names);
    return tb;
}

/* op_categories (by_launcher) or categories. */
static kt_table *totals_table(const kt_cpartial *p, size_t top, bool by_launcher, int64_t all_sum)
{
    total *t;
    size_t n = aggregate(p, by_launcher, &t);
    kt_table *tb = n == SIZE_MAX ? NULL : kt_table_new(by_launcher ? "op_categories" : "categories");
    if (!tb) { free(t); return NULL; }
    qsort_r(t, n, sizeof *t, by_op_then_sum, (void *)p);
    if (by_launcher && top && top < n) n = top;
    if (by_launcher) kt_table_add_col(tb, "cpu_op", KT_COL_STR, 0);
    kt_table_add_col(tb, "kernel_category", KT_COL_STR, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    kt_table_add_col(tb, "total_time_ms", KT_COL_FLOAT, 6);
    kt_table_add_col(tb, by_launcher ? "% of op time" : "% of kernel time", KT_COL_FLOAT, 2);
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        int64_t whole = by_launcher ? t[i].op_sum : all_sum;
        kt_table_add_row(tb);
        if (by_launcher) kt_table_set_str(tb, c++, launcher_label(p, t[i].launcher_idx));
        kt_table_set_str(tb, c++, str(p, t[i].category));
        kt_table_set_int(tb, c++, (int64_t)t[i].count);
        kt_table_set_float(tb, c++, (double)t[i].sum / 1e6);
        kt_table_set_float(tb, c, whole ? 100.0 * (double)t[i].sum / (double)whole : 0);
    }
    free(t);
    return tb;
}

/* The tables of the merged partial p (freed), or the error st. */
static kt_status finish(kt_cpartial *p, kt_status st, const kt_categories_options *o, kt_tables **out)
{
    int64_t all = 0;
    for (size_t i = 0; i < p->n; i++) all = kt_sat_add(all, p->p[i].sum);
    /* the pair table is sorted for display; totals do not depend on order */
    if (st == KT_OK && p->n) qsort_r(p->p, p->n, sizeof *p->p, by_sum_desc, p);
    size_t n = o->top && o->top < p->n ? o->top : p->n;
    kt_tables *ts = st == KT_OK ? kt_tables_new() : NULL;
    if (st == KT_OK && !(ts && kt_tables_add(ts, kernels_table(p, o->full_names, n)) &&
                         kt_tables_add(ts, totals_table(p, o->top, true, all)) &&
                         kt_tables_add(ts, totals_table(p, o->top, false, all))))
        st = KT_ENOMEM;
    kt_cpartial_free(p);
    if (st != KT_OK) {
        kt_tables_free(ts);
        return st;
    }
    *out = ts;
    return KT_OK;
}

/* A partial made (*p, freed by the caller in any case) and t's selected
 * ranks mapped into it. */
static kt_status map_trace(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *o,
                           kt_cpartial *p)
{
    return kt_cpartial_init(p) ? map_into(t, sel, o, p) : KT_ENOMEM;
}

kt_status kt_categories(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
                        kt_tables **out)
{
    kt_categories_options o = kt_categories_defaults();
    kt_cpartial p = { 0 };
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    return finish(&p, map_trace(t, sel, &o, &p), &o, out);
}

kt_status kt_categories_map(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
                            kt_tables **partial)
{
    kt_categories_options o = kt_categories_defaults();
    kt_cpartial p = { 0 };
    *partial = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_status st = map_trace(t, sel, &o, &p);
    if (st == KT_OK) st = kt_cpartial_to_tables(&p, partial);
    kt_cpartial_free(&p);
    return st;
}

kt_status kt_categories_reduce(const kt_tables *const *partials, size_t n, const kt_categories_options *opt,
                               kt_tables **out)
{
    kt_categories_options o = kt_categories_defaults();
    kt_cpartial p = { 0 };
    *out = NULL;
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_status st = kt_cpartial_init(&p) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) st = kt_cpartial_add_tables(&p, partials[i]);
    return finish(&p, st, &o, out);
}
