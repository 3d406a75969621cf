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

/* Step numbers of names, remembered per name id: a trace has millions of
 * annotations but few distinct names, so parse each name about once.      */
#define MEMO_SLOTS 1024
typedef struct step_memo {
    uint32_t name[MEMO_SLOTS];
    int64_t num[MEMO_SLOTS];
} step_memo;

static int64_t step_number_of(step_memo *m, const kt_strtab *strs, uint32_t name)
{
    size_t slot = name % MEMO_SLOTS;
    if (m->name[slot] != name) {
        m->name[slot] = name;
        m->num[slot] = kt_profiler_step_number(kt_strtab_get(strs, name));
    }
    return m->num[slot];
}

static bool is_annotation(const kt_events *e, uint32_t i)
{
    return (e->kind[i] == KT_K_USER_ANNOTATION || e->kind[i] == KT_K_GPU_ANNOTATION) &&
           e->ph[i] == 'X' && e->name[i] != KT_NONE;
}

/* Steps of one annotation kind among the step events (file order), sorted
 * by ts (stable); NULL+0 when none.                                          */
static kt_status collect(const kt_rank *r, const kt_strtab *strs, step_memo *memo,
                         const uint32_t *step_evs, size_t nsteps, uint8_t kind, kt_step **out,
                         size_t *count, int64_t *maxdur)
{
    const kt_events *e = &r->ev;
    size_t n = 0;
    for (size_t k = 0; k < nsteps; k++) n += e->kind[step_evs[k]] == kind;
    *out = NULL;
    *count = 0;
    *maxdur = 0;
    if (!n) return KT_OK;
    uint32_t *ids = malloc(n * sizeof *ids);
    kt_step *steps = malloc(n * sizeof *steps);
    if (!ids || !steps) goto oom;
    n = 0;
    for (size_t k = 0; k < nsteps; k++)
        if (e->kind[step_evs[k]] == kind) ids[n++] = step_evs[k];
    if (!kt_sort_ids_by_i64(ids, n, e->ts)) goto oom;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = ids[k];
        steps[k] = (kt_step){ .num = step_number_of(memo, strs, e->name[i]), .ev = i,
                              .ts = e->ts[i], .dur = e->dur[i] };
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
    step_memo *memo = malloc(sizeof *memo);
    size_t nann = 0, n = 0;
    uint32_t *ids = memo ? kt_select_events(&r->ev, is_annotation, &nann) : NULL;
    if (!ids) { free(memo); return KT_ENOMEM; }
    memset(memo->name, 0xff, sizeof memo->name); /* KT_NONE: never a name here */
    for (size_t k = 0; k < nann; k++) /* keep the step annotations, in place */
        if (step_number_of(memo, strs, r->ev.name[ids[k]]) >= 0) ids[n++] = ids[k];
    kt_status s = collect(r, strs, memo, ids, n, KT_K_USER_ANNOTATION, &idx->cpu_steps,
                          &idx->ncpu_steps, &idx->cpu_step_maxdur);
    if (s == KT_OK)
        s = collect(r, strs, memo, ids, n, KT_K_GPU_ANNOTATION, &idx->gpu_steps, &idx->ngpu_steps,
                    &idx->gpu_step_maxdur);
    free(ids);
    free(memo);
    return s;
}
