/*
 * breakdown_partial.c — see breakdown_partial.h.  Tables:
 *   breakdown_classes  rank, mask, ns, seen (classes with time or met)
 *   breakdown_rows     set (0 kernels, 1 all), name (null: others), type,
 *                      rank, count, sum, min, max, mean, std
 */
#include "analysis/kernels/breakdown_partial.h"
#include "analysis/common/partial_table.h"
#include "table/table.h"

#include <stdlib.h>
#include <string.h>

static const kt_partial_spec classes_spec = {
    "breakdown_classes", { "rank", "mask", "ns", "seen" }, { KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT }, 4,
};
static const kt_partial_spec rows_spec = {
    "breakdown_rows",
    { "set", "name", "type", "rank", "count", "sum", "min", "max" },
    { KT_COL_INT, KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT, KT_COL_INT },
    8,
};
/* mean and std: a third table, the spec's columns being at most 8 */
static const kt_partial_spec moments_spec = { "breakdown_moments", { "mean", "std" },
                                              { KT_COL_FLOAT, KT_COL_FLOAT }, 2 };

bool kt_bd_partial_init(kt_bd_partial *p)
{
    *p = (kt_bd_partial){ .strs = kt_strtab_new() };
    return p->strs != NULL;
}

void kt_bd_partial_free(kt_bd_partial *p)
{
    kt_strtab_free(p->strs);
    free(p->ranks);
    free(p->kernels.r);
    free(p->all.r);
    *p = (kt_bd_partial){ 0 };
}

bool kt_bd_rows_push(kt_bd_rows *v, kt_bd_row row)
{
    if (!kt_grow((void **)&v->r, &v->cap, v->n + 1, sizeof *v->r)) return false;
    v->r[v->n++] = row;
    return true;
}

bool kt_bd_add_rank(kt_bd_partial *p, const kt_bd_rank *r)
{
    if (!kt_grow((void **)&p->ranks, &p->cap_ranks, p->nranks + 1, sizeof *p->ranks)) return false;
    p->ranks[p->nranks++] = *r;
    return true;
}

static void put_rows(const kt_bd_partial *p, const kt_bd_rows *v, int set, kt_table *t, kt_table *m)
{
    for (size_t i = 0; i < v->n; i++) {
        const kt_bd_row *r = &v->r[i];
        int64_t ints[6] = { r->type, r->rank, (int64_t)r->st.count, r->st.sum, r->st.min, r->st.max };
        kt_table_add_row(t);
        kt_table_set_int(t, 0, set);
        if (r->name != KT_BD_OTHERS) kt_table_set_str(t, 1, kt_strtab_get(p->strs, r->name));
        for (size_t c = 0; c < 6; c++) kt_table_set_int(t, 2 + c, ints[c]);
        kt_table_add_row(m);
        kt_table_set_float(m, 0, r->st.mean);
        kt_table_set_float(m, 1, r->st.std);
    }
}

kt_status kt_bd_partial_to_tables(const kt_bd_partial *p, kt_tables **out)
{
    kt_table *tb[3] = { kt_partial_table_new(&classes_spec), kt_partial_table_new(&rows_spec),
                        kt_partial_table_new(&moments_spec) };
    for (size_t i = 0; tb[0] && i < p->nranks; i++)
        for (int mask = 1; mask < (1 << KT_BD_NTYPES); mask++) {
            const kt_bd_rank *r = &p->ranks[i];
            if (!r->ns[mask] && !r->seen[mask]) continue;
            int64_t v[4] = { r->rank, mask, r->ns[mask], r->seen[mask] };
            kt_table_add_row(tb[0]);
            for (size_t c = 0; c < 4; c++) kt_table_set_int(tb[0], c, v[c]);
        }
    if (tb[1] && tb[2]) {
        put_rows(p, &p->kernels, 0, tb[1], tb[2]);
        put_rows(p, &p->all, 1, tb[1], tb[2]);
    }
    return kt_tables_from(tb, 3, out);
}

/* The classes of ts's ranks, in their order, appended to p. */
static kt_status add_classes(kt_bd_partial *p, const kt_table *t)
{
    for (size_t i = 0; i < kt_table_nrows(t); i++) {
        int64_t rank = kt_table_int(t, i, 0), mask = kt_table_int(t, i, 1);
        if (mask < 1 || mask >= (1 << KT_BD_NTYPES) || rank < INT32_MIN || rank > INT32_MAX) return KT_EINPUT;
        if ((!p->nranks || p->ranks[p->nranks - 1].rank != rank || i == 0) &&
            !kt_bd_add_rank(p, &(kt_bd_rank){ .rank = (int)rank }))
            return KT_ENOMEM;
        p->ranks[p->nranks - 1].ns[mask] = kt_table_int(t, i, 2);
        p->ranks[p->nranks - 1].seen[mask] = kt_table_int(t, i, 3) != 0;
    }
    return KT_OK;
}

static kt_status add_row(kt_bd_partial *p, const kt_table *t, const kt_table *m, size_t i)
{
    int64_t set = kt_table_int(t, i, 0), type = kt_table_int(t, i, 2), rank = kt_table_int(t, i, 3);
    if ((set != 0 && set != 1) || type < 0 || type >= KT_BD_NTYPES || rank < INT32_MIN || rank > INT32_MAX)
        return KT_EINPUT;
    const char *name = kt_table_is_null(t, i, 1) ? NULL : kt_table_str(t, i, 1);
    kt_bd_row r = { .name = name ? kt_strtab_intern(p->strs, name, strlen(name)) : KT_BD_OTHERS,
                    .rank = (int)rank, .type = (kt_kernel_type)type };
    if (name && r.name == KT_NONE) return KT_ENOMEM;
    r.st = (kt_dur_stats){ .count = (uint64_t)kt_table_int(t, i, 4), .sum = kt_table_int(t, i, 5),
                           .min = kt_table_int(t, i, 6), .max = kt_table_int(t, i, 7),
                           .mean = kt_table_float(m, i, 0), .std = kt_table_float(m, i, 1) };
    return kt_bd_rows_push(set ? &p->all : &p->kernels, r) ? KT_OK : KT_ENOMEM;
}

kt_status kt_bd_partial_add_tables(kt_bd_partial *p, const kt_tables *ts)
{
    const kt_table *c = kt_partial_table_find(ts, &classes_spec), *t = kt_partial_table_find(ts, &rows_spec),
                   *m = kt_partial_table_find(ts, &moments_spec);
    if (!c || !t || !m || kt_table_nrows(t) != kt_table_nrows(m)) return KT_EINPUT;
    kt_status st = add_classes(p, c);
    for (size_t i = 0; st == KT_OK && i < kt_table_nrows(t); i++) st = add_row(p, t, m, i);
    return st;
}
