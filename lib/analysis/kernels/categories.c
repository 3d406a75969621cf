/*
 * categories.c — what kind of work each CPU op's kernels are: every kernel
 * gets a kernel_category (kernel_category.c) and is attributed to the CPU op
 * that launched it (kernel_launcher.c), as TraceLens issue #428 proposed.
 *
 * The point is ops whose kernels are heterogeneous — above all graph
 * launches, where one cudaGraphLaunch runs GEMMs, attention and elementwise
 * kernels that the op name cannot tell apart.
 */
#include "analysis/common/kernel_category.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/kernel_launcher.h"
#include "analysis/common/kernel_names.h"
#include "analysis/kernels/kernel_stats.h"
#include "model/index.h"
#include "output/table.h"

#include <stdlib.h>
#include <string.h>

kt_categories_options kt_categories_defaults(void)
{
    return (kt_categories_options){ .memory = 1, .pstep = -1 };
}

/* Totals of one (launcher, kernel name) pair. */
typedef struct pair {
    uint64_t launcher;
    uint32_t name;
    uint32_t category;
    uint64_t count;
    int64_t sum; /* ns */
} pair;

typedef struct cscan {
    const kt_trace *t;
    kt_categories_options o;
    const kt_categorizer *cats;
    kt_category_cache *cc;
    kt_group_map launchers;   /* launcher key → launcher index */
    kt_group_map pairs;       /* launcher index << 32 | name id → pair */
    pair *p;
    size_t cap_p;
    kt_launch_memo launch;
} cscan;

static bool add_event(cscan *s, const kt_rank *r, uint32_t ev)
{
    uint32_t cat = kt_event_category(s->cc, r, ev);
    uint64_t lkey = kt_launcher_key(s->t, r, ev, &s->launch);
    uint32_t l = kt_group_id(&s->launchers, lkey);
    if (l == UINT32_MAX) return false;
    size_t before = s->pairs.n;
    uint32_t g = kt_group_id(&s->pairs, (uint64_t)l << 32 | r->ev.name[ev]);
    if (g == UINT32_MAX || !kt_grow((void **)&s->p, &s->cap_p, s->pairs.n, sizeof *s->p)) return false;
    if (s->pairs.n > before) s->p[g] = (pair){ .launcher = lkey, .name = r->ev.name[ev], .category = cat };
    s->p[g].count++;
    s->p[g].sum = kt_sat_add(s->p[g].sum, r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev]);
    return true;
}

static bool scan_rank(cscan *s, const kt_rank *r)
{
    if (kt_index_call_tree(r) != KT_OK) return false; /* launcher ops */
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint8_t k = r->ev.kind[ev];
        if (k != KT_K_KERNEL && !(s->o.memory && (k == KT_K_MEMCPY || k == KT_K_MEMSET))) continue;
        if (s->o.pstep >= 0 && kt_event_step(r, ev) != s->o.pstep) continue;
        if (!add_event(s, r, ev)) return false;
    }
    return true;
}

/* ---- aggregation and tables ----------------------------------------------- */

/* Totals of a (launcher, category) or (category) group. */
typedef struct total {
    uint64_t launcher;
    uint32_t category;
    uint64_t count;
    int64_t sum;
    int64_t op_sum; /* launcher's total (op_categories order and %) */
} total;

/* Ties are broken by the launcher's label and the kernel's name, not by
 * their ids: string ids depend on which loader thread interned a string
 * first, so an order by id would differ from one run to the next.        */
static int by_launcher_label(const kt_trace *t, uint64_t x, uint64_t y)
{
    if (x == y) return 0;
    int c = strcmp(kt_launcher_label(t, x), kt_launcher_label(t, y));
    return c ? c : (int)kt_launcher_kind(x) - (int)kt_launcher_kind(y);
}

static int by_sum_desc(const void *a, const void *b, void *trace)
{
    const pair *x = a, *y = b;
    const kt_trace *t = trace;
    if (x->sum != y->sum) return (x->sum < y->sum) - (x->sum > y->sum);
    int c = by_launcher_label(t, x->launcher, y->launcher);
    return c ? c : strcmp(kt_strtab_get(t->strs, x->name), kt_strtab_get(t->strs, y->name));
}

