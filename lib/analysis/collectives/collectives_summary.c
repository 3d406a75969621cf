/*
 * collectives_summary.c — the "summary" table of `kineta collectives`:
 * TraceLens's nccl_summary_implicit_sync, one row per (Collective name,
 * dtype, In msg nelems, Process Group Name, Group size) with mean, median,
 * min and max of latency, skews and bandwidths over the matched instances.
 */
#include "analysis/collectives/collectives_tables.h"
#include "analysis/common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sum_item {
    const kt_coll_inst *in;
    const kt_comm_rec *c0;
    const char *name, *dtype, *pg;
    kt_inst_metrics m;
} sum_item;

enum { M_LAT, M_SKEW_START, M_SKEW_END, M_ALGO, M_BUS, NMETRICS };
static const char *const metric_names[NMETRICS] = { "comm_latency", "skew in start time", "skew in end time",
                                                    "algo bw (GB/s)", "bus bw (GB/s)" };
static const char *const stat_names[4] = { "mean", "median", "min", "max" };

static int item_cmp(const void *a, const void *b)
{
    const sum_item *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c) c = strcmp(x->dtype, y->dtype);
    if (!c && x->c0->in_nelems != y->c0->in_nelems) c = x->c0->in_nelems < y->c0->in_nelems ? -1 : 1;
    if (!c) c = strcmp(x->pg, y->pg);
    if (!c && x->m.group != y->m.group) c = x->m.group < y->m.group ? -1 : 1;
    if (!c && x->in != y->in) c = x->in < y->in ? -1 : 1; /* instance order within a group */
    return c;
}

static bool same_group(const sum_item *x, const sum_item *y)
{
    return !strcmp(x->name, y->name) && !strcmp(x->dtype, y->dtype) && x->c0->in_nelems == y->c0->in_nelems &&
           !strcmp(x->pg, y->pg) && x->m.group == y->m.group;
}

static double metric_of(const kt_inst_metrics *m, int k)
{
    const double v[NMETRICS] = { m->latency_us, m->skew_start_us, m->skew_end_us, m->algo_bw, m->bus_bw };
    return v[k];
}

static kt_table *new_table(void)
{
    static const char *const head[] = { "Collective name", "dtype", "In msg nelems", "Process Group Name",
                                        "Group size", "Full msg size (MB)", "count" };
    static const kt_col_type types[] = { KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_STR,
                                         KT_COL_INT, KT_COL_FLOAT, KT_COL_INT };
    kt_table *tb = kt_table_new("summary");
    if (!tb) return NULL;
    for (size_t i = 0; i < 7; i++) kt_table_add_col(tb, head[i], types[i], 3);
    for (int k = 0; k < NMETRICS; k++)
        for (int s = 0; s < 4; s++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", metric_names[k], stat_names[s]);
            kt_table_add_col(tb, name, KT_COL_FLOAT, 3);
        }
    kt_table_add_col(tb, "Total comm latency (ms)", KT_COL_FLOAT, 3);
    return tb;
}

static void add_group_row(kt_table *tb, const sum_item *g, size_t n, double *scratch)
{
    kt_table_add_row(tb);
    kt_table_set_str(tb, 0, g->name);
    kt_table_set_str(tb, 1, g->dtype);
    if (g->c0->in_nelems >= 0) kt_table_set_int(tb, 2, g->c0->in_nelems);
    kt_table_set_str(tb, 3, g->pg);
    kt_table_set_int(tb, 4, g->m.group);
    kt_table_set_float(tb, 5, g->m.msg_mb);
    kt_table_set_int(tb, 6, (int64_t)n);
    double total = 0;
    for (int k = 0; k < NMETRICS; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            double v = metric_of(&g[i].m, k);
            if (!isnan(v)) scratch[m++] = v;
            if (k == M_LAT) total += v;
        }
        kt_describe d = kt_describe_values(scratch, m);
        const double st[4] = { d.mean, d.q50, d.min, d.max };
        for (int s = 0; s < 4; s++) kt_table_set_float(tb, 7 + 4 * (size_t)k + (size_t)s, st[s]);
    }
    kt_table_set_float(tb, 7 + 4 * NMETRICS, total / 1e3);
}

kt_table *kt_coll_summary_table(const kt_trace *t, const kt_comm_world *w)
{
    kt_table *tb = new_table();
    size_t n = 0, ninst = w->match.ninst;
    sum_item *items = malloc((ninst ? ninst : 1) * sizeof *items);
    double *scratch = malloc((ninst ? ninst : 1) * sizeof *scratch);
    if (!tb || !items || !scratch) {
        free(items);
        free(scratch);
        kt_table_free(tb);
        return NULL;
    }
    for (size_t i = 0; i < ninst; i++) {
        const kt_coll_inst *in = &w->match.inst[i];
        const kt_comm_rec *c0 = kt_member_rec(&w->match, &w->match.members[in->first]);
        if (in->status != KT_INST_COMPLETE || !kt_coll_implicit_sync((kt_coll_kind)c0->kind)) continue;
        items[n++] = (sum_item){
            .in = in, .c0 = c0,
            .name = c0->coll_name != KT_NONE ? kt_strtab_get(t->strs, c0->coll_name) : kt_coll_kind_name((kt_coll_kind)c0->kind),
            .dtype = c0->dtype != KT_NONE ? kt_strtab_get(t->strs, c0->dtype) : "",
            .pg = c0->pg != KT_NONE ? kt_strtab_get(t->strs, c0->pg) : "",
            .m = kt_instance_metrics(t, w, in),
        };
    }
    qsort(items, n, sizeof *items, item_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_group(&items[i], &items[j])) j++;
        add_group_row(tb, &items[i], j - i, scratch);
        i = j;
    }
    free(items);
    free(scratch);
    return tb;
}
