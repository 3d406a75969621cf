/*
 * annotation_kernels.c — see annotation_kernels.h.
 *
 * The labelling is HTA's get_gpu_kernels_with_user_annotations (A4.9):
 * annotation spans in order of duration descending (pandas' unstable
 * descending sort, reproduced), each writing its name on every kernel of
 * the same (pid, tid) whose [ts, end) overlaps its [ts, end), so the
 * shortest — innermost — annotation wins.  Ranks without GPU annotations
 * are labelled, outside hta_compat, from the CPU annotations around each
 * kernel's launching call instead.  The summary counts each kernel once
 * per annotation name however the spans of that name nest.
 */
#include "analysis/attribute/annotation_breakdown.h"
#include "analysis/attribute/annotation_kernels.h"
#include "analysis/common/kernel_names.h"
#include "analysis/common/np_sort.h"
#include "analysis/common/stats.h"
#include "model/radix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A kernel placed where annotations can overlap it: on its own stream
 * (GPU annotations) or at its launching call (CPU annotations).          */
typedef struct item {
    uint64_t key;       /* (pid, tid) */
    int64_t ts, end;
    int64_t w;          /* kernel duration, ns */
    uint32_t k;         /* index in kt_ann_rank.kernels */
} item;

typedef struct span {
    uint64_t key;
    int64_t ts, end;
    uint32_t ev, name;
} span;

typedef struct group {
    uint64_t key;
    size_t first, n;
    int64_t maxdur;
} group;

typedef struct ann_work {
    item *it;
    size_t nit;
    span *sp;
    size_t nsp;
    group *g;
    size_t ng;
} ann_work;

/* HTA's GPUKernelFilter under hta_compat; GPU work by kind otherwise. */
static bool is_kernel_row(const kt_trace *t, const kt_rank *r, uint32_t i)
{
    const kt_events *e = &r->ev;
    if (!t->hta_compat) return kt_kind_is_gpu(e->kind[i]);
    if (e->ph[i] != 'X') return false;
    if (kt_ev_stream(e, i) >= 0 && e->corr[i] >= 0) return true;
    const char *n = e->name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, e->name[i]);
    return !strcmp(n, "Event Sync") || !strcmp(n, "Context Sync");
}

static bool collect_kernels(const kt_trace *t, const kt_rank *r, kt_ann_rank *a)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += is_kernel_row(t, r, i);
    a->kernels = malloc((n ? n : 1) * sizeof *a->kernels);
    a->label = malloc((n ? n : 1) * sizeof *a->label);
    if (!a->kernels || !a->label) return false;
    for (uint32_t i = 0; i < e->n; i++)
        if (is_kernel_row(t, r, i)) {
            a->label[a->nkernels] = KT_NONE;
            a->kernels[a->nkernels++] = i;
            a->kernel_ns += e->dur[i] > 0 ? e->dur[i] : 0;
        }
    return true;
}

/* Items: kernels on their stream, or (cpu) at their launching call. */
static bool collect_items(const kt_rank *r, const kt_ann_rank *a, bool cpu, ann_work *w)
{
    const kt_events *e = &r->ev;
    w->it = malloc((a->nkernels ? a->nkernels : 1) * sizeof *w->it);
    if (!w->it) return false;
    for (size_t k = 0; k < a->nkernels; k++) {
        uint32_t g = a->kernels[k], at = cpu ? kt_gpu_launcher(r, g) : g;
        if (at == KT_NONE) continue;
        int64_t dur = e->dur[at] > 0 ? e->dur[at] : 0;
        w->it[w->nit++] = (item){ kt_ev_thread_key(e, at), e->ts[at], e->ts[at] + (cpu ? dur : e->dur[at]),
                                  e->dur[g] > 0 ? e->dur[g] : 0, (uint32_t)k };
    }
    /* by thread, then start (stable: kernels in their order where equal) */
    uint64_t *key = malloc((w->nit ? w->nit : 1) * sizeof *key), *ts = malloc((w->nit ? w->nit : 1) * sizeof *ts);
    bool ok = key && ts;
    for (size_t i = 0; ok && i < w->nit; i++) key[i] = w->it[i].key, ts[i] = kt_radix_key_i64(w->it[i].ts);
    ok = ok && kt_radix_sort_records(w->it, sizeof *w->it, w->nit, key, ts);
    free(key);
    free(ts);
    return ok;
}

static bool collect_spans(const kt_trace *t, const kt_rank *r, uint8_t kind, ann_work *w)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += kt_ann_span_kept(t, e, i, kind);
    w->sp = malloc((n ? n : 1) * sizeof *w->sp);
    if (!w->sp) return false;
    for (uint32_t i = 0; i < e->n; i++)
        if (kt_ann_span_kept(t, e, i, kind))
            w->sp[w->nsp++] = (span){ kt_ev_thread_key(e, i), e->ts[i], e->ts[i] + e->dur[i], i, e->name[i] };
    return true;
}

