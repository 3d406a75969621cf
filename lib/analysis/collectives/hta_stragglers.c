/*
 * hta_stragglers.c — HTA's straggler heuristic (straggler.py, spec A4.12),
 * step by step:
 *   1. rows = complete events of the selected ProfilerSteps (HTA's
 *      "iteration": CPU events by the CPU step containing their start, GPU
 *      events by the step of their launching call);
 *   2. mean_iter_time = (max end − min start) / iterations;
 *   3. long comm kernels: stream > 0, iteration > 0, dur >= 1% of it; the
 *      last per (rank, stream, iteration, name);
 *   4. the (stream, name) whose duration (normalized) varies most across
 *      ranks, averaged over iterations (sample std);
 *   5. its normalized start per rank and iteration; per iteration the ranks
 *      at or above the k-th largest are flagged; ranks by flag count.
 */
#include "analysis/collectives/hta_stragglers.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct krow {
    int rank;
    int32_t stream;
    int64_t iter, ts, dur;
    uint32_t name, ev;
} krow;

typedef struct hta_run {
    const kt_trace *t;
    const kt_hta_straggler_args *a;
    int64_t *steps;   /* selected, sorted */
    size_t nsteps;
    int64_t tmin, tmax;
    size_t iters_present;
    krow *rows;
    size_t nrows, cap;
    uint8_t *comm_memo; /* per name id: 0 unknown, 1 comm kernel, 2 not */
    size_t nmemo;
} hta_run;

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool selected_step(const hta_run *h, int64_t s)
{
    return s >= 0 && bsearch(&s, h->steps, h->nsteps, sizeof s, i64_cmp) != NULL;
}

/* Steps present in the selected ranks, intersected with the asked ones. */
static kt_status select_steps(hta_run *h, const kt_rank_sel *sel)
{
    size_t n = 0;
    for (size_t i = 0; i < h->t->nranks; i++) n += h->t->ranks[i]->idx->ncpu_steps;
    h->steps = malloc((n ? n : 1) * sizeof *h->steps);
    if (!h->steps) return KT_ENOMEM;
    for (size_t i = 0; i < h->t->nranks; i++) {
        const kt_rank *r = h->t->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        for (size_t k = 0; k < r->idx->ncpu_steps; k++) {
            int64_t s = r->idx->cpu_steps[k].num;
            bool asked = !h->a->steps;
            for (size_t j = 0; !asked && j < h->a->nsteps; j++) asked = h->a->steps[j] == s;
            if (asked) h->steps[h->nsteps++] = s;
        }
    }
    qsort(h->steps, h->nsteps, sizeof *h->steps, i64_cmp);
    size_t u = 0;
    for (size_t i = 0; i < h->nsteps; i++)
        if (!u || h->steps[u - 1] != h->steps[i]) h->steps[u++] = h->steps[i];
    h->nsteps = u;
    return KT_OK;
}

/* The CPU step containing a time, remembering the last interval found (a
 * step, or the gap between two): events come nearly in time order, so most
 * lookups hit it.  Only for ranks whose steps do not overlap (then at most
 * one step contains a time, and this is kt_event_step's answer); else every
 * lookup goes to kt_event_step.                                            */
typedef struct step_cursor {
    const kt_rank *r;
    bool disjoint;
    int64_t lo, hi, num; /* [lo, hi) lies in step num (-1: in no step) */
} step_cursor;

static step_cursor cursor_new(const kt_rank *r)
{
    const kt_step *s = r->idx->cpu_steps;
    bool disjoint = true;
    for (size_t i = 1; i < r->idx->ncpu_steps; i++) disjoint &= s[i - 1].ts + s[i - 1].dur <= s[i].ts;
    return (step_cursor){ .r = r, .disjoint = disjoint, .lo = 1, .hi = 0 };
}

