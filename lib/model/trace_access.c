/*
 * trace_access.c — the loaded model read from outside the library.
 *
 * Bindings (the Python package) and exports (SQLite) need the events
 * themselves, as columns, at memory speed: one call copies a rank's column
 * into the caller's array, so a binding builds a million-row DataFrame
 * without a call per event.  The columnar layout stays private; callers see
 * plain int64 ids and ns times whatever width the model stores.
 */
#include "index.h"

static const char *const kind_names[KT_K__COUNT] = {
    [KT_K_OTHER] = "other",
    [KT_K_CPU_OP] = "cpu_op",
    [KT_K_USER_ANNOTATION] = "user_annotation",
    [KT_K_PYTHON_FUNCTION] = "python_function",
    [KT_K_RUNTIME] = "runtime",
    [KT_K_DRIVER] = "driver",
    [KT_K_KERNEL] = "kernel",
    [KT_K_MEMCPY] = "memcpy",
    [KT_K_MEMSET] = "memset",
    [KT_K_CUDA_SYNC] = "cuda_sync",
    [KT_K_GPU_ANNOTATION] = "gpu_user_annotation",
    [KT_K_PROFILER_RANGE] = "profiler_range",
    [KT_K_TRACE_SPAN] = "trace_span",
    [KT_K_FLOW_START] = "flow_start",
    [KT_K_FLOW_END] = "flow_end",
    [KT_K_INSTANT] = "instant",
    [KT_K_COUNTER] = "counter",
    [KT_K_METADATA] = "metadata",
};

const char *kt_event_kind_name(unsigned kind)
{
    return kind < KT_K__COUNT ? kind_names[kind] : NULL;
}

size_t kt_trace_nranks(const kt_trace *t) { return t ? t->nranks : 0; }

int kt_trace_rank(const kt_trace *t, size_t pos)
{
    return pos < kt_trace_nranks(t) ? t->ranks[pos]->rank : -1;
}

const char *kt_trace_rank_file(const kt_trace *t, size_t pos)
{
    return pos < kt_trace_nranks(t) ? t->ranks[pos]->file : NULL;
}

int kt_trace_hta_compat(const kt_trace *t) { return t && t->hta_compat; }

size_t kt_trace_nevents(const kt_trace *t, size_t pos)
{
    return pos < kt_trace_nranks(t) ? t->ranks[pos]->ev.n : 0;
}

size_t kt_trace_nstrings(const kt_trace *t) { return t ? kt_strtab_count(t->strs) : 0; }

const char *kt_trace_string(const kt_trace *t, uint32_t id)
{
    return id < kt_trace_nstrings(t) ? kt_strtab_get(t->strs, id) : NULL;
}

/* The 32-bit id columns hold most values inline and the rest in the rank's
 * id table; kt_rank_id_get resolves both.                                 */
static void copy_ids(const kt_rank *r, const int32_t *src, int64_t *dst)
{
    for (size_t i = 0; i < r->ev.n; i++) dst[i] = kt_rank_id_get(r, src[i]);
}

kt_status kt_trace_events(const kt_trace *t, size_t pos, const kt_event_columns *given)
{
    kt_event_columns c = { 0 }, *dst = &c;
    if (!given || !kt_options_take(&c, sizeof c, given) || pos >= kt_trace_nranks(t)) return KT_EUSAGE;
    const kt_rank *r = t->ranks[pos];
    const kt_events *e = &r->ev;
    size_t n = e->n;
    for (size_t i = 0; dst->ts && i < n; i++) dst->ts[i] = e->ts[i];
    for (size_t i = 0; dst->dur && i < n; i++) dst->dur[i] = e->dur[i];
    for (size_t i = 0; dst->name && i < n; i++) dst->name[i] = e->name[i];
    for (size_t i = 0; dst->cat && i < n; i++) dst->cat[i] = e->cat[i];
    for (size_t i = 0; dst->ph && i < n; i++) dst->ph[i] = e->ph[i];
    for (size_t i = 0; dst->kind && i < n; i++) dst->kind[i] = e->kind[i];
    for (size_t i = 0; dst->stream && i < n; i++) dst->stream[i] = kt_ev_stream(e, i);
    for (size_t i = 0; dst->pid && i < n; i++) dst->pid[i] = kt_event_pid(r, (uint32_t)i);
    for (size_t i = 0; dst->tid && i < n; i++) dst->tid[i] = kt_event_tid(r, (uint32_t)i);
    if (dst->correlation) copy_ids(r, e->corr, dst->correlation);
    if (dst->external_id) copy_ids(r, e->ext_id, dst->external_id);
    return KT_OK;
}

int kt_trace_hta_round(const kt_trace *t, size_t pos, int64_t *ts, int64_t *dur, size_t n)
{
    if (pos >= kt_trace_nranks(t) || !t->ranks[pos]->ns_resolution) return 0;
    for (size_t i = 0; i < n; i++)
        if (dur[i] >= 0) kt_hta_round_us(&ts[i], &dur[i]);
    return 1;
}
