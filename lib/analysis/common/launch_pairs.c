/*
 * launch_pairs.c — see launch_pairs.h.
 */
#include "analysis/common/launch_pairs.h"
#include "analysis/common/launch_api.h"
#include "analysis/common/name_match.h"
#include "model/radix.h"

#include <stdlib.h>

/* Growable pair array. */
typedef struct pair_vec {
    kt_launch_pair *p;
    size_t n, cap;
    bool oom;
} pair_vec;

static void push_pair(pair_vec *v, uint32_t call, uint32_t gpu)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        kt_launch_pair *p = realloc(v->p, cap * sizeof *p);
        if (!p) { v->oom = true; return; }
        v->p = p;
        v->cap = cap;
    }
    v->p[v->n++] = (kt_launch_pair){ call, gpu };
}

/* Walks the index's launch groups, which are in their calls' file order
 * (a few per hundred events), instead of every event: the scan was half
 * of kt_launch_pairs.  The groups' length bounds the pairs: the array is
 * sized once, not grown pair by pair.                                    */
static kt_status all_launches(const kt_rank *r, const kt_strtab *strs, pair_vec *v)
{
    const kt_events *e = &r->ev;
    const uint32_t *launched = r->idx->launched;
    size_t len = r->idx->launched_len;
    kt_name_test m;
    if (!(v->p = malloc((len ? len : 1) * sizeof *v->p))) return KT_ENOMEM;
    v->cap = len;
    if (!kt_name_test_init(&m, strs, kt_is_launch_api)) return KT_ENOMEM;
    for (size_t g = 0; g < len; g += 1 + launched[g]) {
        uint32_t call = kt_gpu_launcher(r, launched[g + 1]);
        if ((e->kind[call] != KT_K_RUNTIME && e->kind[call] != KT_K_DRIVER) || !kt_name_passes(&m, e->name[call]))
            continue;
        for (uint32_t k = 0; k < launched[g]; k++)
            if (kt_kind_is_gpu(e->kind[launched[g + 1 + k]]))
                v->p[v->n++] = (kt_launch_pair){ call, launched[g + 1 + k] };
    }
    kt_name_test_free(&m);
    return KT_OK;
}

/* ---- HTA's joins ---------------------------------------------------------- */

/* Ids (file order) of HTA rows with keep(); NULL on OOM. */
static uint32_t *hta_rows(const kt_events *e, bool (*keep)(const kt_events *, uint32_t), size_t *n)
{
    uint32_t *ids = malloc((e->n ? e->n : 1) * sizeof *ids);
    if (!ids) return NULL;
    *n = 0;
    for (uint32_t i = 0; i < e->n; i++)
        if (kt_is_hta_row(e, i) && keep(e, i)) ids[(*n)++] = i;
    return ids;
}

static bool gpu_row(const kt_events *e, uint32_t i) { return kt_ev_stream(e, i) != -1 && e->corr[i] >= 0; }
static bool cpu_row(const kt_events *e, uint32_t i) { return kt_ev_stream(e, i) == -1 && e->corr[i] >= 0; }