static bool make_groups(ann_work *w)
{
    w->g = malloc((w->nit ? w->nit : 1) * sizeof *w->g);
    if (!w->g) return false;
    for (size_t i = 0; i < w->nit; i++) {
        const item *x = &w->it[i];
        if (!w->ng || w->g[w->ng - 1].key != x->key) w->g[w->ng++] = (group){ x->key, i, 0, 0 };
        group *g = &w->g[w->ng - 1];
        g->n++;
        if (x->end - x->ts > g->maxdur) g->maxdur = x->end - x->ts;
    }
    return true;
}

static const group *find_group(const ann_work *w, uint64_t key)
{
    size_t lo = 0, hi = w->ng;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->g[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->ng && w->g[lo].key == key ? &w->g[lo] : NULL;
}

/* Calls fn for every item overlapping s ([ts, end) against [ts, end)). */
typedef void (*overlap_fn)(void *ctx, const item *x, const span *s);
static void each_overlap(const ann_work *w, const span *s, overlap_fn fn, void *ctx)
{
    const group *g = find_group(w, s->key);
    if (!g) return;
    const item *it = w->it + g->first;
    size_t lo = 0, hi = g->n;
    int64_t from = s->ts - g->maxdur; /* an earlier item ends before s starts */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (it[mid].ts < from) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k < g->n && it[k].ts < s->end; k++)
        if (it[k].end > s->ts) fn(ctx, &it[k], s);
}

static void set_label(void *ctx, const item *x, const span *s)
{
    ((kt_ann_rank *)ctx)->label[x->k] = s->ev;
}

/* Spans in pandas sort_values(dur, ascending=False) order: numpy's
 * quicksort argsort of the reversed column, reversed.                     */
static bool label_innermost(kt_ann_rank *a, const ann_work *w)
{
    uint32_t *idx = malloc((w->nsp ? w->nsp : 1) * sizeof *idx);
    int64_t *dur = malloc((w->nsp ? w->nsp : 1) * sizeof *dur);
    if (!idx || !dur) { free(idx); free(dur); return false; }
    for (size_t i = 0; i < w->nsp; i++) {
        idx[i] = (uint32_t)(w->nsp - 1 - i);
        dur[i] = w->sp[i].end - w->sp[i].ts;
    }
    kt_np_argsort_i64(dur, idx, w->nsp);
    for (size_t i = w->nsp; i-- > 0;) each_overlap(w, &w->sp[idx[i]], set_label, a);
    free(idx);
    free(dur);
    return true;
}

/* ---- summary: inclusive time per name, each kernel once ------------------ */

typedef struct incl_ctx {
    uint32_t *stamp; /* per kernel: 1 + index of the last name that counted it */
    uint32_t mark;
    kt_ann_sum *sum;
} incl_ctx;

static void count_inclusive(void *ctx, const item *x, const span *s)
{
    incl_ctx *c = ctx;
    (void)s;
    if (c->stamp[x->k] == c->mark) return;
    c->stamp[x->k] = c->mark;
    c->sum->kernels++;
    c->sum->inclusive_ns += x->w;
}

static int by_name(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static int by_inclusive_desc(const void *a, const void *b)
{
    const kt_ann_sum *x = a, *y = b;
    if (x->inclusive_ns != y->inclusive_ns) return x->inclusive_ns < y->inclusive_ns ? 1 : -1;
    return (x->name > y->name) - (x->name < y->name);
}

static bool summarize(const kt_rank *r, kt_ann_rank *a, ann_work *w)
{
    const kt_events *e = &r->ev;
    incl_ctx c = { .stamp = calloc(a->nkernels + 1, sizeof *c.stamp) };
    a->sum = calloc(w->nsp + 1, sizeof *a->sum);
    if (!c.stamp || !a->sum) { free(c.stamp); return false; }
    qsort(w->sp, w->nsp, sizeof *w->sp, by_name);
    for (size_t i = 0, j; i < w->nsp; i = j) {
        c.sum = &a->sum[a->nsum++];
        c.sum->name = w->sp[i].name;
        c.mark = (uint32_t)a->nsum;
        for (j = i; j < w->nsp && w->sp[j].name == w->sp[i].name; j++) {
            c.sum->instances++;
            each_overlap(w, &w->sp[j], count_inclusive, &c);
        }
    }
    for (size_t k = 0; k < w->nit; k++) {
        uint32_t lab = a->label[w->it[k].k];
        if (lab == KT_NONE) continue;
        size_t lo = 0, hi = a->nsum; /* sums are in name order */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (a->sum[mid].name < e->name[lab]) lo = mid + 1;
            else hi = mid;
        }
        if (lo < a->nsum) a->sum[lo].exclusive_ns += w->it[k].w;
    }
    qsort(a->sum, a->nsum, sizeof *a->sum, by_inclusive_desc);
    free(c.stamp);
    return true;
}

static int64_t step_total(const kt_rank *r, bool cpu)
{
    const kt_index *x = r->idx;
    const kt_step *s = cpu || !x->ngpu_steps ? x->cpu_steps : x->gpu_steps;
    size_t n = cpu || !x->ngpu_steps ? x->ncpu_steps : x->ngpu_steps;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += s[i].dur;
    return sum;
}

