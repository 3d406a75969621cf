/*
 * category_partial.c — see category_partial.h: pairs keyed by strings,
 * merged by summing, and their table form
 *   category_pairs  launcher, kind, name, category, category_idx, count, sum_ns
 */
#include "analysis/kernels/category_partial.h"
#include "analysis/common/partial_table.h"
#include "analysis/common/sat_math.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

static const kt_partial_spec pairs_spec = {
    "category_pairs",
    { "launcher", "kind", "name", "category", "category_idx", "count", "sum_ns" },
    { KT_COL_STR, KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT },
    7,
};

bool kt_cpartial_init(kt_cpartial *p)
{
    *p = (kt_cpartial){ .strs = kt_strtab_new() };
    return p->strs != NULL;
}

void kt_cpartial_free(kt_cpartial *p)
{
    free(p->p);
    kt_group_map_free(&p->launchers);
    kt_group_map_free(&p->index);
    kt_strtab_free(p->strs);
    *p = (kt_cpartial){ 0 };
}

bool kt_cpartial_add(kt_cpartial *p, const char *launcher, uint32_t kind, const char *name, const char *category,
                     uint32_t category_idx, uint64_t count, int64_t sum)
{
    uint32_t l = kt_strtab_intern(p->strs, launcher, strlen(launcher));
    uint32_t nm = kt_strtab_intern(p->strs, name, strlen(name));
    uint32_t cat = kt_strtab_intern(p->strs, category, strlen(category));
    if (l == KT_NONE || nm == KT_NONE || cat == KT_NONE) return false;
    uint32_t li = kt_group_id(&p->launchers, (uint64_t)kind << 32 | l);
    if (li == UINT32_MAX) return false;
    size_t before = p->index.n;
    uint32_t g = kt_group_id(&p->index, (uint64_t)li << 32 | nm);
    if (g == UINT32_MAX || !kt_grow((void **)&p->p, &p->cap, p->index.n, sizeof *p->p)) return false;
    if (p->index.n > before) {
        p->p[g] = (kt_cpair){ .launcher = l, .kind = kind, .launcher_idx = li, .name = nm, .category = cat,
                              .category_idx = category_idx };
        p->n = p->index.n;
    }
    p->p[g].count += count;
    p->p[g].sum = kt_sat_add(p->p[g].sum, sum); /* sums of durations >= 0: order-free */
    return true;
}

kt_status kt_cpartial_to_tables(const kt_cpartial *p, kt_tables **out)
{
    kt_table *t = kt_partial_table_new(&pairs_spec);
    for (size_t i = 0; t && i < p->n; i++) {
        const kt_cpair *c = &p->p[i];
        kt_table_add_row(t);
        kt_table_set_str(t, 0, kt_strtab_get(p->strs, c->launcher));
        kt_table_set_int(t, 1, c->kind);
        kt_table_set_str(t, 2, kt_strtab_get(p->strs, c->name));
        kt_table_set_str(t, 3, kt_strtab_get(p->strs, c->category));
        kt_table_set_int(t, 4, c->category_idx);
        kt_table_set_int(t, 5, (int64_t)c->count);
        kt_table_set_int(t, 6, c->sum);
    }
    return kt_tables_from(&t, 1, out);
}

kt_status kt_cpartial_add_tables(kt_cpartial *p, const kt_tables *ts)
{
    const kt_table *t = kt_partial_table_find(ts, &pairs_spec);
    if (!t) return KT_EINPUT;
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        int64_t kind = kt_table_int(t, r, 1), idx = kt_table_int(t, r, 4);
        if (kind < 0 || kind > UINT32_MAX || idx < 0 || idx > UINT32_MAX) return KT_EINPUT;
        if (!kt_cpartial_add(p, kt_table_str(t, r, 0), (uint32_t)kind, kt_table_str(t, r, 2), kt_table_str(t, r, 3),
                             (uint32_t)idx, (uint64_t)kt_table_int(t, r, 5), kt_table_int(t, r, 6)))
            return KT_ENOMEM;
    }
    return KT_OK;
}
