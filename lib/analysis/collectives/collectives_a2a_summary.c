/*
 * collectives_a2a_summary.c — "all2allv_summary" of `kineta collectives`
 * (TraceLens nccl_summary_all2allv): the all2allv rows grouped by (dtype,
 * Process Group Name, Group size) with mean, median, min and max of wall
 * time, throughput, size imbalance and duration ratio.  Built from the
 * finished all2allv table, so both always agree.
 */
#include "analysis/collectives/collectives_tables.h"
#include "analysis/common/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NMETRICS = 4 };
static const char *const metrics[NMETRICS] = { "wall_time", "throughput (GB/s)", "size_imbalance",
                                               "max_rank_dur/min_rank_dur" };
static const char *const stats[4] = { "mean", "median", "min", "max" };

/* Rows i and j of the all2allv table have the same group key. */
static bool same_key(const kt_table *a, size_t i, size_t j)
{
    return !strcmp(kt_table_str(a, i, 2), kt_table_str(a, j, 2)) && !strcmp(kt_table_str(a, i, 3), kt_table_str(a, j, 3)) &&
           kt_table_int(a, i, 4) == kt_table_int(a, j, 4);
}

static kt_table *new_table(void)
{
    kt_table *tb = kt_table_new("all2allv_summary");
    if (!tb) return NULL;
    kt_table_add_col(tb, "dtype", KT_COL_STR, 0);
    kt_table_add_col(tb, "Process Group Name", KT_COL_STR, 0);
    kt_table_add_col(tb, "Group size", KT_COL_INT, 0);
    kt_table_add_col(tb, "count", KT_COL_INT, 0);
    for (int k = 0; k < NMETRICS; k++)
        for (int s = 0; s < 4; s++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%s", metrics[k], stats[s]);
            kt_table_add_col(tb, name, KT_COL_FLOAT, 3);
        }
    kt_table_add_col(tb, "Total wall time (ms)", KT_COL_FLOAT, 3);
    return tb;
}

/* One group: the rows in rows[0..n) of the all2allv table a. */
static void add_group(kt_table *tb, const kt_table *a, const size_t *rows, size_t n, double *v)
{
    kt_table_add_row(tb);
    kt_table_set_str(tb, 0, kt_table_str(a, rows[0], 2));
    kt_table_set_str(tb, 1, kt_table_str(a, rows[0], 3));
    kt_table_set_int(tb, 2, kt_table_int(a, rows[0], 4));
    kt_table_set_int(tb, 3, (int64_t)n);
    double total = 0;
    for (int k = 0; k < NMETRICS; k++) {
        size_t col = (size_t)kt_table_col_index(a, metrics[k]), m = 0;
        for (size_t i = 0; i < n; i++)
            if (!kt_table_is_null(a, rows[i], col)) v[m++] = kt_table_float(a, rows[i], col);
        if (k == 0)
            for (size_t i = 0; i < m; i++) total += v[i];
        kt_describe d = kt_describe_values(v, m);
        const double st[4] = { d.mean, d.q50, d.min, d.max };
        for (int s = 0; s < 4; s++) kt_table_set_float(tb, 4 + 4 * (size_t)k + (size_t)s, st[s]);
    }
    kt_table_set_float(tb, 4 + 4 * NMETRICS, total / 1e3);
}

kt_table *kt_coll_a2a_summary_table(const kt_table *a2a)
{
    size_t n = a2a ? kt_table_nrows(a2a) : 0;
    kt_table *tb = new_table();
    size_t *rows = malloc((n ? n : 1) * sizeof *rows);
    double *v = malloc((n ? n : 1) * sizeof *v);
    bool *done = calloc(n ? n : 1, sizeof *done);
    for (size_t i = 0; tb && rows && v && done && i < n; i++) {
        if (done[i]) continue;
        size_t m = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && same_key(a2a, i, j)) rows[m++] = j, done[j] = true;
        add_group(tb, a2a, rows, m, v);
    }
    if (!rows || !v || !done) {
        kt_table_free(tb);
        tb = NULL;
    }
    free(rows);
    free(v);
    free(done);
    return tb;
}
