/*
 * membw_series.c — see membw_series.h.
 */
#include "analysis/launch/membw_series.h"
#include "analysis/common/gpu_file_order.h"
#include "analysis/common/kernel_type.h"
#include "analysis/common/launch_pairs.h"
#include "analysis/common/np_sort.h"
#include "model/radix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The memory events of a rank, their kinds and bandwidths. */
typedef struct copies {
    uint32_t *ev;
    uint32_t *kind;
    double *gbps;
    int64_t *end;
    size_t n;
} copies;

static void copies_free(copies *c)
{
    free(c->ev);
    free(c->kind);
    free(c->gbps);
    free(c->end);
}

static bool is_copy(const kt_rank *r, uint32_t i, kt_type_cache *types, bool hta)
{
    const kt_events *e = &r->ev;
    if (hta) return kt_is_hta_row(e, i) && kt_ev_stream(e, i) != -1 && kt_event_kernel_type(types, r, i) == KT_TYPE_MEMORY;
    return kt_kind_is_gpu(e->kind[i]) && e->dur[i] > 0 && kt_event_kernel_type(types, r, i) == KT_TYPE_MEMORY;
}

/* An event's byte count: a number, or a string of digits (ROCm). */
static int64_t bytes_arg(const kt_rank *r, const kt_strtab *strs, uint32_t ev)
{
    uint32_t s = kt_event_arg_str(r, ev, KT_ARG_BYTES);
    return s == KT_NONE ? kt_event_arg_int(r, ev, KT_ARG_BYTES, -1) : strtoll(kt_strtab_get(strs, s), NULL, 10);
}

/* Bytes moved: the copy's own "bytes" arg, else its launching call's. */
static int64_t copy_bytes(const kt_rank *r, const kt_strtab *strs, uint32_t ev)
{
    int64_t b = bytes_arg(r, strs, ev);
    uint32_t call = kt_gpu_launcher(r, ev);
    if (b < 0 && call != KT_NONE) b = bytes_arg(r, strs, call);
    return b;
}

static double copy_gbps(const kt_rank *r, const kt_strtab *strs, uint32_t ev, bool hta)
{
    double bw = kt_event_arg_float(r, ev, KT_ARG_MEMORY_BW_GBPS, 0.0);
    if (hta || bw > 0) return bw;
    int64_t bytes = copy_bytes(r, strs, ev);
    return bytes > 0 ? (double)bytes / (double)r->ev.dur[ev] : 0.0; /* bytes/ns = GB/s */
}

/* Kind index of a memory kernel type name, adding it if new. */
static uint32_t kind_of(kt_bw_series *s, const char *name, bool *oom)
{
    for (size_t k = 0; k < s->nkinds; k++)
        if (!strcmp(s->kinds[k], name)) return (uint32_t)k;
    char(*kinds)[16] = realloc(s->kinds, (s->nkinds + 1) * sizeof *kinds);
    if (!kinds) { *oom = true; return 0; }
    s->kinds = kinds;
    snprintf(s->kinds[s->nkinds], sizeof s->kinds[0], "%s", name);
    return (uint32_t)s->nkinds++;
}

/* Kind index of a copy's name: memo[] holds it (+1; 0 = not yet) per
 * string id (KT_NONE last), as copies repeat a few names thousands of
 * times and naming the kind is string work.                             */
