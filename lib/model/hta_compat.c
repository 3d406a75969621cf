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

/* The double Python's float() gives for the µs decimal of ns. */
static double us_double(int64_t ns)
{
    if (ns > -EXACT_DOUBLE_INT && ns < EXACT_DOUBLE_INT) return (double)ns / 1000.0;
    char buf[48]; /* (double)ns would round before the division: go via text */
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    int n = snprintf(buf, sizeof buf, "%s%llue-3", ns < 0 ? "-" : "", (unsigned long long)a);
    kt_num v;
    kt_parse_number(buf, buf + n, &v); /* a number, as written just above */
    return v.f;
}

/* ts = ceil(ts), end = floor(ts + dur), dur = end - ts, all in µs. */
void kt_hta_round_us(int64_t *ts_ns, int64_t *dur_ns)
{
    double ts = us_double(*ts_ns);
    double end = ts + us_double(*dur_ns);
    int64_t ts_us = (int64_t)ceil(ts), end_us = (int64_t)floor(end);
    *ts_ns = ts_us * 1000;
    *dur_ns = (end_us - ts_us) * 1000;
}

static void round_to_us(kt_events *e, uint32_t i)
{
    kt_hta_round_us(&e->ts[i], &e->dur[i]);
}

static bool drop_and_round(kt_rank *r)
{
    kt_events *e = &r->ev;
    uint32_t *keep = malloc((e->n ? e->n : 1) * sizeof *keep);
    if (!keep) return false;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (hta_keeps(e, i)) {
            if (r->ns_resolution) round_to_us(e, i);
            keep[n++] = i;
        }
    bool ok = kt_events_select(e, keep, n);
    free(keep);
    return ok;
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

/* Distinct ProfilerStep#N names over all ranks, counted up to 2. */
static int distinct_step_names(const kt_trace *t)
{
    uint32_t first = KT_NONE;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_events *e = &t->ranks[k]->ev;
        for (uint32_t i = 0; i < e->n; i++)
            if (e->name[i] != first && is_step_name(name_of(t->strs, e, i))) {
                if (first != KT_NONE) return 2;
                first = e->name[i];
            }
    }
    return first != KT_NONE;
}

/* A2.9 on the first rank: MTIA by backend or by its launch call's name. */
static bool device_is_mtia(const kt_trace *t)
{
    const kt_rank *r = t->ranks[0];
    if (r->backend != KT_NONE && strstr(kt_strtab_get(t->strs, r->backend), "mtia:hccl")) return true;
    static const char *const launches[] = { "cudaLaunchKernel", "hipLaunchKernel",
                                            "runFunction - job_prep_and_submit_for_execution" };
    for (size_t l = 0; l < 3; l++) {
        uint32_t id = kt_strtab_find(t->strs, launches[l], strlen(launches[l]));
        for (uint32_t i = 0; id != KT_NONE && i < r->ev.n; i++)
            if (r->ev.name[i] == id) return l == 2;
    }
    return false;
}

/* ---- A2.11 non-MTIA: last step dropped, GPU rows joined on correlation -- */
typedef struct gpu_names {
    uint32_t event_sync, context_sync;
} gpu_names;

/* HTA's GPUKernelFilter: device-level syncs have stream -1 but run on GPU. */
static bool hta_gpu_row(const kt_events *e, uint32_t i, gpu_names g)
{
    return (kt_ev_stream(e, i) >= 0 && e->corr[i] >= 0) ||
           (e->name[i] != KT_NONE && (e->name[i] == g.event_sync || e->name[i] == g.context_sync));
}

/* CPU rows are kept when they start before the last ProfilerStep starts
 * (no step on this rank: before its first CPU row, i.e. none).           */
static int64_t last_step_start(const kt_events *e, const kt_strtab *strs, gpu_names g, bool *any_cpu)
{
    int64_t last = INT64_MIN, first_cpu = INT64_MAX;
    *any_cpu = false;
    for (uint32_t i = 0; i < e->n; i++) {
        if (hta_gpu_row(e, i, g)) continue;
        *any_cpu = true;
        if (e->ts[i] < first_cpu) first_cpu = e->ts[i];
        if (e->ts[i] > last && is_step_name(name_of(strs, e, i))) last = e->ts[i];
    }
    return last != INT64_MIN ? last : first_cpu;
}

/* Row ids to keep, in file order; a GPU row repeats once per kept CPU row
 * with its correlation (pandas inner merge), so it may appear 0..k times. */
