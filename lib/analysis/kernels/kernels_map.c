/*
 * kernels_map.c — the map of `kernels`: each selected rank's GPU kernels
 * grouped by the chosen key (name, short name, category, type, launcher)
 * and added to a partial (kernel_partial.h) as strings with the rank's
 * sorted durations, its GPU wall time and launch counters.
 *
 * Only GPU work is counted (kernels; memcpy/memset on request), never the
 * runtime calls that launch it — the seed tool counted cudaLaunchKernel as
 * a kernel.  Within a rank, groups are keyed by string ids (fast); the
 * partial keys them by string, so ranks loaded apart merge the same.
 */
#include "analysis/kernels/kernels_map.h"
#include "analysis/common/kernel_category.h"
#include "analysis/common/kernel_launcher.h"
#include "analysis/common/kernel_names.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"

#include <stdlib.h>
#include <string.h>

#define MIXED UINT32_MAX

/* What a group's kernels in one rank have in common (MIXED where they differ). */
typedef struct group_info {
    uint32_t category;
    uint32_t type;
    uint64_t key;
} group_info;

typedef struct kscan {
    const kt_trace *t;
    const kt_kernels_options *o;
    const kt_categorizer *cats;
    kt_type_cache *types;
    kt_category_cache *cc;
    kt_strtab *labels;        /* short names, for KT_KBY_SHORT */
    kt_group_map names;       /* name id → memo_label index */
    uint32_t *memo_label;
    size_t cap_label;
    kt_group_map groups;      /* row key → group, this rank */
    group_info *info;
    size_t cap_info;
    kt_samples samples;       /* this rank */
    kt_launch_memo launch;
    kt_kpartial *acc;
} kscan;

/* Short name (label id) of an event's kernel, computed once per distinct
 * name; KT_NONE on allocation failure.                                    */
static uint32_t short_label(kscan *s, const kt_rank *r, uint32_t ev)
{
    uint32_t name = r->ev.name[ev];
    size_t before = s->names.n;
    uint32_t m = kt_group_id(&s->names, name);
    if (m == UINT32_MAX) return KT_NONE;
    if (s->names.n > before) {
        if (!kt_grow((void **)&s->memo_label, &s->cap_label, s->names.n, sizeof *s->memo_label)) return KT_NONE;
        char *sh = kt_kernel_short_name(name == KT_NONE ? "" : kt_strtab_get(s->t->strs, name));
        s->memo_label[m] = sh ? kt_strtab_intern(s->labels, sh, strlen(sh)) : KT_NONE;
        free(sh);
    }
    return s->memo_label[m];
}

static bool is_kernel_kind(const kscan *s, uint8_t k)
{
    return k == KT_K_KERNEL || (s->o->memory && (k == KT_K_MEMCPY || k == KT_K_MEMSET));
}

/* The row key of an event under the chosen grouping; KT_NONE on failure. */
static uint64_t row_key(kscan *s, const kt_rank *r, uint32_t ev, uint32_t cat, uint32_t type)
{
    switch (s->o->by) {
    case KT_KBY_SHORT: return short_label(s, r, ev);
    case KT_KBY_CATEGORY: return cat;
    case KT_KBY_TYPE: return type;
    case KT_KBY_LAUNCHER: return kt_launcher_key(s->t, r, ev, &s->launch);
    default: return r->ev.name[ev];
    }
}

static bool add_event(kscan *s, const kt_rank *r, uint32_t ev)
{
    uint32_t cat = kt_event_category(s->cc, r, ev);
    uint32_t type = (uint32_t)kt_event_kernel_type(s->types, r, ev), rt;
    uint64_t key = row_key(s, r, ev, cat, type);
    if (s->o->by == KT_KBY_SHORT && key == KT_NONE) return false;
    size_t before = s->groups.n;
    uint32_t g = kt_group_id(&s->groups, key);
    if (g == UINT32_MAX || !kt_grow((void **)&s->info, &s->cap_info, s->groups.n, sizeof *s->info)) return false;
    group_info *gi = &s->info[g];
    if (s->groups.n > before) *gi = (group_info){ cat, type, key };
    if (gi->category != cat) gi->category = MIXED;
    if (gi->type != type) gi->type = MIXED;
    kt_launch_kind lk = kt_launch_link(s->t, r, ev, &s->launch, &rt);
    s->acc->unlinked += lk == KT_LAUNCH_UNLINKED;
    s->acc->graph += lk == KT_LAUNCH_GRAPH;
    return kt_samples_push(&s->samples, g, r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev]);
}

/* ---- one rank's groups into the partial ---------------------------------- */

