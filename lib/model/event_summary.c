/*
 * event_summary.c — facts about a rank's events as a whole: their time
 * span, HTA's time origin and the evidence for the device type.
 *
 * Each is a pass over every event, and on a multi-GB trace a pass costs
 * ~10 ms that nothing overlaps once loading is done.  The loader folds each
 * event in as it stores it, while its fields are still in registers (and a
 * split file's ranges merge their summaries); whoever changes the events
 * afterwards (--hta-compat) summarizes the rows it keeps with
 * kt_summary_scan_rows.
 */
#include "model.h"
#include "model_build.h"

#include <string.h>

void kt_summary_reset(kt_event_summary *s)
{
    *s = (kt_event_summary){ .first_ts = INT64_MAX, .last_end = INT64_MIN, .origin = INT64_MAX,
                             .last_call_name = KT_NONE };
}

/* Which vendor's API a runtime/driver call belongs to: looked up only when
 * the name differs from the previous call's (calls repeat a few names).  */
void kt_summary_note_call(kt_event_summary *s, const kt_strtab *strs, uint32_t name, uint32_t cat)
{
    if (name == s->last_call_name) return;
    s->last_call_name = name;
    const char *n = name == KT_NONE ? "" : kt_strtab_get(strs, name);
    s->hip_calls |= kt_starts_with(n, "hip");
    s->cuda_calls |= kt_starts_with(n, "cu");
    s->mtia_calls |= cat != KT_NONE && kt_starts_with(kt_strtab_get(strs, cat), "mtia");
}

void kt_summary_merge(kt_event_summary *dst, const kt_event_summary *src)
{
    dst->first_ts = src->first_ts < dst->first_ts ? src->first_ts : dst->first_ts;
    dst->last_end = src->last_end > dst->last_end ? src->last_end : dst->last_end;
    dst->origin = src->origin < dst->origin ? src->origin : dst->origin;
    dst->gpu_work |= src->gpu_work;
    dst->hip_calls |= src->hip_calls;
    dst->cuda_calls |= src->cuda_calls;
    dst->mtia_calls |= src->mtia_calls;
}

void kt_summary_scan_rows(kt_rank *r, const kt_strtab *strs, const uint32_t *ids, size_t n)
{
    const kt_events e = r->ev; /* columns and summary in locals: no reloads after the stores */
    kt_event_summary s;
    kt_summary_reset(&s);
    for (size_t k = 0; k < n; k++) {
        size_t i = ids ? ids[k] : k;
        kt_summary_add(&s, strs, (char)e.ph[i], e.kind[i], e.cat[i], e.name[i], e.ts[i], e.dur[i]);
    }
    r->summary = s;
}

void kt_summary_scan(kt_rank *r, const kt_strtab *strs)
{
    kt_summary_scan_rows(r, strs, NULL, r->ev.n);
}

bool kt_summary_span(const kt_event_summary *s, int64_t *first, int64_t *last)
{
    *first = s->first_ts;
    *last = s->last_end;
    return s->first_ts != INT64_MAX;
}

/* GPU work without API calls: the vendor another profiler's format implies. */
static kt_device_type source_vendor(const kt_rank *r)
{
    char v[16];
    if (!kt_rank_source(r, "kineta_vendor", v, sizeof v)) return KT_DEV_UNKNOWN;
    return !strcmp(v, "ROCm") ? KT_DEV_ROCM : !strcmp(v, "CUDA") ? KT_DEV_CUDA : KT_DEV_UNKNOWN;
}

kt_device_type kt_summary_device_type(const kt_rank *r, const kt_strtab *strs)
{
    const kt_event_summary *s = &r->summary;
    bool mtia_backend = r->backend != KT_NONE && strstr(kt_strtab_get(strs, r->backend), "mtia");
    return mtia_backend || s->mtia_calls ? KT_DEV_MTIA
           : !s->gpu_work                ? KT_DEV_CPU_ONLY
           : s->hip_calls                ? KT_DEV_ROCM
           : s->cuda_calls               ? KT_DEV_CUDA
                                         : source_vendor(r);
}