static int64_t cursor_step(step_cursor *c, uint32_t cpu_ev)
{
    int64_t ts = c->r->ev.ts[cpu_ev];
    if (!c->disjoint) return kt_event_step(c->r, cpu_ev);
    if (ts >= c->lo && ts < c->hi) return c->num;
    const kt_step *s = c->r->idx->cpu_steps;
    size_t lo = 0, hi = c->r->idx->ncpu_steps; /* first step starting after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].ts <= ts) lo = mid + 1;
        else hi = mid;
    }
    if (lo > 0 && ts < s[lo - 1].ts + s[lo - 1].dur) {
        c->lo = s[lo - 1].ts, c->hi = s[lo - 1].ts + s[lo - 1].dur, c->num = s[lo - 1].num;
    } else {
        c->lo = lo > 0 ? s[lo - 1].ts + s[lo - 1].dur : INT64_MIN;
        c->hi = lo < c->r->idx->ncpu_steps ? s[lo].ts : INT64_MAX;
        c->num = -1;
    }
    return c->num;
}

/* HTA's iteration column (A2.7): host events by the CPU step containing
 * their start, GPU events by the step of their launching call.           */
static int64_t hta_iteration(step_cursor *cpu, step_cursor *launch, const kt_rank *r, uint32_t ev)
{
    if (!kt_kind_is_gpu(r->ev.kind[ev])) return cursor_step(cpu, ev);
    uint32_t call = kt_gpu_launcher(r, ev);
    return call == KT_NONE ? -1 : cursor_step(launch, call);
}

static bool is_comm_name(const hta_run *h, uint32_t name)
{
    if (name < h->nmemo && h->comm_memo[name]) return h->comm_memo[name] == 1;
    const char *s = kt_strtab_get(h->t->strs, name);
    bool yes = h->a->hta_names ? kt_starts_with(s, "ncclKernel") : kt_is_comm_kernel_name(s);
    if (name < h->nmemo) h->comm_memo[name] = yes ? 1 : 2;
    return yes;
}

static bool push_row(hta_run *h, krow row)
{
    if (h->nrows == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 256;
        krow *nr = realloc(h->rows, cap * sizeof *nr);
        if (!nr) return false;
        h->rows = nr;
        h->cap = cap;
    }
    h->rows[h->nrows++] = row;
    return true;
}

/* Steps 1–2 over one rank, and the comm kernel candidates of step 3 before
 * the duration test (which needs the mean iteration time of all ranks).   */
static kt_status scan_rank(hta_run *h, const kt_rank *r, uint8_t *seen_iter)
{
    const kt_events *e = &r->ev;
    step_cursor cpu = cursor_new(r), launch = cpu;
    for (uint32_t i = 0; i < e->n; i++) {
        if (e->ph[i] != 'X' || e->kind[i] == KT_K_TRACE_SPAN || e->cat[i] == KT_NONE) continue;
        int64_t it = hta_iteration(&cpu, &launch, r, i);
        if (!selected_step(h, it)) continue;
        size_t si = (size_t)((int64_t *)bsearch(&it, h->steps, h->nsteps, sizeof it, i64_cmp) - h->steps);
        seen_iter[si] = 1;
        int64_t end = e->ts[i] + (e->dur[i] > 0 ? e->dur[i] : 0);
        h->tmin = e->ts[i] < h->tmin ? e->ts[i] : h->tmin;
        h->tmax = end > h->tmax ? end : h->tmax;
        if (e->kind[i] == KT_K_KERNEL && kt_ev_stream(e, i) > 0 && it > 0 && e->name[i] != KT_NONE &&
            is_comm_name(h, e->name[i]) &&
            !push_row(h, (krow){ r->rank, kt_ev_stream(e, i), it, e->ts[i], e->dur[i], e->name[i], i }))
            return KT_ENOMEM;
    }
    return KT_OK;
}

static int group_cmp(const void *a, const void *b)
{
    const krow *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->iter != y->iter) return x->iter < y->iter ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Step 3: drop short kernels, keep the last per (rank, stream, iter, name). */
static void keep_last_long(hta_run *h, double min_dur)
{
    size_t k = 0;
    for (size_t i = 0; i < h->nrows; i++)
        if ((double)h->rows[i].dur >= min_dur) h->rows[k++] = h->rows[i];
    h->nrows = k;
    if (h->nrows) qsort(h->rows, h->nrows, sizeof *h->rows, group_cmp);
    k = 0;
    for (size_t i = 0; i < h->nrows; i++) {
        const krow *x = &h->rows[i], *y = i + 1 < h->nrows ? &h->rows[i + 1] : NULL;
        bool last = !y || y->stream != x->stream || y->name != x->name || y->iter != x->iter || y->rank != x->rank;
        if (last) h->rows[k++] = *x;
    }
    h->nrows = k;
}

/* Step 4: index range [*from, *to) of the chosen (stream, name). */
static bool choose_kernel(const hta_run *h, double mean_iter, size_t *from, size_t *to)
{
    double best = NAN;
    for (size_t i = 0; i < h->nrows;) {
        size_t j = i, nstd = 0;
        double sum_std = 0;
        while (j < h->nrows && h->rows[j].stream == h->rows[i].stream && h->rows[j].name == h->rows[i].name) {
            size_t k = j;
            double s = 0, ss = 0;
            while (k < h->nrows && h->rows[k].stream == h->rows[j].stream && h->rows[k].name == h->rows[j].name &&
                   h->rows[k].iter == h->rows[j].iter)
                s += h->rows[k].dur / mean_iter, k++;
            size_t n = k - j;
            double mean = s / (double)n;
            for (size_t q = j; q < k; q++) ss += (h->rows[q].dur / mean_iter - mean) * (h->rows[q].dur / mean_iter - mean);
            if (n > 1) sum_std += sqrt(ss / (double)(n - 1)), nstd++;
            j = k;
        }
        double avg = nstd ? sum_std / (double)nstd : NAN;
        if (!isnan(avg) && (isnan(best) || avg > best)) {
            best = avg;
            *from = i;
            *to = j;
        }
        i = j;
    }
    return !isnan(best);
}

static int desc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

typedef struct rank_count {
    int rank;
    int64_t count;
} rank_count;

/* pandas sort_values(ascending=False) on a short series keeps ties in
 * index (rank) order.                                                      */
static int count_cmp(const void *a, const void *b)
{
    const rank_count *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->rank - y->rank;
}

static kt_table *metric_table(const char *name)
{
    kt_table *tb = kt_table_new(name);
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "iteration", KT_COL_INT, 0);
    kt_table_add_col(tb, "stream", KT_COL_INT, 0);
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    kt_table_add_col(tb, "normalized_start_time", KT_COL_FLOAT, -1);
    kt_table_add_col(tb, "is_straggler", KT_COL_INT, 0);
    return tb;
}

