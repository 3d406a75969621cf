/*
 * kernel_partial_tables.c — a kernels partial as tables and back, so it
 * travels between processes with the tables' wire format (partial_wire.c).
 *
 *   kernel_groups     key, kind, category, type (null = mixed), runs
 *   kernel_durations  dur_ns, n: every group's sorted runs, group after group
 *   kernel_ranks      ranks, wall_ns, unlinked, graph
 */
#include "analysis/common/partial_table.h"
#include "analysis/kernels/kernel_partial.h"
#include "table/table.h"

#include <stdlib.h>

static const kt_partial_spec groups_spec = { "kernel_groups", { "key", "kind", "category", "type", "runs" },
                                             { KT_COL_STR, KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT }, 5 };
static const kt_partial_spec runs_spec = { "kernel_durations", { "dur_ns", "n" }, { KT_COL_INT, KT_COL_INT }, 2 };
static const kt_partial_spec ranks_spec = { "kernel_ranks", { "ranks", "wall_ns", "unlinked", "graph" }, { KT_COL_INT },
                                            4 };

static void set_name(kt_table *t, size_t col, const kt_kpartial *p, uint32_t id)
{
    if (id != KT_KP_MIXED) kt_table_set_str(t, col, kt_strtab_get(p->strs, id));
}

static kt_table *groups_table(const kt_kpartial *p)
{
    kt_table *t = kt_partial_table_new(&groups_spec);
    for (size_t i = 0; t && i < p->n; i++) {
        const kt_kgroup *g = &p->g[i];
        kt_table_add_row(t);
        kt_table_set_str(t, 0, kt_strtab_get(p->strs, g->key));
        kt_table_set_int(t, 1, g->kind);
        set_name(t, 2, p, g->category);
        set_name(t, 3, p, g->type);
        kt_table_set_int(t, 4, (int64_t)g->nruns);
    }
    return t;
}

static kt_table *runs_table(const kt_kpartial *p)
{
    kt_table *t = kt_partial_table_new(&runs_spec);
    for (size_t i = 0; t && i < p->n; i++)
        for (size_t r = 0; r < p->g[i].nruns; r++) {
            kt_table_add_row(t);
            kt_table_set_int(t, 0, p->g[i].runs[r].dur);
            kt_table_set_int(t, 1, (int64_t)p->g[i].runs[r].n);
        }
    return t;
}

static kt_table *ranks_table(const kt_kpartial *p)
{
    kt_table *t = kt_partial_table_new(&ranks_spec);
    if (!t) return NULL;
    kt_table_add_row(t);
    kt_table_set_int(t, 0, (int64_t)p->nranks);
    kt_table_set_int(t, 1, p->wall_ns);
    kt_table_set_int(t, 2, (int64_t)p->unlinked);
    kt_table_set_int(t, 3, (int64_t)p->graph);
    return t;
}

kt_status kt_kpartial_to_tables(const kt_kpartial *p, kt_tables **out)
{
    kt_table *tb[3] = { groups_table(p), runs_table(p), ranks_table(p) };
    return kt_tables_from(tb, 3, out);
}

static const char *name_or_mixed(const kt_table *t, size_t row, size_t col)
{
    return kt_table_is_null(t, row, col) ? NULL : kt_table_str(t, row, col);
}

static kt_status add_groups(kt_kpartial *p, const kt_table *g, const kt_table *d)
{
    size_t at = 0, total = kt_table_nrows(d);
    for (size_t i = 0; i < kt_table_nrows(g); i++) {
        int64_t nruns = kt_table_int(g, i, 4), kind = kt_table_int(g, i, 1);
        if (nruns < 0 || (uint64_t)nruns > total - at || kind < 0 || kind > UINT32_MAX) return KT_EINPUT;
        kt_dur_run *runs = malloc((size_t)(nruns ? nruns : 1) * sizeof *runs);
        if (!runs) return KT_ENOMEM;
        for (size_t r = 0; r < (size_t)nruns; r++)
            runs[r] = (kt_dur_run){ kt_table_int(d, at + r, 0), (uint64_t)kt_table_int(d, at + r, 1) };
        at += (size_t)nruns;
        bool ok = kt_kpartial_add(p, kt_table_str(g, i, 0), (uint32_t)kind, name_or_mixed(g, i, 2),
                                  name_or_mixed(g, i, 3), runs, (size_t)nruns);
        free(runs);
        if (!ok) return KT_ENOMEM;
    }
    return at == total ? KT_OK : KT_EINPUT;
}

kt_status kt_kpartial_add_tables(kt_kpartial *p, const kt_tables *ts)
{
    const kt_table *g = kt_partial_table_find(ts, &groups_spec), *d = kt_partial_table_find(ts, &runs_spec), *r = kt_partial_table_find(ts, &ranks_spec);
    if (!g || !d || !r || kt_table_nrows(r) != 1) return KT_EINPUT;
    p->nranks += (uint64_t)kt_table_int(r, 0, 0);
    p->wall_ns += kt_table_int(r, 0, 1);
    p->unlinked += (uint64_t)kt_table_int(r, 0, 2);
    p->graph += (uint64_t)kt_table_int(r, 0, 3);
    return add_groups(p, g, d);
}