static int by_op_then_sum(const void *a, const void *b, void *trace)
{
    const total *x = a, *y = b;
    if (x->op_sum != y->op_sum) return (x->op_sum < y->op_sum) - (x->op_sum > y->op_sum);
    int c = by_launcher_label(trace, x->launcher, y->launcher);
    if (c) return c;
    if (x->sum != y->sum) return (x->sum < y->sum) - (x->sum > y->sum);
    return (x->category > y->category) - (x->category < y->category);
}

/* Sum pairs into groups keyed by key(pair); returns the group count. */
static size_t aggregate(const cscan *s, bool by_launcher, total **out)
{
    kt_group_map m = { 0 };
    total *t = calloc(s->pairs.n + 1, sizeof *t);
    int64_t *op_sum = calloc(s->launchers.n + 1, sizeof *op_sum);
    size_t n = 0;
    bool ok = t && op_sum;
    for (size_t i = 0; ok && i < s->pairs.n; i++) {
        uint32_t l = kt_group_find(&s->launchers, s->p[i].launcher);
        op_sum[l] = kt_sat_add(op_sum[l], s->p[i].sum);
        uint64_t key = (by_launcher ? (uint64_t)l << 32 : 0) | s->p[i].category;
        uint32_t g = kt_group_id(&m, key);
        if (!(ok = g != UINT32_MAX)) break;
        if (g == n) t[n++] = (total){ .launcher = by_launcher ? s->p[i].launcher : 0, .category = s->p[i].category };
        t[g].count += s->p[i].count;
        t[g].sum = kt_sat_add(t[g].sum, s->p[i].sum);
    }
    for (size_t g = 0; ok && g < n; g++)
        t[g].op_sum = by_launcher ? op_sum[kt_group_find(&s->launchers, t[g].launcher)] : 0;
    kt_group_map_free(&m);
    free(op_sum);
    if (!ok) { free(t); t = NULL; n = 0; }
    *out = t;
    return ok ? n : SIZE_MAX;
}

/* Distinct kernel names of pairs[0..n) in display form (short unless
 * full_names), as names[i] for pair i.                                    */
static bool kernel_names(const cscan *s, const pair *p, size_t n, char **names)
{
    kt_group_map ids = { 0 };
    const char **full = malloc((n ? n : 1) * sizeof *full);
    uint32_t *which = malloc((n ? n : 1) * sizeof *which);
    char **shown = calloc(n ? n : 1, sizeof *shown);
    bool ok = full && which && shown;
    size_t k = 0;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t id = kt_group_id(&ids, p[i].name);
        if (!(ok = id != UINT32_MAX)) break;
        if (id == k) full[k++] = p[i].name == KT_NONE ? "" : kt_strtab_get(s->t->strs, p[i].name);
        which[i] = id;
    }
    if (ok && s->o.full_names)
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

/* The first n of the np pairs; names are made distinct over all pairs, so
 * a kernel is shown the same whatever --top is.                          */
static kt_table *kernels_table(const cscan *s, pair *p, size_t np, size_t n)
{
    kt_table *tb = kt_table_new("kernels");
    char **names = calloc(np ? np : 1, sizeof *names);
    if (tb && names && kernel_names(s, p, np, names)) {
        kt_table_add_col(tb, "cpu_op", KT_COL_STR, 0);
        kt_table_add_col(tb, "kernel_category", KT_COL_STR, 0);
        kt_table_add_col(tb, "kernel_name", KT_COL_STR, 0);
        kt_table_add_col(tb, "count", KT_COL_INT, 0);
        kt_table_add_col(tb, "total_time_ms", KT_COL_FLOAT, 6);
        kt_table_add_col(tb, "avg_time_us", KT_COL_FLOAT, 3);
        for (size_t i = 0; i < n; i++) {
            kt_table_add_row(tb);
            kt_table_set_str(tb, 0, kt_launcher_label(s->t, p[i].launcher));
            kt_table_set_str(tb, 1, kt_category_name(s->cats, p[i].category));
            kt_table_set_str(tb, 2, names[i]);
            kt_table_set_int(tb, 3, (int64_t)p[i].count);
            kt_table_set_float(tb, 4, (double)p[i].sum / 1e6);
            kt_table_set_float(tb, 5, (double)p[i].sum / 1e3 / (double)p[i].count);
        }
    } else {
        kt_table_free(tb);
        tb = NULL;
    }
    for (size_t i = 0; names && i < np; i++) free(names[i]);
    free(names);
    return tb;
}

