/*
 * collectives_heatmap.c — "all2allv_heatmap" of `kineta collectives`
 * (TraceLens nccl_all2allv_heatmap): bytes each rank sent to each rank over
 * all matched all-to-all-v instances, from every member's "In split size"
 * list (elements per destination, in the order of "Process Group Ranks").
 */
#include "analysis/common/dtypes.h"
#include "analysis/collectives/collectives_tables.h"

#include <stdio.h>
#include <stdlib.h>

/* The integers of a "[a, b, ...]" list, at most cap; the count. */
static size_t int_list(const char *s, int64_t *v, size_t cap)
{
    size_t n = 0;
    for (const char *p = s && *s == '[' ? s + 1 : ""; *p && *p != ']' && n < cap;) {
        char *end;
        long long x = strtoll(p, &end, 10);
        if (end == p) break;
        v[n++] = x;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return n;
}

/* Column (index in w->ranks) of a global rank, or -1 when not loaded. */
static long rank_index(const kt_comm_world *w, int64_t rank)
{
    for (size_t i = 0; i < w->nranks; i++)
        if (w->ranks[i].rank == rank) return (long)i;
    return -1;
}

/* Adds one member's sends to m[src * nranks + dst]. */
static void add_sends(const kt_trace *t, const kt_comm_world *w, const kt_comm_rec *c, size_t src, double *m,
                      int64_t *split, int64_t *dst, size_t cap)
{
    int b = c->dtype == KT_NONE ? 0 : kt_scalar_type_bytes(kt_strtab_get(t->strs, c->dtype));
    if (b == 0 || c->in_split == KT_NONE || c->pg_ranks == KT_NONE) return;
    size_t ns = int_list(kt_strtab_get(t->strs, c->in_split), split, cap);
    size_t nd = int_list(kt_strtab_get(t->strs, c->pg_ranks), dst, cap);
    for (size_t j = 0; j < ns && j < nd; j++) {
        long d = rank_index(w, dst[j]);
        if (d >= 0) m[src * w->nranks + (size_t)d] += (double)split[j] * b;
    }
}

kt_table *kt_coll_heatmap_table(const kt_trace *t, const kt_comm_world *w)
{
    size_t n = w->nranks, cap = 65536;
    kt_table *tb = kt_table_new("all2allv_heatmap");
    double *m = calloc(n ? n * n : 1, sizeof *m);
    int64_t *split = malloc(cap * sizeof *split), *dst = malloc(cap * sizeof *dst);
    if (!tb || !m || !split || !dst) {
        kt_table_free(tb);
        tb = NULL;
    }
    for (size_t i = 0; tb && i < w->match.ninst; i++) {
        const kt_coll_inst *in = &w->match.inst[i];
        const kt_coll_member *x = &w->match.members[in->first];
        if (in->status != KT_INST_COMPLETE || kt_member_rec(&w->match, x)->kind != KT_COLL_ALLTOALLV) continue;
        for (uint32_t k = 0; k < in->n; k++) add_sends(t, w, kt_member_rec(&w->match, &x[k]), x[k].rank_i, m, split, dst, cap);
    }
    if (tb) {
        kt_table_add_col(tb, "src rank", KT_COL_INT, 0);
        for (size_t d = 0; d < n; d++) {
            char name[32];
            snprintf(name, sizeof name, "to rank %d (bytes)", w->ranks[d].rank);
            kt_table_add_col(tb, name, KT_COL_FLOAT, 0);
        }
        for (size_t s = 0; s < n; s++) {
            kt_table_add_row(tb);
            kt_table_set_int(tb, 0, w->ranks[s].rank);
            for (size_t d = 0; d < n; d++) kt_table_set_float(tb, 1 + d, m[s * n + d]);
        }
    }
    free(m);
    free(split);
    free(dst);
    return tb;
}