static const char *key_label(const kscan *s, const group_info *gi)
{
    switch (s->o->by) {
    case KT_KBY_SHORT: return kt_strtab_get(s->labels, (uint32_t)gi->key);
    case KT_KBY_CATEGORY: return kt_category_name(s->cats, (uint32_t)gi->key);
    case KT_KBY_TYPE: return kt_kernel_type_name((kt_kernel_type)gi->key);
    case KT_KBY_LAUNCHER: return kt_launcher_label(s->t, gi->key);
    default: return (uint32_t)gi->key == KT_NONE ? "" : kt_strtab_get(s->t->strs, (uint32_t)gi->key);
    }
}

/* Group g's durations d[0..n), sorted here, added to the partial. */
static bool emit_group(kscan *s, const group_info *gi, int64_t *d, size_t n)
{
    kt_dur_run *runs;
    size_t nruns;
    if (!kt_dur_runs(d, n, &runs, &nruns)) return false;
    uint32_t kind = s->o->by == KT_KBY_LAUNCHER ? (uint32_t)kt_launcher_kind(gi->key) : 0;
    const char *cat = gi->category == MIXED ? NULL : kt_category_name(s->cats, gi->category);
    const char *type = gi->type == MIXED ? NULL : kt_kernel_type_name((kt_kernel_type)gi->type);
    bool ok = kt_kpartial_add(s->acc, key_label(s, gi), kind, cat, type, runs, nruns);
    free(runs);
    return ok;
}

/* The rank's groups in order of first sight, then a fresh start. */
static bool emit_rank(kscan *s)
{
    size_t ng = s->groups.n, *start = calloc(ng + 1, sizeof *start);
    int64_t *d = malloc((s->samples.n ? s->samples.n : 1) * sizeof *d);
    bool ok = start && d;
    for (size_t i = 0; ok && i < s->samples.n; i++) start[s->samples.group[i] + 1]++;
    for (size_t g = 0; ok && g < ng; g++) start[g + 1] += start[g];
    for (size_t i = 0; ok && i < s->samples.n; i++) d[start[s->samples.group[i]]++] = s->samples.dur[i];
    /* start[g] now ends group g; group g begins where g-1 ended */
    for (size_t g = 0, b = 0; ok && g < ng; b = start[g++]) ok = emit_group(s, &s->info[g], d + b, start[g] - b);
    free(start);
    free(d);
    kt_group_map_free(&s->groups);
    s->samples.n = 0;
    return ok;
}

/* Adds the rank's selected kernels; its GPU wall time is the span from the
 * first GPU event to the last (memcpy/memset included, step filtered).   */
static bool scan_rank(kscan *s, const kt_rank *r)
{
    if (s->o->by == KT_KBY_LAUNCHER && kt_index_call_tree(r) != KT_OK) return false;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        uint8_t k = r->ev.kind[ev];
        if (!kt_kind_is_gpu(k) || (s->o->pstep >= 0 && kt_event_step(r, ev) != s->o->pstep)) continue;
        int64_t dur = r->ev.dur[ev] < 0 ? 0 : r->ev.dur[ev];
        if (r->ev.ts[ev] < first) first = r->ev.ts[ev];
        if (r->ev.ts[ev] + dur > last) last = r->ev.ts[ev] + dur;
        if (is_kernel_kind(s, k) && !add_event(s, r, ev)) return false;
    }
    if (last >= first) s->acc->wall_ns += last - first;
    s->acc->nranks++;
    return emit_rank(s);
}

static void scan_free(kscan *s)
{
    kt_type_cache_free(s->types);
    kt_category_cache_free(s->cc);
    kt_strtab_free(s->labels);
    kt_group_map_free(&s->names);
    kt_group_map_free(&s->groups);
    free(s->memo_label);
    free(s->info);
    kt_samples_free(&s->samples);
}

kt_status kt_kernels_map_into(const kt_trace *t, const kt_rank_sel *sel, const kt_kernels_options *o,
                              kt_kpartial *acc)
{
    kscan s = { .t = t, .o = o, .launch = { KT_NONE, false }, .acc = acc };
    kt_categorizer *own = NULL;
    kt_status st = o->categorizer ? KT_OK : kt_categorizer_new(&own);
    s.cats = o->categorizer ? o->categorizer : own;
    s.types = kt_type_cache_new(t->strs, t->hta_compat);
    s.cc = st == KT_OK ? kt_category_cache_new(s.cats, t->strs) : NULL;
    s.labels = kt_strtab_new();
    if (st == KT_OK && (!s.types || !s.cc || !s.labels)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank) && !scan_rank(&s, t->ranks[i])) st = KT_ENOMEM;
    scan_free(&s);
    kt_categorizer_free(own);
    return st;
}
