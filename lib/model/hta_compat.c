/*
 * hta_compat.c — HTA's load semantics, for --hta-compat.
 *
 * HTA does not analyze the trace as written: it drops every event that is
 * not a complete event (A2.2), rounds ns-resolution times to whole µs in a
 * way that gives short events dur 0 or -1 (A2.3), and drops the last
 * profiled step and the GPU work without a kept launch (A2.11).  Users who
 * compare our numbers with HTA's need the same event set, so this file
 * reproduces those steps, quirks included, on the columnar model and then
 * builds the indexes.  The default (no compat) never does any of this.
 */
#include "index.h"
#include "i64map.h"
#include "json_number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A2.2: HTA keeps rows with a dur and a cat, except the Trace span --- */
static bool hta_keeps(const kt_events *e, uint32_t i)
{
    return e->dur[i] >= 0 && e->cat[i] != KT_NONE && e->kind[i] != KT_K_TRACE_SPAN;
}

/* ---- A2.3: ns rounding in float64, exactly as pandas computes it -------- */
#define EXACT_DOUBLE_INT ((int64_t)1 << 53)

/* The double Python's float() gives for the µs decimal of ns, via text:
 * the slow way, for the values the ways below do not cover.              */
static double us_double_text(int64_t ns)
{
    char buf[48];
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, sizeof buf, "%s%llue-3", ns < 0 ? "-" : "", (unsigned long long)a);
    kt_num v;
    kt_parse_number(buf, buf + n, &v); /* a number, as written just above */
    return v.f;
}

/* ns / 1000 correctly rounded (ties to even), for ns >= 2^53: (double)ns
 * would round before the division, and epoch times in ns are all this
 * large.  With v = a + b/1000 (a = ns / 1000 < 2^54), the double's 53 bits
 * are the integer part of v * 2^s for s = 52 - floor(log2 a), and that
 * product's fraction is (b << s) mod 1000 thousandths.  false when a has
 * 54 bits (ns past 9.007e18, beyond the year 2255).                       */
static bool us_double_exact(int64_t ns, double *out)
{
    uint64_t a = (uint64_t)ns / 1000, b = (uint64_t)ns % 1000;
    int s = 52 - (63 - __builtin_clzll(a)); /* a >= 2^43 */
    if (s < 0) return false;
    uint64_t frac = b << s, q = (a << s) + frac / 1000, r = frac % 1000;
    q += r > 500 || (r == 500 && (q & 1));
    uint64_t bits = (uint64_t)(1023 - s) << 52; /* the double 2^-s */
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    *out = (double)q * scale; /* exact: q <= 2^53 times a power of two (no divide) */
    return true;
}

/* The double Python's float() gives for the µs decimal of ns. */
static inline double us_double(int64_t ns)
{
    if (ns > -EXACT_DOUBLE_INT && ns < EXACT_DOUBLE_INT) return (double)ns / 1000.0;
    double v;
    return ns > 0 && us_double_exact(ns, &v) ? v : us_double_text(ns);
}

/* ts = ceil(ts), end = floor(ts + dur), dur = end - ts, all in µs. */
static inline void round_us(int64_t *ts_ns, int64_t *dur_ns)
{
    double ts = us_double(*ts_ns);
    double end = ts + us_double(*dur_ns);
    int64_t ts_us = (int64_t)ceil(ts), end_us = (int64_t)floor(end);
    *ts_ns = ts_us * 1000;
    *dur_ns = (end_us - ts_us) * 1000;
}

void kt_hta_round_us(int64_t *ts_ns, int64_t *dur_ns)
{
    round_us(ts_ns, dur_ns);
}

/* ---- names HTA matches with regexes (A3) -------------------------------- */
static bool is_step_name(const char *s) /* ^ProfilerStep#(\d+) */
{
    return !strncmp(s, "ProfilerStep#", 13) && isdigit((unsigned char)s[13]);
}

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

/* ---- A2.11 non-MTIA: last step dropped, GPU rows joined on correlation -- */
/* (the rows kept, and what this filter needs to know of each)             */
typedef struct gpu_names {
    uint32_t event_sync, context_sync;
} gpu_names;

/* HTA's GPUKernelFilter: device-level syncs have stream -1 but run on GPU. */
static bool hta_gpu_row(const kt_events *e, uint32_t i, gpu_names g)
{
    return (kt_ev_stream(e, i) >= 0 && e->corr[i] >= 0) ||
           (e->name[i] != KT_NONE && (e->name[i] == g.event_sync || e->name[i] == g.context_sync));
}

typedef struct launch {
    int64_t ts;
    int32_t corr;
} launch;

/* The rows HTA keeps, as ids into a rank's events: the step filter picks
 * from these and the rank's columns are compacted once, at the end.  What
 * the non-MTIA filter needs of each row is noted while the row is first
 * read (a pass over a big trace's columns costs more than its arithmetic). */