/* Step 5 over rows[from, to) (sorted by iteration, then rank). */
static kt_status flag_ranks(hta_run *h, size_t from, size_t to, double mean_iter, kt_table *metric,
                            rank_count *counts, size_t *ncounts, char *err, size_t errlen)
{
    double *v = malloc((to - from + 1) * sizeof *v);
    if (!v) return KT_ENOMEM;
    int k = h->a->candidates < 1 ? 1 : h->a->candidates;
    for (size_t i = from; i < to;) {
        size_t j = i;
        while (j < to && h->rows[j].iter == h->rows[i].iter) j++;
        for (size_t q = i; q < j; q++) v[q - i] = (h->rows[q].ts - h->tmin) / mean_iter;
        qsort(v, j - i, sizeof *v, desc_cmp);
        if (j - i < (size_t)k) {
            snprintf(err, errlen, "iteration %lld has %zu ranks with the candidate kernel, fewer than %d candidates "
                     "(HTA raises IndexError)", (long long)h->rows[i].iter, j - i, k);
            free(v);
            return KT_EANALYSIS;
        }
        double threshold = v[k - 1];
        for (size_t q = i; q < j; q++) {
            const krow *x = &h->rows[q];
            double m = (x->ts - h->tmin) / mean_iter;
            size_t c = 0;
            while (c < *ncounts && counts[c].rank != x->rank) c++;
            if (c == *ncounts) counts[(*ncounts)++] = (rank_count){ x->rank, 0 };
            counts[c].count += m >= threshold;
            kt_table_add_row(metric);
            kt_table_set_int(metric, 0, x->rank);
            kt_table_set_int(metric, 1, x->iter);
            kt_table_set_int(metric, 2, x->stream);
            kt_table_set_str(metric, 3, kt_strtab_get(h->t->strs, x->name));
            kt_table_set_float(metric, 4, m);
            kt_table_set_int(metric, 5, m >= threshold);
        }
        i = j;
    }
    free(v);
    return KT_OK;
}

