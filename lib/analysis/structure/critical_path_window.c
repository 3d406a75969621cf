/*
 * critical_path_window.c — the region of interest of a critical path
 * (spec A4.11 step 1): the time window of the chosen annotation instances,
 * the CPU events that start in it and the GPU events launched from it.
 *
 * HTA numbers instances in file order over every event whose name contains
 * the annotation (ProfilerStep matches the GPU-side step annotations too);
 * we number the CPU-side ones in time order, and a trace without the
 * annotation (no ProfilerStep) is analysed whole instead of refused.
 */
#include "analysis/structure/critical_path_graph.h"
#include "analysis/common/name_match.h"

#include <stdio.h>
#include <stdlib.h>

static bool is_cpu_side(const kt_events *e, uint32_t i)
{
    return !cp_is_stream_event(e, i) && e->kind[i] != KT_K_GPU_ANNOTATION;
}

/* The complete events HTA keeps (under hta only those with a category):
 * the window's candidates, listed while looking for the window so that the
 * second pass visits only them.                                            */
static bool is_candidate(const kt_events *e, const cp_config *cfg, uint32_t i)
{
    return e->ph[i] == 'X' && !(cfg->hta && e->cat[i] == KT_NONE);
}

static int cmp_by_ts(const void *a, const void *b, void *ctx)
{
    const kt_events *e = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (e->ts[x] != e->ts[y]) return e->ts[x] < e->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The annotation's instances: HTA's every matching row in file order, or
 * ours: the CPU-side rows in time order.  The candidates into cand.       */
static uint32_t *annotation_rows(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, size_t *n,
                                 uint32_t *cand, size_t *ncand)
{
    const kt_events *e = &r->ev;
    uint32_t *rows = malloc((e->n ? e->n : 1) * sizeof *rows);
    *n = 0;
    if (!rows) return NULL;
    kt_name_match named; /* a strstr per event was 6% of the analysis */
    kt_name_match_init(&named, strs, cfg->annotation);
    for (uint32_t i = 0, nev = e->n; i < nev; i++) {
        if (!is_candidate(e, cfg, i)) continue;
        cand[(*ncand)++] = i;
        if (kt_name_contains(&named, e->name[i]) && (cfg->hta || is_cpu_side(e, i))) rows[(*n)++] = i;
    }
    kt_name_match_free(&named);
    if (!cfg->hta) qsort_r(rows, *n, sizeof *rows, cmp_by_ts, (void *)e);
    return rows;
}

static void whole_trace(const kt_events *e, const cp_config *cfg, int64_t *first, int64_t *last, uint32_t *cand,
                        size_t *ncand)
{
    *first = INT64_MAX;
    *last = INT64_MIN;
    for (uint32_t i = 0, nev = e->n; i < nev; i++) {
        if (is_candidate(e, cfg, i)) cand[(*ncand)++] = i;
        if (e->ph[i] != 'X' || e->kind[i] == KT_K_TRACE_SPAN) continue;
        int64_t end = e->ts[i] + (e->dur[i] > 0 ? e->dur[i] : 0);
        *first = e->ts[i] < *first ? e->ts[i] : *first;
        *last = end > *last ? end : *last;
    }
}

static kt_status annotation_window(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, int64_t *first,
                                   int64_t *last, uint32_t *cand, size_t *ncand, char *err, size_t errlen)
{
    size_t n;
    uint32_t *rows = annotation_rows(r, strs, cfg, &n, cand, ncand);
    if (!rows) return KT_ENOMEM;
    kt_status s = KT_OK;
    if (n == 0) {
        snprintf(err, errlen, "rank %d: no event is named like \"%s\" (--annotation \"\" analyses the whole trace)",
                 r->rank, cfg->annotation);
        s = KT_EANALYSIS;
    } else if (cfg->inst_first < 0 || (size_t)cfg->inst_first >= n || cfg->inst_last < cfg->inst_first) {
        snprintf(err, errlen, "rank %d: instance %lld of \"%s\" does not exist (%zu instances: 0-%zu)",
                 r->rank, (long long)cfg->inst_first, cfg->annotation, n, n - 1);
        s = KT_EANALYSIS;
    } else {
        const kt_events *e = &r->ev;
        size_t hi = (size_t)cfg->inst_last < n ? (size_t)cfg->inst_last : n - 1;
        *first = INT64_MAX;
        *last = INT64_MIN;
        for (size_t k = (size_t)cfg->inst_first; k <= hi; k++) {
            int64_t end = e->ts[rows[k]] + e->dur[rows[k]];
            *first = e->ts[rows[k]] < *first ? e->ts[rows[k]] : *first;
            *last = end > *last ? end : *last;
        }
    }
    free(rows);
    return s;
}

static bool in_window(const kt_events *e, uint32_t i, int64_t first, int64_t last)
{
    return e->ts[i] >= first && e->ts[i] <= last && e->dur[i] > 0;
}

/* Is candidate i in the window? */
static bool keep_event(const kt_rank *r, const cp_config *cfg, uint32_t wait_event, uint32_t i, int64_t first,
                       int64_t last)
{
    const kt_events *e = &r->ev;
    if (!cp_is_stream_event(e, i)) return in_window(e, i, first, last);
    if (e->name[i] == wait_event && wait_event != KT_NONE) return true;
    uint32_t call = kt_gpu_launcher(r, i);
    return call != KT_NONE && in_window(e, call, first, last) &&
           (!cfg->hta || cp_hta_pointed_gpu(r, call) == i); /* HTA: graph launches keep one (#290) */
}

/* The candidates kept[0..ncand) in the window, in place. */
static size_t keep_events(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, uint32_t *kept,
                          size_t ncand, int64_t first, int64_t last)
{
    uint32_t wait_event = kt_strtab_find(strs, "Stream Wait Event", 17);
    size_t n = 0;
    for (size_t j = 0; j < ncand; j++)
        if (keep_event(r, cfg, wait_event, kept[j], first, last)) kept[n++] = kept[j];
    return n;
}

kt_status cp_select_window(const kt_rank *r, const kt_strtab *strs, const cp_config *cfg, uint32_t *kept,
                           size_t *nkept, int64_t *first, int64_t *last, char *err, size_t errlen)
{
    size_t ncand = 0;
    if (cfg->annotation[0] == '\0') {
        whole_trace(&r->ev, cfg, first, last, kept, &ncand);
    } else {
        kt_status s = annotation_window(r, strs, cfg, first, last, kept, &ncand, err, errlen);
        if (s != KT_OK) return s;
    }
    *nkept = keep_events(r, strs, cfg, kept, ncand, *first, *last);
    return KT_OK;
}