typedef struct rows {
    uint32_t *id;
    size_t n;
    uint8_t *gpu;     /* per row: 1 on HTA's GPU side                      */
    size_t ncpu;      /* rows on the CPU side                              */
    int64_t cut;      /* CPU rows starting before it stay                  */
    launch *launches; /* the CPU rows with a correlation                   */
    size_t nlaunches, cap_launches;
    bool gpu_none;    /* some GPU row has no correlation (corr -1)         */
} rows;

static void rows_free(rows *k)
{
    free(k->id);
    free(k->gpu);
    free(k->launches);
}

static bool add_launch(rows *k, int64_t ts, int32_t corr)
{
    if (k->nlaunches == k->cap_launches) {
        size_t cap = k->cap_launches ? 2 * k->cap_launches : 1024;
        launch *grown = realloc(k->launches, cap * sizeof *grown);
        if (!grown) return false;
        k->launches = grown;
        k->cap_launches = cap;
    }
    k->launches[k->nlaunches++] = (launch){ ts, corr };
    return true;
}

/* Row i of e, kept as row j: its side, and on the CPU side the cut (the
 * last ProfilerStep's start; with no step, the first CPU row's: none stay). */
static bool note_side(rows *k, const kt_events *e, const kt_strtab *strs, gpu_names g, uint32_t i,
                      int64_t *last_step, int64_t *first_cpu)
{
    size_t j = k->n;
    if ((k->gpu[j] = hta_gpu_row(e, i, g))) {
        k->gpu_none |= e->corr[i] == -1;
        return true;
    }
    k->ncpu++;
    int64_t ts = e->ts[i];
    if (ts < *first_cpu) *first_cpu = ts;
    if (ts > *last_step && is_step_name(name_of(strs, e, i))) *last_step = ts;
    return e->corr[i] == -1 || add_launch(k, ts, e->corr[i]);
}

/* ---- A2.2, A2.3: HTA's rows, rounded ------------------------------------ */
/* Ranks with more events than this round on two threads: below it a
 * thread costs more than it saves.                                        */
#define TWO_THREADS_MIN_EVENTS 200000

/* One half of a rank's rows, read on its own thread: its kept rows go to
 * the rank's id/gpu arrays from its own first row on (a half keeps at most
 * its rows), its launches to an array of its own.                        */
typedef struct half {
    kt_rank *r;
    const kt_strtab *strs;
    gpu_names g;
    uint32_t lo, hi;
    rows k;
    int64_t first, last_step, first_cpu;
    bool ok;
} half;

/* HTA's rows of the half, rounded in place, with their sides. */
static void *drop_and_round_half(void *arg)
{
    half *h = arg;
    kt_events *e = &h->r->ev;
    h->first = h->first_cpu = INT64_MAX;
    h->last_step = INT64_MIN;
    h->ok = true;
    for (uint32_t i = h->lo; h->ok && i < h->hi; i++) {
        if (!hta_keeps(e, i)) continue;
        if (h->r->ns_resolution) round_us(&e->ts[i], &e->dur[i]);
        if (e->ph[i] == 'X' && e->ts[i] < h->first) h->first = e->ts[i];
        h->ok = note_side(&h->k, e, h->strs, h->g, i, &h->last_step, &h->first_cpu);
        h->k.id[h->k.n++] = i;
    }
    return NULL;
}

/* The second half's rows after the first's, in file order: k is then what
 * one pass over the rank gives, whatever the number of threads.           */
static bool join_halves(half *h)
{
    rows *k = &h[0].k, *b = &h[1].k;
    memmove(k->id + k->n, b->id, b->n * sizeof *k->id);
    memmove(k->gpu + k->n, b->gpu, b->n);
    k->n += b->n;
    k->ncpu += b->ncpu;
    k->gpu_none |= b->gpu_none;
    bool ok = h[0].ok && h[1].ok;
    for (size_t l = 0; ok && l < b->nlaunches; l++) ok = add_launch(k, b->launches[l].ts, b->launches[l].corr);
    free(b->launches);
    if (h[1].first < h[0].first) h[0].first = h[1].first;
    if (h[1].first_cpu < h[0].first_cpu) h[0].first_cpu = h[1].first_cpu;
    if (h[1].last_step > h[0].last_step) h[0].last_step = h[1].last_step;
    return ok;
}

/* HTA's rows of r, rounded in place, with their sides, and the origin
 * kt_trace_align takes from them (the earliest complete event's ts, as
 * kt_summary_add finds it): the full summary waits until the rows are final.
 * Big ranks are read in two halves at once.                               */