static kt_table *counts_table(const char *name, rank_count *counts, size_t n, int k)
{
    kt_table *tb = kt_table_new(name);
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    qsort(counts, n, sizeof *counts, count_cmp);
    for (size_t i = 0; i < n && i < (size_t)(k < 1 ? 1 : k); i++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, counts[i].rank);
        kt_table_set_int(tb, 1, counts[i].count);
    }
    return tb;
}

static kt_status run_steps(hta_run *h, const kt_rank_sel *sel, kt_table *metric, rank_count *counts, size_t *ncounts,
                           char *err, size_t errlen)
{
    uint8_t *seen = calloc(h->nsteps ? h->nsteps : 1, 1);
    if (!seen) return KT_ENOMEM;
    kt_status s = KT_OK;
    for (size_t i = 0; s == KT_OK && i < h->t->nranks; i++)
        if (kt_rank_selected(sel, h->t->ranks[i]->rank)) s = scan_rank(h, h->t->ranks[i], seen);
    for (size_t i = 0; i < h->nsteps; i++) h->iters_present += seen[i];
    free(seen);
    if (s != KT_OK) return s;
    if (!h->iters_present) {
        snprintf(err, errlen, "no events in the selected profiler steps");
        return KT_EANALYSIS;
    }
    double mean_iter = (double)(h->tmax - h->tmin) / (double)h->iters_present;
    keep_last_long(h, mean_iter * 0.01);
    size_t from = 0, to = 0;
    if (!choose_kernel(h, mean_iter, &from, &to)) {
        snprintf(err, errlen, "no long communication kernel on two ranks in one iteration");
        return KT_EANALYSIS;
    }
    /* rows[from, to) are sorted by iteration, then rank */
    return flag_ranks(h, from, to, mean_iter, metric, counts, ncounts, err, errlen);
}

kt_status kt_hta_stragglers(const kt_trace *t, const kt_rank_sel *sel, const kt_hta_straggler_args *a,
                            kt_table **stragglers, kt_table **metric, char *err, size_t errlen)
{
    hta_run h = { .t = t, .a = a, .tmin = INT64_MAX, .tmax = INT64_MIN, .nmemo = kt_strtab_count(t->strs) };
    h.comm_memo = calloc(h.nmemo ? h.nmemo : 1, 1);
    *stragglers = NULL;
    *metric = metric_table(a->table_names[1]);
    rank_count *counts = calloc(t->nranks ? t->nranks : 1, sizeof *counts);
    size_t ncounts = 0;
    kt_status s = *metric && counts && h.comm_memo ? select_steps(&h, sel) : KT_ENOMEM;
    if (s == KT_OK && h.nsteps == 0) {
        snprintf(err, errlen, "no ProfilerStep in the selected ranks (HTA raises ValueError)");
        s = KT_EANALYSIS;
    }
    if (s == KT_OK) s = run_steps(&h, sel, *metric, counts, &ncounts, err, errlen);
    if (s == KT_OK) *stragglers = counts_table(a->table_names[0], counts, ncounts, a->candidates);
    if (s == KT_OK && !*stragglers) s = KT_ENOMEM;
    if (s != KT_OK) {
        kt_table_free(*metric);
        *metric = NULL;
    }
    free(counts);
    free(h.comm_memo);
    free(h.rows);
    free(h.steps);
    return s;
}
