/*
 * hta_compat.c — HTA's load semantics, for --hta-compat.
 *
 * HTA does not analyze the trace as written: it drops every event that is
 * not a complete event (A2.2), rounds ns-resolution times to whole µs in a
 * way that gives short events dur 0 or -1 (A2.3), and drops the last
 * profiled step and the GPU work without a kept launch (A2.11).  Users who
 * compare our numbers with HTA's need the same event set, so this file
 * reproduces those steps, quirks included, on the columnar model and then
 * builds the indexes; the rows HTA keeps, rounded, come from hta_rows.c.
 * The default (no compat) never does any of this.
 */
#include "hta_rows.h"
#include "i64map.h"
#include "index.h"

#include <stdlib.h>
#include <string.h>

/* ---- names HTA matches with regexes (A3) -------------------------------- */
static bool is_memory_name(const char *s) /* (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
{
    const char *m = strncmp(s, "hip", 3) ? s : s + 3;
    return !strncmp(m, "Memcpy", 6) || !strncmp(m, "Memset", 6) || !strncmp(s, "dma", 3);
}

static bool is_cpu_category(const char *c) /* (^cpu_op)|(^user_annotation$)|(^(.+)_runtime) */
{
    const char *rt = c[0] ? strstr(c + 1, "_runtime") : NULL;
    return !strncmp(c, "cpu_op", 6) || !strcmp(c, "user_annotation") || rt;
}

static bool is_gpu_kernel_category(const char *c) /* (kernel)|(gpu_mem.+)|(mtia_ccp_events) */
{
    return !strncmp(c, "kernel", 6) || (!strncmp(c, "gpu_mem", 7) && c[7]) ||
           !strncmp(c, "mtia_ccp_events", 15);
}

static const char *name_of(const kt_strtab *strs, const kt_events *e, uint32_t i)
{
    return kt_strtab_get(strs, e->name[i]);
}

/* ---- A2.11: which filter, over all ranks -------------------------------- */
/* Distinct ProfilerStep#N names over all ranks, counted up to 2. */
static int distinct_step_names(const kt_trace *t)
{
    uint32_t first = KT_NONE;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_events *e = &t->ranks[k]->ev;
        const kt_hta_rows *kept = t->ranks[k]->hta_rows;
        for (size_t j = 0; j < kept->n; j++) {
            uint32_t i = kept->id[j];
            if (e->name[i] != first && kt_hta_is_step_name(name_of(t->strs, e, i))) {
                if (first != KT_NONE) return 2;
                first = e->name[i];
            }
        }
    }
    return first != KT_NONE;
}

/* A2.9 on the first rank: MTIA by backend or by its launch call's name. */
static bool device_is_mtia(const kt_trace *t)
{
    const kt_rank *r = t->ranks[0];
    const kt_hta_rows *kept = r->hta_rows;
    if (r->backend != KT_NONE && strstr(kt_strtab_get(t->strs, r->backend), "mtia:hccl")) return true;
    static const char *const launches[] = { "cudaLaunchKernel", "hipLaunchKernel",
                                            "runFunction - job_prep_and_submit_for_execution" };
    for (size_t l = 0; l < 3; l++) {
        uint32_t id = kt_strtab_find(t->strs, launches[l], strlen(launches[l]));
        for (size_t j = 0; id != KT_NONE && j < kept->n; j++)
            if (r->ev.name[kept->id[j]] == id) return l == 2;
    }
    return false;
}

/* ---- A2.11 non-MTIA: the filter ---------------------------------------- */
/* How many kept CPU rows carry each correlation: most carry none (-1),
 * counted aside, and only when a GPU row without one asks.  Correlations
 * run nearly consecutive, so they are counted in an array over their range
 * when it is at most DENSE_SPAN times their number: a fraction of a hash
 * map's fresh memory, which on a VM costs more than the counting.        */
#define DENSE_SPAN 4

typedef struct cpu_corrs {
    uint32_t *dense; /* counts of corr lo + c, c < span; NULL: in map    */
    int64_t lo, span;
    kt_i64map map;
    uint32_t none;
} cpu_corrs;

static void cpu_corrs_free(cpu_corrs *c)
{
    free(c->dense);
    kt_i64map_free(&c->map);
}

