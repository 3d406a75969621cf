/*
 * steps.c — the training iterations: ProfilerStep#N intervals.
 *
 * torch.profiler's schedule wraps each step in a `ProfilerStep#N`
 * user_annotation on the CPU thread, and Kineto mirrors it as a
 * gpu_user_annotation on the GPU that spans the work that step actually ran
 * (later than the CPU copy).  Per-step analyses, straggler detection and
 * HTA's incomplete-step filtering all start from these intervals.
 * Step numbers follow HTA: `ProfilerStep\s*#\s*(\d+)` at the start of the name.
 */
#include "index_build.h"
#include "radix.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int64_t kt_profiler_step_number(const char *name)
{
    static const char prefix[] = "ProfilerStep";
    if (!name || strncmp(name, prefix, sizeof prefix - 1)) return -1;
    const char *p = name + sizeof prefix - 1;
    while (isspace((unsigned char)*p)) p++;
    if (*p++ != '#') return -1;
    while (isspace((unsigned char)*p)) p++;
    if (!isdigit((unsigned char)*p)) return -1;
    int64_t v = 0;
    for (; isdigit((unsigned char)*p) && v < INT64_MAX / 10 - 9; p++) v = v * 10 + (*p - '0');
    return v;
}

static bool is_step(const kt_events *e, const kt_strtab *strs, uint8_t kind, uint32_t i)
{
    return e->kind[i] == kind && e->ph[i] == 'X' && e->name[i] != KT_NONE &&
           kt_profiler_step_number(kt_strtab_get(strs, e->name[i])) >= 0;
}

/* Steps of one annotation kind, sorted by ts (stable); NULL+0 when none. */
static kt_status collect(const kt_rank *r, const kt_strtab *strs, uint8_t kind, kt_step **out,
                         size_t *count, int64_t *maxdur)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    for (uint32_t i = 0; i < e->n; i++) n += is_step(e, strs, kind, i);
    *out = NULL;
    *count = 0;
    *maxdur = 0;
    if (!n) return KT_OK;
    uint32_t *ids = malloc(n * sizeof *ids);
    kt_step *steps = malloc(n * sizeof *steps);
    if (!ids || !steps) goto oom;
    n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (is_step(e, strs, kind, i)) ids[n++] = i;
    if (!kt_sort_ids_by_i64(ids, n, e->ts)) goto oom;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ids[k];
        steps[k] = (kt_step){ .num = kt_profiler_step_number(kt_strtab_get(strs, e->name[i])),
                              .ev = i, .ts = e->ts[i], .dur = e->dur[i] };
        if (e->dur[i] > *maxdur) *maxdur = e->dur[i];
    }
    free(ids);
    *out = steps;
    *count = n;
    return KT_OK;
oom:
    free(ids);
    free(steps);
    return KT_ENOMEM;
}

kt_status kt_build_steps(const kt_rank *r, const kt_strtab *strs, kt_index *idx)
{
    kt_status s = collect(r, strs, KT_K_USER_ANNOTATION, &idx->cpu_steps, &idx->ncpu_steps,
                          &idx->cpu_step_maxdur);
    if (s != KT_OK) return s;
    return collect(r, strs, KT_K_GPU_ANNOTATION, &idx->gpu_steps, &idx->ngpu_steps,
                   &idx->gpu_step_maxdur);
}
