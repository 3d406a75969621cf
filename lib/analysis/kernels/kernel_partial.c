/*
 * kernel_partial.c — see kernel_partial.h: groups keyed by strings, their
 * durations merged as sorted runs, statistics from the merged durations.
 */
#include "analysis/kernels/kernel_partial.h"
#include "analysis/common/sat_math.h"
#include "analysis/common/stats.h"

#include <stdlib.h>
#include <string.h>

bool kt_kpartial_init(kt_kpartial *p)
{
    *p = (kt_kpartial){ .strs = kt_strtab_new() };
    return p->strs != NULL;
}

void kt_kpartial_free(kt_kpartial *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->g[i].runs);
    free(p->g);
    kt_group_map_free(&p->index);
    kt_strtab_free(p->strs);
    *p = (kt_kpartial){ 0 };
}

static uint32_t intern(kt_kpartial *p, const char *s)
{
    return s ? kt_strtab_intern(p->strs, s, strlen(s)) : KT_KP_MIXED;
}

bool kt_kpartial_add(kt_kpartial *p, const char *key, uint32_t kind, const char *category, const char *type,
                     const kt_dur_run *runs, size_t nruns)
{
    uint32_t k = intern(p, key), cat = intern(p, category), ty = intern(p, type);
    if (k == KT_NONE || (category && cat == KT_NONE) || (type && ty == KT_NONE)) return false;
    size_t before = p->index.n;
    uint32_t id = kt_group_id(&p->index, (uint64_t)kind << 32 | k);
    if (id == UINT32_MAX || !kt_grow((void **)&p->g, &p->cap, p->index.n, sizeof *p->g)) return false;
    kt_kgroup *g = &p->g[id];
    if (p->index.n > before) {
        *g = (kt_kgroup){ .key = k, .kind = kind, .category = cat, .type = ty };
        p->n = p->index.n;
    }
    if (g->category != cat) g->category = KT_KP_MIXED;
    if (g->type != ty) g->type = KT_KP_MIXED;
    if (!nruns) return true;
    if (!kt_grow((void **)&g->runs, &g->cap, g->nruns + nruns, sizeof *g->runs)) return false;
    memcpy(g->runs + g->nruns, runs, nruns * sizeof *runs);
    g->nruns += nruns;
    return true;
}

void kt_kpartial_sort(kt_kpartial *p)
{
    for (size_t i = 0; i < p->n; i++) kt_dur_runs_sort(p->g[i].runs, &p->g[i].nruns);
}

static uint64_t group_count(const kt_kgroup *g)
{
    uint64_t n = 0;
    for (size_t r = 0; r < g->nruns; r++) n += g->runs[r].n;
    return n;
}

/* One group's statistics from its sorted runs, expanded into v. */
static kt_dur_stats group_stats(const kt_kgroup *g, double *v)
{
    kt_dur_stats st = { 0 };
    size_t n = 0;
    for (size_t r = 0; r < g->nruns; r++)
        for (uint64_t k = 0; k < g->runs[r].n; k++) {
            v[n++] = (double)g->runs[r].dur;
            st.sum = kt_sat_add(st.sum, g->runs[r].dur); /* durations >= 0: order-free */
        }
    if (!n) return st;
    kt_describe d = kt_describe_values(v, n);
    st.count = d.count;
    st.min = (int64_t)d.min;
    st.max = (int64_t)d.max;
    st.mean = d.mean;
    st.median = d.q50;
    st.std = d.count > 1 ? d.std : 0;
    return st;
}

kt_dur_stats *kt_kpartial_stats(const kt_kpartial *p)
{
    uint64_t most = 1;
    for (size_t i = 0; i < p->n; i++) {
        uint64_t c = group_count(&p->g[i]);
        most = c > most ? c : most;
    }
    kt_dur_stats *st = calloc(p->n ? p->n : 1, sizeof *st);
    double *v = most <= SIZE_MAX / sizeof *v ? malloc((size_t)most * sizeof *v) : NULL;
    for (size_t i = 0; st && v && i < p->n; i++) st[i] = group_stats(&p->g[i], v);
    if (!v) {
        free(st);
        st = NULL;
    }
    free(v);
    return st;
}
