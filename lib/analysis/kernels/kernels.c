/*
 * kernels.c — the per-kernel table: which kernels eat GPU time and what kind
 * of work they are (the seed "GPU Kernel Analyzer", done right).
 *
 * Only GPU work is counted (kernels; memcpy/memset on request), never the
 * runtime calls that launch it — the seed tool counted cudaLaunchKernel as
 * a kernel.  Rows are aggregated by full name unless another key is asked
 * for, and short display names are made distinct so two template variants
 * never show up as identical rows.
 */
#include "analysis/common/kernel_category.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/kernel_launcher.h"
#include "analysis/common/kernel_names.h"
#include "analysis/kernels/kernel_stats.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"
#include "output/table.h"

#include <stdlib.h>
#include <string.h>

#define MIXED UINT32_MAX

kt_kernels_options kt_kernels_defaults(void)
{
    return (kt_kernels_options){ .sort = KT_KSORT_COUNT, .by = KT_KBY_NAME, .top = 10, .pstep = -1 };
}

/* What a row's kernels have in common (MIXED where they differ). */
typedef struct group_info {
    uint32_t name;     /* first kernel's full name */
    uint32_t category;
    uint32_t type;
    uint64_t key;
} group_info;

typedef struct kscan {
    const kt_trace *t;
    kt_kernels_options o;
    const kt_categorizer *cats;
    kt_type_cache *types;
    kt_category_cache *cc;
    kt_strtab *labels;        /* short names, for KT_KBY_SHORT */
    kt_group_map names;       /* name id → memo_label index */
    uint32_t *memo_label;
    size_t cap_label;
    kt_group_map groups;      /* row key → row */
    group_info *info;
    size_t cap_info;
    kt_samples samples;
    kt_launch_memo launch;
    int64_t wall_ns;
    uint64_t unlinked, graph;
    size_t nranks;
} kscan;

/* Short name (label id) of an event's kernel, computed once per distinct
 * name; KT_NONE on allocation failure.                                    */
static uint32_t short_label(kscan *s, const kt_rank *r, uint32_t ev)
{
    uint32_t name = r->ev.name[ev];
    size_t before = s->names.n;
    uint32_t m = kt_group_id(&s->names, name);
    if (m == UINT32_MAX) return KT_NONE;
    if (s->names.n > before) {
        if (!kt_grow((void **)&s->memo_label, &s->cap_label, s->names.n, sizeof *s->memo_label)) return KT_NONE;
        char *sh = kt_kernel_short_name(name == KT_NONE ? "" : kt_strtab_get(s->t->strs, name));
        s->memo_label[m] = sh ? kt_strtab_intern(s->labels, sh, strlen(sh)) : KT_NONE;
        free(sh);
    }
    return s->memo_label[m];
}

static bool is_kernel_kind(const kscan *s, uint8_t k)
{
    return k == KT_K_KERNEL || (s->o.memory && (k == KT_K_MEMCPY || k == KT_K_MEMSET));
}

/* The row key of an event under the chosen grouping; KT_NONE on failure. */
static uint64_t row_key(kscan *s, const kt_rank *r, uint32_t ev, uint32_t cat, uint32_t type)
{
    switch (s->o.by) {
    case KT_KBY_SHORT: return short_label(s, r, ev);
    case KT_KBY_CATEGORY: return cat;
    case KT_KBY_TYPE: return type;
    case KT_KBY_LAUNCHER: return kt_launcher_key(s->t, r, ev, &s->launch);
    default: return r->ev.name[ev];
    }
}

static bool add_event(kscan *s, const kt_rank *r, uint32_t ev)
{
    uint32_t cat = kt_event_category(s->cc, r, ev);
    uint32_t type = (uint32_t)kt_event_kernel_type(s->types, r, ev), rt;
    uint64_t key = row_key(s, r, ev, cat, type);
    if (s->o.by == KT_KBY_SHORT && key == KT_NONE) return false;
    size_t before = s->groups.n;
    uint32_t g = kt_group_id(&s->groups, key);
    if (g == UINT32_MAX || !kt_grow((void **)&s->info, &s->cap_info, s->groups.n, sizeof *s->info)) return false;
    group_info *gi = &s->info[g];
    if (s->groups.n > before) *gi = (group_info){ r->ev.name[ev], cat, type, key };
    if (gi->category != cat) gi->category = MIXED;
    if (gi->type != type) gi->type = MIXED;
    kt_launch_kind lk = kt_launch_link(s->t, r, ev, &s->launch, &rt);
    s->unlinked += lk == KT_LAUNCH_UNLINKED;
    s->graph += lk == KT_LAUNCH_GRAPH;
    return kt_samples_push(&s->samples, g, r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev]);
}