/* The range of the correlations counted, and their number. */
static size_t launch_span(const kt_hta_rows *k, int64_t *lo, int64_t *hi)
{
    size_t n = 0;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t l = 0; l < k->nlaunches; l++) {
        if (k->launches[l].ts >= k->cut) continue;
        int64_t c = k->launches[l].corr;
        if (c < *lo) *lo = c;
        if (c > *hi) *hi = c;
        n++;
    }
    return n;
}

static bool count_cpu_corrs(const kt_events *e, const kt_hta_rows *k, cpu_corrs *c)
{
    int64_t hi;
    size_t n = launch_span(k, &c->lo, &hi);
    c->span = n ? hi - c->lo + 1 : 0;
    if (n && c->span <= (int64_t)(DENSE_SPAN * n)) {
        if (!(c->dense = calloc((size_t)c->span, sizeof *c->dense))) return false;
        for (size_t l = 0; l < k->nlaunches; l++)
            if (k->launches[l].ts < k->cut) c->dense[k->launches[l].corr - c->lo]++;
    } else {
        if (!kt_i64map_init(&c->map, n)) return false;
        for (size_t l = 0; l < k->nlaunches; l++)
            if (k->launches[l].ts < k->cut) (*kt_i64map_slot(&c->map, k->launches[l].corr, 0))++;
    }
    for (size_t j = 0; k->gpu_none && j < k->n; j++)
        c->none += !k->gpu[j] && e->corr[k->id[j]] == -1 && e->ts[k->id[j]] < k->cut;
    return true;
}

static uint32_t cpu_corr_count(const cpu_corrs *c, int32_t corr)
{
    if (corr == -1) return c->none;
    if (!c->dense) return kt_i64map_get(&c->map, corr, 0);
    int64_t at = (int64_t)corr - c->lo;
    return at >= 0 && at < c->span ? c->dense[at] : 0;
}

/* Where the rows of a half that stay go: over its kept ids as they are
 * read, until a row repeated would overtake them; from then on, an array
 * of its own.                                                             */
typedef struct row_sink {
    uint32_t *id;
    size_t n, cap;
    bool own;
} row_sink;

/* Row i, read as the half's row j of nrows, times. */
static bool sink_rows(row_sink *s, size_t nrows, size_t j, uint32_t i, uint32_t times)
{
    if (!s->own && s->n + times > j + 1) {
        uint32_t *id = malloc((s->cap = 2 * nrows + times) * sizeof *id);
        if (!id) return false;
        memcpy(id, s->id, s->n * sizeof *id);
        s->id = id;
        s->own = true;
    }
    for (uint32_t t = 0; t < times; t++) {
        if (s->n == s->cap) {
            uint32_t *grown = realloc(s->id, 2 * s->cap * sizeof *grown);
            if (!grown) return false;
            s->id = grown;
            s->cap *= 2;
        }
        s->id[s->n++] = i;
    }
    return true;
}

/* One half of a rank's kept rows, kept->id[lo, hi), through the filter on
 * its own thread: the rows that stay, and their summary.                 */
typedef struct filter_half {
    const kt_events *e;
    const kt_strtab *strs;
    const kt_hta_rows *kept;
    const cpu_corrs *corrs;
    size_t lo, hi;
    row_sink out;
    kt_event_summary sum;
    bool ok;
} filter_half;

/* A GPU row repeats once per kept CPU row with its correlation (pandas
 * inner merge), so 0..k times; a CPU row stays once if before the cut.    */
static void *filter_half_rows(void *arg)
{
    filter_half *f = arg;
    const kt_events *e = f->e;
    const kt_hta_rows *kept = f->kept;
    f->out = (row_sink){ kept->id + f->lo, 0, f->hi - f->lo, false };
    kt_summary_reset(&f->sum);
    f->ok = true;
    for (size_t j = f->lo; f->ok && j < f->hi; j++) {
        uint32_t i = kept->id[j];
        uint32_t times = !kept->ncpu ? 1 : kept->gpu[j] ? cpu_corr_count(f->corrs, e->corr[i]) : e->ts[i] < kept->cut;
        if (times) kt_summary_add(&f->sum, f->strs, (char)e->ph[i], e->kind[i], e->cat[i], e->name[i], e->ts[i], e->dur[i]);
        if (times == 1 && !f->out.own) f->out.id[f->out.n++] = i; /* n <= j - lo: the common case, in place */
        else f->ok = sink_rows(&f->out, f->hi - f->lo, j - f->lo, i, times);
    }
    return NULL;
}