/* First index in ids (sorted by corr) whose corr >= c. */
static size_t lower_bound(const kt_events *e, const uint32_t *ids, size_t n, int64_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->corr[ids[mid]] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool corr_in(const kt_events *e, const uint32_t *ids, size_t n, int64_t c)
{
    size_t k = lower_bound(e, ids, n, c);
    return k < n && e->corr[ids[k]] == c;
}

/* pandas merge order: group rows by correlation in order of first
 * appearance, file order inside a group (ids come in file order).         */
static bool group_by_first_appearance(const kt_events *e, uint32_t *ids, size_t n)
{
    uint32_t *by_corr = malloc((n ? n : 1) * sizeof *by_corr);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    bool ok = by_corr && keys;
    if (ok) {
        for (size_t i = 0; i < n; i++) by_corr[i] = i; /* positions in ids */
        for (size_t i = 0; i < n; i++) keys[i] = kt_radix_key_i64(e->corr[ids[i]]);
        ok = kt_radix_sort(keys, by_corr, n);
    }
    if (ok) {
        /* key of each position = position of its group's first member */
        uint32_t first = 0;
        for (size_t k = 0; k < n; k++) {
            if (k == 0 || e->corr[ids[by_corr[k]]] != e->corr[ids[by_corr[k - 1]]]) first = by_corr[k];
            keys[by_corr[k]] = first;
        }
        for (size_t i = 0; i < n; i++) by_corr[i] = ids[i];
        ok = kt_radix_sort(keys, by_corr, n);
        for (size_t i = 0; ok && i < n; i++) ids[i] = by_corr[i];
    }
    free(by_corr);
    free(keys);
    return ok;
}

/* HTA's CPU side of each join, in file order. */
static uint32_t *hta_calls(const kt_rank *r, const kt_strtab *strs, kt_pairs_rule rule,
                           const uint32_t *gpu, size_t ngpu, size_t *n)
{
    const kt_events *e = &r->ev;
    kt_name_test m;
    if (!kt_name_test_init(&m, strs, rule == KT_PAIRS_HTA_QUEUE ? kt_is_hta_runtime_launch_api
                                                        : kt_is_hta_launch_stats_api))
        return NULL;
    uint32_t *calls = malloc((e->n ? e->n : 1) * sizeof *calls);
    *n = 0;
    if (calls && rule == KT_PAIRS_HTA_QUEUE) {
        /* launch-named rows with a GPU partner (index_correlation > 0) */
        for (uint32_t i = 0; i < e->n; i++)
            if (kt_is_hta_row(e, i) && kt_name_passes(&m, e->name[i]) && e->corr[i] >= 0 &&
                corr_in(e, gpu, ngpu, e->corr[i]))
                calls[(*n)++] = i;
    } else if (calls) {
        /* stream -1 rows sharing a correlation with a launch-named row */
        size_t nn = 0;
        for (uint32_t i = 0; i < e->n; i++)
            if (kt_is_hta_row(e, i) && kt_name_passes(&m, e->name[i]) && e->corr[i] >= 0) calls[nn++] = i;
        if (!kt_sort_ids_by_i32(calls, nn, e->corr)) {
            free(calls);
            calls = NULL;
        }
        uint32_t *cpu = calls ? hta_rows(e, cpu_row, n) : NULL;
        size_t k = 0;
        for (size_t i = 0; cpu && i < *n; i++)
            if (corr_in(e, calls, nn, e->corr[cpu[i]])) cpu[k++] = cpu[i];
        *n = k;
        free(calls);
        calls = cpu;
    }
    kt_name_test_free(&m);
    return calls;
}

static kt_status hta_join(const kt_rank *r, const kt_strtab *strs, kt_pairs_rule rule, pair_vec *v)
{
    const kt_events *e = &r->ev;
    size_t ngpu = 0, ncalls = 0;
    uint32_t *gpu = hta_rows(e, gpu_row, &ngpu), *calls = NULL;
    kt_status s = gpu && kt_sort_ids_by_i32(gpu, ngpu, e->corr) ? KT_OK : KT_ENOMEM;
    if (s == KT_OK) calls = hta_calls(r, strs, rule, gpu, ngpu, &ncalls);
    if (s == KT_OK && (!calls || !group_by_first_appearance(e, calls, ncalls))) s = KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < ncalls && !v->oom; i++) {
        int64_t c = e->corr[calls[i]];
        for (size_t k = lower_bound(e, gpu, ngpu, c); k < ngpu && e->corr[gpu[k]] == c; k++)
            push_pair(v, calls[i], gpu[k]);
    }
    free(gpu);
    free(calls);
    return s;
}

kt_status kt_launch_pairs(const kt_rank *r, const kt_strtab *strs, kt_pairs_rule rule,
                          kt_launch_pair **out, size_t *n)
{
    pair_vec v = { 0 };
    kt_status s = rule == KT_PAIRS_ALL_LAUNCHES ? all_launches(r, strs, &v) : hta_join(r, strs, rule, &v);
    if (s == KT_OK && v.oom) s = KT_ENOMEM;
    if (s != KT_OK) {
        free(v.p);
        v.p = NULL;
        v.n = 0;
    }
    *out = v.p;
    *n = v.n;
    return s;
}