/* Add the rank's selected kernels; its GPU wall time is the span from the
 * first GPU event to the last (memcpy/memset included, step filtered).   */
static bool scan_rank(kscan *s, const kt_rank *r)
{
    if (s->o.by == KT_KBY_LAUNCHER && kt_index_call_tree(r) != KT_OK) return false;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint8_t k = r->ev.kind[ev];
        if (!kt_kind_is_gpu(k) || (s->o.pstep >= 0 && kt_event_step(r, ev) != s->o.pstep)) continue;
        int64_t dur = r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev];
        if (r->ev.ts[ev] < first) first = r->ev.ts[ev];
        if (r->ev.ts[ev] + dur > last) last = r->ev.ts[ev] + dur;
        if (is_kernel_kind(s, k) && !add_event(s, r, ev)) return false;
    }
    if (last >= first) s->wall_ns += last - first;
    s->nranks++;
    return true;
}

/* ---- rows ---------------------------------------------------------------- */

typedef struct row {
    uint32_t g;
    const char *label; /* sort tie-break and, unless by name, display */
} row;

typedef struct sort_ctx {
    const kt_dur_stats *st;
    kt_kernel_sort sort;
} sort_ctx;

static int by_sort_key(const void *a, const void *b, void *ctx)
{
    const sort_ctx *c = ctx;
    const row *x = a, *y = b;
    const kt_dur_stats *p = &c->st[x->g], *q = &c->st[y->g];
    int k = 0;
    if (c->sort == KT_KSORT_COUNT || c->sort == KT_KSORT_PERCENTAGE)
        k = (p->count < q->count) - (p->count > q->count);
    else if (c->sort == KT_KSORT_DURATION)
        k = (p->mean < q->mean) - (p->mean > q->mean);
    if (!k) k = (p->sum < q->sum) - (p->sum > q->sum);
    return k ? k : strcmp(x->label, y->label);
}

static const char *type_label(uint32_t type)
{
    return type == MIXED ? "mixed" : kt_kernel_type_name((kt_kernel_type)type);
}

static const char *key_label(const kscan *s, const group_info *gi)
{
    switch (s->o.by) {
    case KT_KBY_SHORT: return kt_strtab_get(s->labels, (uint32_t)gi->key);
    case KT_KBY_CATEGORY: return kt_category_name(s->cats, (uint32_t)gi->key);
    case KT_KBY_TYPE: return type_label((uint32_t)gi->key);
    case KT_KBY_LAUNCHER: return kt_launcher_label(s->t, gi->key);
    default: return gi->name == KT_NONE ? "" : kt_strtab_get(s->t->strs, gi->name);
    }
}

/* Names shown for rows[0..n): full names, or distinct short forms. */
static bool display_names(const kscan *s, const row *rows, size_t n, char **out)
{
    if (s->o.by != KT_KBY_NAME || s->o.full_names) {
        for (size_t i = 0; i < n; i++)
            if (!(out[i] = strdup(rows[i].label))) return false;
        return true;
    }
    const char **full = malloc((n ? n : 1) * sizeof *full);
    if (!full) return false;
    for (size_t i = 0; i < n; i++) full[i] = rows[i].label;
    bool ok = kt_kernel_display_names(full, n, out);
    free(full);
    return ok;
}

static kt_table *kernels_table(const kscan *s, const kt_dur_stats *st, const row *rows, size_t n,
                               char **names, const kt_dur_stats *all)
{
    static const char *const us_cols[] = { "total (us)", "avg (us)", "median (us)", "min (us)", "max (us)",
                                           "std (us)" };
    static const char *const pct_cols[] = { "% launches", "% kernel time", "% GPU wall time" };
    kt_table *tb = kt_table_new("kernels");
    if (!tb) return NULL;
    kt_table_add_col(tb, "#", KT_COL_INT, 0); /* position in the sort, not a rank */
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    for (int c = 0; c < 6; c++) kt_table_add_col(tb, us_cols[c], KT_COL_FLOAT, 3);
    for (int c = 0; c < 3; c++) kt_table_add_col(tb, pct_cols[c], KT_COL_FLOAT, 2);
    kt_table_add_col(tb, "category", KT_COL_STR, 0);
    kt_table_add_col(tb, "type", KT_COL_STR, 0);
    for (size_t i = 0; i < n; i++) {
        const kt_dur_stats *x = &st[rows[i].g];
        const group_info *gi = &s->info[rows[i].g];
        double us[6] = { (double)x->sum, x->mean, x->median, (double)x->min, (double)x->max, x->std };
        double pct[3] = { 100.0 * (double)x->count / (double)all->count, 100.0 * (double)x->sum / (double)all->sum,
                          s->wall_ns ? 100.0 * (double)x->sum / (double)s->wall_ns : 0 };
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, (int64_t)i + 1);
        kt_table_set_str(tb, 1, names[i]);
        kt_table_set_int(tb, 2, (int64_t)x->count);
        for (int c = 0; c < 6; c++) kt_table_set_float(tb, 3 + (size_t)c, us[c] / 1e3);
        for (int c = 0; c < 3; c++) kt_table_set_float(tb, 9 + (size_t)c, all->sum || c == 0 ? pct[c] : 0);
        kt_table_set_str(tb, 12, gi->category == MIXED ? "mixed" : kt_category_name(s->cats, gi->category));
        kt_table_set_str(tb, 13, type_label(gi->type));
    }
    return tb;
}