/* The second half's rows after the first's, in kept->id unless a half's
 * rows went to an array of their own: then in a new one.                 */
static bool join_filtered(kt_hta_rows *kept, filter_half *f)
{
    row_sink *a = &f[0].out, *b = &f[1].out;
    size_t n = a->n + b->n;
    bool ok = f[0].ok && f[1].ok;
    if (ok && !a->own && !b->own) {
        memmove(kept->id + a->n, b->id, b->n * sizeof *b->id);
    } else {
        uint32_t *id = ok ? malloc((n ? n : 1) * sizeof *id) : NULL;
        if (id) {
            memcpy(id, a->id, a->n * sizeof *id);
            memcpy(id + a->n, b->id, b->n * sizeof *id);
            free(kept->id);
            kept->id = id;
        }
        ok = id != NULL;
    }
    for (int h = 0; h < 2; h++)
        if (f[h].out.own) free(f[h].out.id);
    kept->n = ok ? n : kept->n;
    return ok;
}

/* Ranks with more kept rows than this are filtered on two threads: below
 * it a thread costs more than it saves.  Either way the rows are filtered
 * in the same two halves, joined in file order.                          */
#define FILTER_TWO_THREADS_MIN 200000

/* Narrows kept to the rows that stay, in file order.  The rank's summary
 * is of these rows, taken on the way.                                    */
static bool filter_rank(kt_rank *r, kt_hta_rows *kept, const kt_strtab *strs, int threads)
{
    cpu_corrs corrs = { 0 };
    bool ok = !kept->ncpu || count_cpu_corrs(&r->ev, kept, &corrs);
    size_t mid = kept->n / 2;
    filter_half f[2] = { { &r->ev, strs, kept, &corrs, 0, mid, { 0 }, { 0 }, true },
                         { &r->ev, strs, kept, &corrs, mid, kept->n, { 0 }, { 0 }, true } };
    if (ok) {
        kt_run_pair(filter_half_rows, &f[0], &f[1], threads >= 2 && kept->n > FILTER_TWO_THREADS_MIN);
        ok = join_filtered(kept, f);
        kt_summary_merge(&f[0].sum, &f[1].sum);
        r->summary = f[0].sum;
    }
    cpu_corrs_free(&corrs);
    return ok;
}

/* ---- A2.11 MTIA: CPU rows inside [first step, last step end], kernels
 * they launched, and memory kernels starting inside any step (whose missing
 * stream HTA patches with the tid).                                       */
static bool in_any_step(const kt_events *e, const uint32_t *steps, size_t nsteps, int64_t ts)
{
    for (size_t s = 0; s < nsteps; s++)
        if (ts >= e->ts[steps[s]] && ts <= e->ts[steps[s]] + e->dur[steps[s]]) return true;
    return false;
}