static uint32_t *filter_rank(const kt_events *e, const kt_strtab *strs, gpu_names g, size_t *count)
{
    bool any_cpu;
    int64_t cut = last_step_start(e, strs, g, &any_cpu);
    kt_i64map cpu_corr = { 0 };
    size_t n = 0, cap = e->n ? e->n : 1;
    uint32_t *keep = malloc(cap * sizeof *keep);
    if (!keep || !kt_i64map_init(&cpu_corr, e->n)) goto oom;
    for (uint32_t i = 0; i < e->n; i++)
        if (!hta_gpu_row(e, i, g) && (!any_cpu || e->ts[i] < cut))
            (*kt_i64map_slot(&cpu_corr, e->corr[i], 0))++;
    for (uint32_t i = 0; i < e->n; i++) {
        uint32_t times = !any_cpu ? 1 : hta_gpu_row(e, i, g) ? kt_i64map_get(&cpu_corr, e->corr[i], 0)
                                      : e->ts[i] < cut;
        for (uint32_t k = 0; k < times; k++) {
            if (n == cap) {
                uint32_t *grown = realloc(keep, 2 * cap * sizeof *keep);
                if (!grown) goto oom;
                keep = grown;
                cap *= 2;
            }
            keep[n++] = i;
        }
    }
    kt_i64map_free(&cpu_corr);
    *count = n;
    return keep;
oom:
    kt_i64map_free(&cpu_corr);
    free(keep);
    return NULL;
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

static uint32_t *filter_rank_mtia(kt_rank *r, const kt_strtab *strs, size_t *count)
{
    kt_events *e = &r->ev;
    uint32_t *steps = malloc((e->n ? e->n : 1) * sizeof *steps);
    uint32_t *keep = malloc((e->n ? e->n : 1) * sizeof *keep);
    kt_i64map corr = { 0 };
    if (!steps || !keep || !kt_i64map_init(&corr, e->n)) goto oom;
    size_t nsteps = 0, n = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (uint32_t i = 0; i < e->n; i++) {
        if (!is_step_name(name_of(strs, e, i))) continue;
        steps[nsteps++] = i;
        if (!is_cpu_category(kt_strtab_get(strs, e->cat[i]))) continue;
        if (e->ts[i] < t0) t0 = e->ts[i];
        if (e->ts[i] + e->dur[i] > t1) t1 = e->ts[i] + e->dur[i];
    }
    for (uint32_t i = 0; i < e->n; i++)
        if (is_cpu_category(kt_strtab_get(strs, e->cat[i])) && e->ts[i] >= t0 &&
            e->ts[i] + e->dur[i] <= t1 && e->corr[i] != -1)
            kt_i64map_slot(&corr, e->corr[i], 1);
    for (uint32_t i = 0; i < e->n; i++) {
        const char *cat = kt_strtab_get(strs, e->cat[i]);
        bool cpu = is_cpu_category(cat) && e->ts[i] >= t0 && e->ts[i] + e->dur[i] <= t1;
        bool kernel = is_gpu_kernel_category(cat) && kt_i64map_get(&corr, e->corr[i], 0);
        bool memory = is_memory_name(name_of(strs, e, i)) && in_any_step(e, steps, nsteps, e->ts[i]);
        if (memory && kt_ev_stream(e, i) == -1 && !kt_id_is_str(kt_event_tid(r, i)) &&
            !kt_events_set_stream(e, i, (int32_t)kt_event_tid(r, i)))
            goto oom;
        if (cpu || kernel || memory) keep[n++] = i;
    }
    free(steps);
    kt_i64map_free(&corr);
    *count = n;
    return keep;
oom:
    free(steps);
    free(keep);
    kt_i64map_free(&corr);
    return NULL;
}

static bool filter_incomplete_steps(kt_trace *t)
{
    if (t->nranks == 0 || distinct_step_names(t) < 2) return true; /* HTA only warns */
    bool mtia = device_is_mtia(t);
    gpu_names g = { kt_strtab_find(t->strs, "Event Sync", 10),
                    kt_strtab_find(t->strs, "Context Sync", 12) };
    for (size_t k = 0; k < t->nranks; k++) {
        kt_events *e = &t->ranks[k]->ev;
        size_t n = 0;
        uint32_t *keep = mtia ? filter_rank_mtia(t->ranks[k], t->strs, &n) : filter_rank(e, t->strs, g, &n);
        if (keep) t->ranks[k]->hta_row0_kept &= n && keep[0] == 0;
        bool ok = keep && kt_events_select(e, keep, n);
        free(keep);
        if (!ok) return false;
    }
    return true;
}

kt_status kt_apply_hta_compat(kt_trace *t)
{
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        r->hta_row0_kept = r->ev.n && r->ev.n == r->total_events && hta_keeps(&r->ev, 0);
        if (!drop_and_round(r)) return KT_ENOMEM;
        kt_summary_scan(r, t->strs);
    }
    kt_trace_align(t); /* HTA aligns before filtering */
    if (!filter_incomplete_steps(t)) return KT_ENOMEM;
    for (size_t k = 0; k < t->nranks; k++) {
        kt_summary_scan(t->ranks[k], t->strs);
        kt_status s = kt_index_build(t->ranks[k], t->strs);
        if (s != KT_OK) return s;
    }
    return KT_OK;
}