static kt_table *summary_table(const kscan *s, const kt_dur_stats *all)
{
    kt_table *tb = kt_table_new("summary");
    if (!tb) return NULL;
    static const char *const ints[] = { "ranks", "kernels", "launches" };
    for (int c = 0; c < 3; c++) kt_table_add_col(tb, ints[c], KT_COL_INT, 0);
    kt_table_add_col(tb, "kernel time (us)", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "GPU wall time (us)", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "unlinked launches", KT_COL_INT, 0);
    kt_table_add_col(tb, "graph-launched kernels", KT_COL_INT, 0);
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, (int64_t)s->nranks);
    kt_table_set_int(tb, 1, (int64_t)s->groups.n);
    kt_table_set_int(tb, 2, (int64_t)all->count);
    kt_table_set_float(tb, 3, (double)all->sum / 1e3);
    kt_table_set_float(tb, 4, (double)s->wall_ns / 1e3);
    kt_table_set_int(tb, 5, (int64_t)s->unlinked);
    kt_table_set_int(tb, 6, (int64_t)s->graph);
    return tb;
}

/* Sort the groups, keep the top rows and build both tables. */
static kt_status make_tables(kscan *s, kt_tables *ts)
{
    size_t ng = s->groups.n;
    kt_dur_stats *st = kt_group_stats(&s->samples, ng);
    row *rows = malloc((ng ? ng : 1) * sizeof *rows);
    char **names = calloc(ng ? ng : 1, sizeof *names);
    kt_dur_stats all = { 0 };
    bool ok = st && rows && names;
    for (size_t g = 0; ok && g < ng; g++) {
        rows[g] = (row){ (uint32_t)g, key_label(s, &s->info[g]) };
        all.count += st[g].count;
        all.sum = kt_sat_add(all.sum, st[g].sum);
    }
    size_t n = s->o.top && s->o.top < ng ? s->o.top : ng;
    if (ok) qsort_r(rows, ng, sizeof *rows, by_sort_key, &(sort_ctx){ st, s->o.sort });
    /* distinct over all rows, so a kernel is shown the same whatever --top is */
    ok = ok && display_names(s, rows, ng, names);
    ok = ok && kt_tables_add(ts, kernels_table(s, st, rows, n, names, &all));
    ok = ok && kt_tables_add(ts, summary_table(s, &all));
    for (size_t i = 0; names && i < ng; i++) free(names[i]);
    free(names);
    free(rows);
    free(st);
    return ok ? KT_OK : KT_ENOMEM;
}

static void scan_free(kscan *s)
{
    kt_type_cache_free(s->types);
    kt_category_cache_free(s->cc);
    kt_strtab_free(s->labels);
    kt_group_map_free(&s->names);
    kt_group_map_free(&s->groups);
    free(s->memo_label);
    free(s->info);
    kt_samples_free(&s->samples);
}

kt_status kt_kernels(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *opt,
                     kt_tables **out)
{
    kscan s = { .t = t, .o = opt ? *opt : kt_kernels_defaults(), .launch = { KT_NONE, false } };
    kt_categorizer *own = NULL;
    *out = NULL;
    if ((unsigned)s.o.by > KT_KBY_LAUNCHER || (unsigned)s.o.sort > KT_KSORT_DURATION_PCT) return KT_EUSAGE;
    kt_status st = s.o.categorizer ? KT_OK : kt_categorizer_new(&own);
    s.cats = s.o.categorizer ? s.o.categorizer : own;
    s.types = kt_type_cache_new(t->strs, t->hta_compat);
    s.cc = st == KT_OK ? kt_category_cache_new(s.cats, t->strs) : NULL;
    s.labels = kt_strtab_new();
    kt_tables *ts = kt_tables_new();
    if (st == KT_OK && (!s.types || !s.cc || !s.labels || !ts)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank) && !scan_rank(&s, t->ranks[i])) st = KT_ENOMEM;
    if (st == KT_OK) st = make_tables(&s, ts);
    scan_free(&s);
    kt_categorizer_free(own);
    if (st != KT_OK) {
        kt_tables_free(ts);
        return st;
    }
    *out = ts;
    return KT_OK;
}