static bool filter_rank_mtia(kt_rank *r, kt_hta_rows *kept, const kt_strtab *strs)
{
    kt_events *e = &r->ev;
    size_t cap = kept->n ? kept->n : 1;
    uint32_t *steps = malloc(cap * sizeof *steps);
    kt_i64map corr = { 0 };
    if (!steps || !kt_i64map_init(&corr, kept->n)) goto oom;
    size_t nsteps = 0, n = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t j = 0; j < kept->n; j++) {
        uint32_t i = kept->id[j];
        if (!kt_hta_is_step_name(name_of(strs, e, i))) continue;
        steps[nsteps++] = i;
        if (!is_cpu_category(kt_strtab_get(strs, e->cat[i]))) continue;
        if (e->ts[i] < t0) t0 = e->ts[i];
        if (e->ts[i] + e->dur[i] > t1) t1 = e->ts[i] + e->dur[i];
    }
    for (size_t j = 0; j < kept->n; j++) {
        uint32_t i = kept->id[j];
        if (is_cpu_category(kt_strtab_get(strs, e->cat[i])) && e->ts[i] >= t0 &&
            e->ts[i] + e->dur[i] <= t1 && e->corr[i] != -1)
            kt_i64map_slot(&corr, e->corr[i], 1);
    }
    for (size_t j = 0; j < kept->n; j++) {
        uint32_t i = kept->id[j];
        const char *cat = kt_strtab_get(strs, e->cat[i]);
        bool cpu = is_cpu_category(cat) && e->ts[i] >= t0 && e->ts[i] + e->dur[i] <= t1;
        bool kernel = is_gpu_kernel_category(cat) && kt_i64map_get(&corr, e->corr[i], 0);
        bool memory = is_memory_name(name_of(strs, e, i)) && in_any_step(e, steps, nsteps, e->ts[i]);
        if (memory && kt_ev_stream(e, i) == -1 && !kt_id_is_str(kt_event_tid(r, i)) &&
            !kt_events_set_stream(e, i, (int32_t)kt_event_tid(r, i)))
            goto oom;
        if (cpu || kernel || memory) kept->id[n++] = i; /* n <= j: in place */
    }
    free(steps);
    kt_i64map_free(&corr);
    kept->n = n;
    kt_summary_scan_rows(r, strs, kept->id, n);
    return true;
oom:
    free(steps);
    kt_i64map_free(&corr);
    return false;
}

/* Narrows each rank's kept rows to those HTA's step filter keeps; false
 * when memory ran out.  *summarized: the ranks' summaries are of them.   */
static bool filter_incomplete_steps(kt_trace *t, int threads, bool *summarized)
{
    *summarized = false;
    if (t->nranks == 0 || distinct_step_names(t) < 2) return true; /* HTA only warns */
    bool mtia = device_is_mtia(t);
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        kt_hta_rows *kept = r->hta_rows;
        uint32_t first = kept->n ? kept->id[0] : KT_NONE;
        if (!(mtia ? filter_rank_mtia(r, kept, t->strs) : filter_rank(r, kept, t->strs, threads))) return false;
        /* row 0 stays HTA's first row only if it is the first kept here */
        r->hta_row0_kept &= kept->n && kept->id[0] == first;
    }
    *summarized = true;
    return true;
}

/* HTA's rows of each rank (hta_rows.c: read by the loader, or here),
 * aligned and filtered as HTA does; then each rank's columns compacted to
 * the rows left (one pass) and indexed.                                   */
static kt_status select_hta_rows(kt_trace *t, int threads)
{
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        if (!r->hta_rows && !kt_hta_rows_read(r, t->strs, threads)) return KT_ENOMEM;
        kt_hta_rows_finish(r);
        const kt_hta_rows *kept = r->hta_rows;
        r->hta_row0_kept = r->ev.n == r->total_events && kept->n && kept->id[0] == 0;
        kt_summary_reset(&r->summary);
        r->summary.origin = kept->at.first; /* the full summary waits until the rows are final */
    }
    kt_trace_align(t); /* HTA aligns before filtering */
    bool summarized;
    if (!filter_incomplete_steps(t, threads, &summarized)) return KT_ENOMEM;
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        kt_hta_rows *kept = r->hta_rows;
        if (!summarized) kt_summary_scan_rows(r, t->strs, kept->id, kept->n);
        if (!kt_events_select(&r->ev, kept->id, kept->n, threads)) return KT_ENOMEM;
        kt_hta_rows_free(kept);
        r->hta_rows = NULL;
        kt_status s = kt_index_build_threads(r, t->strs, threads);
        if (s != KT_OK) return s;
    }
    return KT_OK;
}

kt_status kt_apply_hta_compat_threads(kt_trace *t, int threads)
{
    kt_status s = select_hta_rows(t, threads);
    for (size_t k = 0; k < t->nranks; k++) {
        kt_hta_rows_free(t->ranks[k]->hta_rows);
        t->ranks[k]->hta_rows = NULL;
    }
    return s;
}

kt_status kt_apply_hta_compat(kt_trace *t)
{
    return kt_apply_hta_compat_threads(t, 2);
}