static uint32_t copy_kind(kt_bw_series *s, const kt_strtab *strs, uint32_t name, uint32_t *memo, bool *oom)
{
    size_t slot = name == KT_NONE ? kt_strtab_count(strs) + 1 : name;
    if (!memo[slot]) {
        char buf[16];
        const char *text = name == KT_NONE ? "" : kt_strtab_get(strs, name);
        memo[slot] = kind_of(s, kt_memory_kernel_type(text, buf, sizeof buf), oom) + 1;
    }
    return memo[slot] - 1;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

/* Renumber kinds in name order (HTA groups by name, sorted). */
static bool sort_kinds(kt_bw_series *s, copies *c)
{
    if (!s->nkinds) return true;
    size_t nk = s->nkinds;
    char(*old)[16] = malloc(nk * sizeof *old);
    uint32_t *map = malloc(nk * sizeof *map);
    bool ok = old && map;
    if (ok) {
        memcpy(old, s->kinds, s->nkinds * sizeof *old);
        qsort(s->kinds, s->nkinds, sizeof *s->kinds, by_name);
        for (size_t k = 0; k < s->nkinds; k++)
            for (size_t j = 0; j < s->nkinds; j++)
                if (!strcmp(old[k], s->kinds[j])) map[k] = (uint32_t)j;
        for (size_t i = 0; i < c->n; i++) c->kind[i] = map[c->kind[i]];
    }
    free(old);
    free(map);
    return ok;
}

/* is_copy for the GPU events of the default (not HTA) semantics. */
/* is_copy of the default (not HTA) semantics for GPU work events, the
 * type looked up once per run of one (kind, name): kernels repeat.      */
typedef struct copy_memo {
    kt_type_cache *types;
    uint64_t event; /* kind << 32 | name of the last lookup */
    bool memory;
} copy_memo;

static bool is_gpu_copy(void *memo, const kt_rank *r, uint32_t ev)
{
    copy_memo *m = memo;
    uint64_t event = (uint64_t)r->ev.kind[ev] << 32 | r->ev.name[ev];
    if (event != m->event) {
        m->event = event;
        m->memory = kt_event_kernel_type(m->types, r, ev) == KT_TYPE_MEMORY;
    }
    return r->ev.dur[ev] > 0 && m->memory;
}

static kt_status collect(const kt_rank *r, const kt_strtab *strs, bool hta, kt_bw_series *s, copies *c)
{
    const kt_events *e = &r->ev;
    kt_type_cache *types = kt_type_cache_new(strs, hta);
    /* The copies, or events that may be, in file order (the series' ties
     * keep it): HTA's rows are any events, else only GPU work, all on the
     * index's streams, far fewer than the events.                        */
    size_t n = e->n;
    copy_memo memo = { types, UINT64_MAX, false };
    uint64_t *gpu = types && !hta && r->idx ? kt_gpu_events_file_order(r, is_gpu_copy, &memo, &n) : NULL;
    size_t cap = n ? n : 1;
    c->ev = malloc(cap * sizeof *c->ev);
    c->kind = malloc(cap * sizeof *c->kind);
    c->gbps = malloc(cap * sizeof *c->gbps);
    c->end = malloc(cap * sizeof *c->end);
    uint32_t *kind_memo = calloc(kt_strtab_count(strs) + 2, sizeof *kind_memo);
    bool oom = !types || (!hta && r->idx && !gpu) || !c->ev || !c->kind || !c->gbps || !c->end || !kind_memo;
    for (size_t k = 0; !oom && k < n; k++) {
        uint32_t i = gpu ? (uint32_t)gpu[k] : (uint32_t)k;
        if (!gpu && !is_copy(r, i, types, hta)) continue;
        int64_t dur = hta && e->dur[i] == 0 ? 1000 : e->dur[i];
        c->ev[c->n] = i;
        c->kind[c->n] = copy_kind(s, strs, e->name[i], kind_memo, &oom);
        c->gbps[c->n] = copy_gbps(r, strs, i, hta);
        c->end[c->n++] = e->ts[i] + dur;
    }
    kt_type_cache_free(types);
    free(kind_memo);
    free(gpu);
    if (!oom && !sort_kinds(s, c)) oom = true;
    return oom ? KT_ENOMEM : KT_OK;
}

/* Change k < n is copy k's start, k >= n its end. */
static int64_t change_ts(const kt_events *e, const copies *c, size_t k)
{
    return k < c->n ? e->ts[c->ev[k]] : c->end[k - c->n];
}

/* HTA: numpy quicksort of [starts..., ends...] by ts, stable group by kind.
 * Default: by (kind, device, ts), ends before starts at equal ts.          */
static uint32_t *order_changes(const kt_rank *r, const copies *c, bool hta)
{
    const kt_events *e = &r->ev;
    size_t m = 2 * c->n;
    uint32_t *ord = malloc((m ? m : 1) * sizeof *ord);
    uint64_t *keys = malloc((m ? m : 1) * sizeof *keys);
    int64_t *ts = malloc((m ? m : 1) * sizeof *ts);
    bool ok = ord && keys && ts;
    for (size_t k = 0; ok && k < m; k++) {
        ord[k] = (uint32_t)k;
        ts[k] = change_ts(e, c, k);
    }
    if (ok && hta) kt_np_argsort_i64(ts, ord, m);
    if (ok && !hta) {
        for (size_t k = 0; k < m; k++) keys[k] = ord[k] < c->n; /* ends first */
        ok = kt_radix_sort(keys, ord, m);
        for (size_t k = 0; ok && k < m; k++) keys[k] = kt_radix_key_i64(ts[ord[k]]);
        ok = ok && kt_radix_sort(keys, ord, m);
    }
    for (size_t k = 0; ok && !hta && k < m; k++) keys[k] = kt_radix_key_i64(kt_event_pid(r, c->ev[ord[k] % c->n]));
    ok = ok && (hta || kt_radix_sort(keys, ord, m));
    for (size_t k = 0; ok && k < m; k++) keys[k] = c->kind[ord[k] % c->n];
    ok = ok && kt_radix_sort(keys, ord, m);
    free(keys);
    free(ts);
    if (!ok) {
        free(ord);
        return NULL;
    }
    return ord;
}

/* Running sums per series, one point per change.  Default: exactly 0
 * whenever no copy runs (HTA keeps float residues like 1e-13).             */
static void accumulate(const kt_rank *r, const copies *c, const uint32_t *ord, bool hta,
                       kt_step_point *out)
{
    const kt_events *e = &r->ev;
    double sum = 0;
    long active = 0;
    for (size_t k = 0; k < 2 * c->n; k++) {
        size_t i = ord[k] % c->n;
        bool start = ord[k] < c->n;
        uint32_t ev = c->ev[i];
        if (k == 0 || (int32_t)c->kind[i] != out[k - 1].key || (!hta && kt_ev_pid(e, ev) != kt_ev_pid(e, out[k - 1].ev)))
            sum = 0, active = 0;
        sum += start ? c->gbps[i] : -c->gbps[i];
        active += start ? 1 : -1;
        if (!hta && active == 0) sum = 0;
        out[k] = (kt_step_point){ .ts = change_ts(e, c, ord[k]), .ev = ev, .key = (int32_t)c->kind[i], .value = sum };
    }
}

kt_status kt_membw_series(const kt_rank *r, const kt_strtab *strs, bool hta_compat, kt_bw_series *out)
{
    *out = (kt_bw_series){ 0 };
    copies c = { 0 };
    kt_status s = collect(r, strs, hta_compat, out, &c);
    uint32_t *ord = s == KT_OK ? order_changes(r, &c, hta_compat) : NULL;
    if (s == KT_OK && ord) out->p = malloc((c.n ? 2 * c.n : 1) * sizeof *out->p);
    if (s == KT_OK && (!ord || !out->p)) s = KT_ENOMEM;
    if (s == KT_OK) {
        accumulate(r, &c, ord, hta_compat, out->p);
        out->n = hta_compat ? 2 * c.n : kt_merge_steps(r, out->p, 2 * c.n);
    }
    free(ord);
    copies_free(&c);
    if (s != KT_OK) kt_bw_series_free(out);
    return s;
}

void kt_bw_series_free(kt_bw_series *s)
{
    free(s->p);
    free(s->kinds);
    *s = (kt_bw_series){ 0 };
}