static bool drop_and_round(kt_rank *r, const kt_strtab *strs, gpu_names g, rows *k, int64_t *origin,
                           int threads)
{
    kt_events *e = &r->ev;
    size_t cap = e->n ? e->n : 1;
    if (!(k->id = kt_alloc_written(cap * sizeof *k->id)) || !(k->gpu = kt_alloc_written(cap))) return false;
    uint32_t mid = threads >= 2 && e->n > TWO_THREADS_MIN_EVENTS ? (uint32_t)(e->n / 2) : (uint32_t)e->n;
    half h[2] = { { r, strs, g, 0, mid, { .id = k->id, .gpu = k->gpu }, 0, 0, 0, true },
                  { r, strs, g, mid, (uint32_t)e->n, { .id = k->id + mid, .gpu = k->gpu + mid }, 0, 0, 0, true } };
    kt_run_pair(drop_and_round_half, &h[0], &h[1], mid < e->n);
    bool ok = join_halves(h);
    *k = h[0].k;
    k->cut = h[0].last_step != INT64_MIN ? h[0].last_step : h[0].first_cpu;
    *origin = h[0].first;
    return ok;
}

/* ---- A2.11: which filter, over all ranks -------------------------------- */
/* Distinct ProfilerStep#N names over all ranks, counted up to 2. */
static int distinct_step_names(const kt_trace *t, const rows *kept)
{
    uint32_t first = KT_NONE;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_events *e = &t->ranks[k]->ev;
        for (size_t j = 0; j < kept[k].n; j++) {
            uint32_t i = kept[k].id[j];
            if (e->name[i] != first && is_step_name(name_of(t->strs, e, i))) {
                if (first != KT_NONE) return 2;
                first = e->name[i];
            }
        }
    }
    return first != KT_NONE;
}

/* A2.9 on the first rank: MTIA by backend or by its launch call's name. */
static bool device_is_mtia(const kt_trace *t, const rows *kept)
{
    const kt_rank *r = t->ranks[0];
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
static size_t launch_span(const rows *k, int64_t *lo, int64_t *hi)
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

static bool count_cpu_corrs(const kt_events *e, const rows *k, cpu_corrs *c)
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
    const rows *kept;
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
    const rows *kept = f->kept;
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
static bool join_filtered(rows *kept, filter_half *f)
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
static bool filter_rank(kt_rank *r, rows *kept, const kt_strtab *strs, int threads)
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

static bool filter_rank_mtia(kt_rank *r, rows *kept, const kt_strtab *strs)
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
        if (!is_step_name(name_of(strs, e, i))) continue;
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
static bool filter_incomplete_steps(kt_trace *t, rows *kept, int threads, bool *summarized)
{
    *summarized = false;
    if (t->nranks == 0 || distinct_step_names(t, kept) < 2) return true; /* HTA only warns */
    bool mtia = device_is_mtia(t, &kept[0]);
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        uint32_t first = kept[k].n ? kept[k].id[0] : KT_NONE;
        if (!(mtia ? filter_rank_mtia(r, &kept[k], t->strs) : filter_rank(r, &kept[k], t->strs, threads))) return false;
        /* row 0 stays HTA's first row only if it is the first kept here */
        r->hta_row0_kept &= kept[k].n && kept[k].id[0] == first;
    }
    *summarized = true;
    return true;
}

/* Drops, rounds, aligns and filters as HTA does, then compacts each rank's
 * columns to the rows left (one pass) and indexes them.                   */
static kt_status select_hta_rows(kt_trace *t, rows *kept, int threads)
{
    gpu_names g = { kt_strtab_find(t->strs, "Event Sync", 10),
                    kt_strtab_find(t->strs, "Context Sync", 12) };
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        r->hta_row0_kept = r->ev.n && r->ev.n == r->total_events && hta_keeps(&r->ev, 0);
        int64_t origin;
        if (!drop_and_round(r, t->strs, g, &kept[k], &origin, threads)) return KT_ENOMEM;
        kt_summary_reset(&r->summary);
        r->summary.origin = origin;
    }
    kt_trace_align(t); /* HTA aligns before filtering */
    bool summarized;
    if (!filter_incomplete_steps(t, kept, threads, &summarized)) return KT_ENOMEM;
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        if (!summarized) kt_summary_scan_rows(r, t->strs, kept[k].id, kept[k].n);
        if (!kt_events_select(&r->ev, kept[k].id, kept[k].n, threads)) return KT_ENOMEM;
        kt_status s = kt_index_build_threads(r, t->strs, threads);
        if (s != KT_OK) return s;
    }
    return KT_OK;
}

kt_status kt_apply_hta_compat_threads(kt_trace *t, int threads)
{
    rows *kept = calloc(t->nranks ? t->nranks : 1, sizeof *kept);
    kt_status s = kept ? select_hta_rows(t, kept, threads) : KT_ENOMEM;
    for (size_t k = 0; kept && k < t->nranks; k++) rows_free(&kept[k]);
    free(kept);
    return s;
}

kt_status kt_apply_hta_compat(kt_trace *t)
{
    return kt_apply_hta_compat_threads(t, 2);
}