static bool has_kind(const kt_events *e, uint8_t kind)
{
    for (uint32_t i = 0; i < e->n; i++)
        if (e->kind[i] == kind && e->ph[i] == 'X') return true;
    return false;
}

kt_status kt_ann_kernels_rank(const kt_trace *t, const kt_rank *r, kt_ann_rank *a)
{
    memset(a, 0, sizeof *a);
    bool gpu = has_kind(&r->ev, KT_K_GPU_ANNOTATION);
    a->cpu_source = !gpu;
    ann_work w = { 0 };
    bool ok = collect_kernels(t, r, a);
    if (ok && !gpu && t->hta_compat) { /* HTA: no GPU annotations, no rows */
        a->nkernels = 0;
        return KT_OK;
    }
    ok = ok && collect_items(r, a, !gpu, &w) && collect_spans(t, r, gpu ? KT_K_GPU_ANNOTATION : KT_K_USER_ANNOTATION, &w) &&
         make_groups(&w) && label_innermost(a, &w) && summarize(r, a, &w);
    a->step_ns = r->idx ? step_total(r, !gpu) : 0;
    free(w.it);
    free(w.sp);
    free(w.g);
    return ok ? KT_OK : KT_ENOMEM;
}

void kt_ann_rank_free(kt_ann_rank *a)
{
    free(a->kernels);
    free(a->label);
    free(a->sum);
    memset(a, 0, sizeof *a);
}

/* HTA's short kernel names, made once per name id: a row per kernel
 * shortened its name each time (two thirds of `kineta annotations` on top
 * of the load).  Direct-mapped; a slot's text is its own copy.           */
#define SHORT_SLOTS 256
typedef struct short_names {
    uint32_t id[SHORT_SLOTS];  /* KT_NONE: empty */
    char *text[SHORT_SLOTS];
} short_names;

static const char *short_name(const kt_trace *t, short_names *m, uint32_t id)
{
    if (id == KT_NONE) return "";
    size_t slot = id & (SHORT_SLOTS - 1);
    if (m->id[slot] == id) return m->text[slot];
    const char *name = kt_strtab_get(t->strs, id);
    char *copy = kt_hta_short_name(name);
    if (!copy) return name; /* no memory: the full name, as before */
    free(m->text[slot]);
    m->id[slot] = id;
    m->text[slot] = copy;
    return copy;
}

void kt_ann_kernels_rows(const kt_trace *t, const kt_rank *r, const kt_ann_rank *a, bool full_names,
                         kt_table *tb)
{
    const kt_events *e = &r->ev;
    short_names m;
    for (size_t i = 0; i < SHORT_SLOTS; i++) m.id[i] = KT_NONE, m.text[i] = NULL;
    for (size_t k = 0; k < a->nkernels; k++) {
        uint32_t i = a->kernels[k], lab = a->label[k];
        const char *name = e->name[i] == KT_NONE ? "" : kt_strtab_get(t->strs, e->name[i]);
        kt_table_add_row(tb);
        kt_table_set_float(tb, 0, (double)(e->ts[i] - t->min_ts) / 1e3);
        kt_table_set_float(tb, 1, (double)e->dur[i] / 1e3);
        kt_table_set_int(tb, 2, kt_ev_stream(e, i));
        kt_table_set_int(tb, 3, kt_event_corr(r, i));
        kt_table_set_str(tb, 4, full_names ? name : short_name(t, &m, e->name[i]));
        kt_table_set_str(tb, 5, lab == KT_NONE ? "" : kt_strtab_get(t->strs, e->name[lab]));
        kt_table_set_int(tb, 6, r->rank);
        if (!t->hta_compat) kt_table_set_str(tb, 7, a->cpu_source ? "cpu" : "gpu");
    }
    for (size_t i = 0; i < SHORT_SLOTS; i++) free(m.text[i]);
}

void kt_ann_summary_rows(const kt_trace *t, int rank, const kt_ann_rank *a, kt_table *tb)
{
    for (size_t i = 0; i < a->nsum; i++) {
        const kt_ann_sum *s = &a->sum[i];
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, rank);
        kt_table_set_str(tb, 1, kt_strtab_get(t->strs, s->name));
        kt_table_set_str(tb, 2, a->cpu_source ? "cpu" : "gpu");
        kt_table_set_int(tb, 3, (int64_t)s->instances);
        kt_table_set_int(tb, 4, (int64_t)s->kernels);
        kt_table_set_float(tb, 5, (double)s->inclusive_ns / 1e3);
        kt_table_set_float(tb, 6, (double)s->exclusive_ns / 1e3);
        kt_table_set_float(tb, 7, kt_pct((double)s->inclusive_ns, (double)a->kernel_ns));
        kt_table_set_float(tb, 8, a->step_ns ? kt_pct((double)s->inclusive_ns, (double)a->step_ns) : NAN);
    }
}