/* op_categories (by_launcher) or categories. */
static kt_table *totals_table(const cscan *s, bool by_launcher, int64_t all_sum)
{
    total *t;
    size_t n = aggregate(s, by_launcher, &t);
    kt_table *tb = n == SIZE_MAX ? NULL : kt_table_new(by_launcher ? "op_categories" : "categories");
    if (!tb) { free(t); return NULL; }
    qsort_r(t, n, sizeof *t, by_op_then_sum, (void *)s->t);
    if (by_launcher && s->o.top && s->o.top < n) n = s->o.top;
    if (by_launcher) kt_table_add_col(tb, "cpu_op", KT_COL_STR, 0);
    kt_table_add_col(tb, "kernel_category", KT_COL_STR, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    kt_table_add_col(tb, "total_time_ms", KT_COL_FLOAT, 6);
    kt_table_add_col(tb, by_launcher ? "% of op time" : "% of kernel time", KT_COL_FLOAT, 2);
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        int64_t whole = by_launcher ? t[i].op_sum : all_sum;
        kt_table_add_row(tb);
        if (by_launcher) kt_table_set_str(tb, c++, kt_launcher_label(s->t, t[i].launcher));
        kt_table_set_str(tb, c++, kt_category_name(s->cats, t[i].category));
        kt_table_set_int(tb, c++, (int64_t)t[i].count);
        kt_table_set_float(tb, c++, (double)t[i].sum / 1e6);
        kt_table_set_float(tb, c, whole ? 100.0 * (double)t[i].sum / (double)whole : 0);
    }
    free(t);
    return tb;
}

static kt_status make_tables(cscan *s, kt_tables *ts)
{
    int64_t all = 0;
    for (size_t i = 0; i < s->pairs.n; i++) all = kt_sat_add(all, s->p[i].sum);
    /* the pair table is sorted for display; totals do not depend on order */
    if (s->pairs.n) qsort_r(s->p, s->pairs.n, sizeof *s->p, by_sum_desc, (void *)s->t);
    size_t n = s->o.top && s->o.top < s->pairs.n ? s->o.top : s->pairs.n;
    bool ok = kt_tables_add(ts, kernels_table(s, s->p, s->pairs.n, n)) && kt_tables_add(ts, totals_table(s, true, all)) &&
              kt_tables_add(ts, totals_table(s, false, all));
    return ok ? KT_OK : KT_ENOMEM;
}

kt_status kt_categories(const kt_trace *t, const kt_rank_sel *sel, const kt_categories_options *opt,
                        kt_tables **out)
{
    cscan s = { .t = t, .o = opt ? *opt : kt_categories_defaults(), .launch = { KT_NONE, false } };
    kt_categorizer *own = NULL;
    *out = NULL;
    kt_status st = s.o.categorizer ? KT_OK : kt_categorizer_new(&own);
    s.cats = s.o.categorizer ? s.o.categorizer : own;
    kt_tables *ts = kt_tables_new();
    s.cc = st == KT_OK ? kt_category_cache_new(s.cats, t->strs) : NULL;
    if (st == KT_OK && (!ts || !s.cc)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank) && !scan_rank(&s, t->ranks[i])) st = KT_ENOMEM;
    if (st == KT_OK) st = make_tables(&s, ts);
    kt_category_cache_free(s.cc);
    kt_group_map_free(&s.launchers);
    kt_group_map_free(&s.pairs);
    free(s.p);
    kt_categorizer_free(own);
    if (st != KT_OK) {
        kt_tables_free(ts);
        return st;
    }
    *out = ts;
    return KT_OK;
}
