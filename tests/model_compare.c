/*
 * model_compare.c — column-by-column equality of two loaded traces (see
 * model_compare.h).
 */
#include "model_compare.h"
#include "model/model_build.h"

#include "kineta.h"
#include "test.h"

#include <string.h>

/* pid/tid values of two traces: string ids differ, compare the strings. */
static bool same_id(const kt_trace *a, const kt_trace *b, int64_t u, int64_t v)
{
    if (kt_id_is_str(u) != kt_id_is_str(v)) return false;
    if (!kt_id_is_str(u)) return u == v;
    return !strcmp(kt_strtab_get(a->strs, kt_id_str(u)), kt_strtab_get(b->strs, kt_id_str(v)));
}

/* One typed arg of each trace: keys and string values by their text. */
static bool same_arg(const kt_trace *a, const kt_trace *b, const kt_arg *p, const kt_arg *q)
{
    bool dyn = p->key >= KT_ARG_DYNAMIC;
    if (p->type != q->type || dyn != (q->key >= KT_ARG_DYNAMIC) || (!dyn && p->key != q->key)) return false;
    if (dyn && strcmp(kt_strtab_get(a->strs, p->key - KT_ARG_DYNAMIC), kt_strtab_get(b->strs, q->key - KT_ARG_DYNAMIC)))
        return false;
    if (p->type == KT_ARGT_STR) return !strcmp(kt_strtab_get(a->strs, p->v.s), kt_strtab_get(b->strs, q->v.s));
    return p->v.i == q->v.i;
}

void kt_check_same_summary(const kt_event_summary *x, const kt_event_summary *y)
{
    CHECK_INT(x->first_ts, y->first_ts);
    CHECK_INT(x->last_end, y->last_end);
    CHECK_INT(x->origin, y->origin);
    CHECK_INT(x->gpu_work, y->gpu_work);
    CHECK_INT(x->hip_calls, y->hip_calls);
    CHECK_INT(x->cuda_calls, y->cuda_calls);
    CHECK_INT(x->mtia_calls, y->mtia_calls);
}

void kt_check_summary_rescanned(const kt_trace *t)
{
    for (size_t k = 0; k < t->nranks; k++) {
        kt_rank *r = t->ranks[k];
        kt_event_summary kept = r->summary;
        kt_summary_scan(r, t->strs);
        kt_check_same_summary(&kept, &r->summary);
        r->summary = kept;
    }
}

void kt_check_same_model(const kt_trace *a, const kt_trace *b, bool same_offsets)
{
    const kt_rank *x = a->ranks[0], *y = b->ranks[0];
    CHECK_INT(x->ev.n, y->ev.n);
    CHECK_INT(x->total_events, y->total_events);
    CHECK(!memcmp(x->by_ph, y->by_ph, sizeof x->by_ph));
    CHECK_INT(x->nxcat, y->nxcat);
    CHECK_STR(x->meta_json, y->meta_json);
    CHECK_INT(x->world_size, y->world_size);
    CHECK_INT(x->device_type, y->device_type);
    CHECK_INT(x->shape_args, y->shape_args);
    kt_check_same_summary(&x->summary, &y->summary);
    char fmt[64];
    const char *source = kt_rank_source(x, "kineta_format", fmt, sizeof fmt);
    CHECK(x->events_end > 0 || (source && *source && strcmp(source, "Kineto JSON"))); /* other readers: no such offset */
    CHECK_INT(kt_diags_count(kt_trace_diags(a)), kt_diags_count(kt_trace_diags(b)));
    if (same_offsets) CHECK_INT(x->events_end, y->events_end);
    for (size_t i = 0; same_offsets && i < kt_diags_count(kt_trace_diags(a)) && i < kt_diags_count(kt_trace_diags(b)); i++) {
        CHECK_STR(kt_diags_get(kt_trace_diags(a), i)->message, kt_diags_get(kt_trace_diags(b), i)->message);
        CHECK_INT(kt_diags_get(kt_trace_diags(a), i)->offset, kt_diags_get(kt_trace_diags(b), i)->offset);
    }
    if (x->ev.n != y->ev.n) return;
    size_t n = x->ev.n;
#define SAME(col) CHECK(!memcmp(x->ev.col, y->ev.col, n * sizeof *x->ev.col))
    SAME(ts); SAME(dur); SAME(ph); SAME(kind); SAME(nargs);
    size_t other = 0; /* streams and the args' lengths; their offsets only when same_offsets */
    for (size_t i = 0; i < n; i++)
        other += kt_ev_stream(&x->ev, i) != kt_ev_stream(&y->ev, i) || kt_args_len(&x->ev, i) != kt_args_len(&y->ev, i);
    CHECK_INT(other, 0);
    if (same_offsets) SAME(args_at);
#undef SAME
    /* string ids depend on interning order: compare the strings */
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += strcmp(kt_strtab_get(a->strs, x->ev.name[i]), kt_strtab_get(b->strs, y->ev.name[i])) != 0;
        bad += strcmp(kt_strtab_get(a->strs, x->ev.cat[i]), kt_strtab_get(b->strs, y->ev.cat[i])) != 0;
        bad += !same_id(a, b, kt_event_pid(x, i), kt_event_pid(y, i));
        bad += !same_id(a, b, kt_event_tid(x, i), kt_event_tid(y, i));
        bad += kt_event_corr(x, i) != kt_event_corr(y, i) || kt_event_ext_id(x, i) != kt_event_ext_id(y, i);
    }
    /* args runs may be shared differently (per parsed range): compare
     * each event's args */
    for (size_t i = 0; i < n; i++) {
        if (x->ev.nargs[i] != y->ev.nargs[i]) {
            bad++;
            continue;
        }
        for (size_t k = 0; k < x->ev.nargs[i]; k++)
            bad += !same_arg(a, b, &x->args[x->ev.argi[i] + k], &y->args[y->ev.argi[i] + k]);
    }
    CHECK_INT(bad, 0);
}

