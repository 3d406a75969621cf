/*
 * kernel_details.c — TraceLens's kernel_details summary reprs
 * (kernel_details.h), with numpy's summation order so the printed digits
 * agree.
 */
#include "analysis/perf/kernel_details.h"

#include "analysis/common/stats.h"
#include "analysis/perf/op_args.h"
#include "model/radix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct np_stats {
    double sum, mean, median, std, min, max;
} np_stats;

/* np.sum, np.mean, np.median, np.std (ddof 0), np.min, np.max of v[0..n);
 * tmp has room for n.                                                    */
static np_stats np_describe(const double *v, size_t n, double *tmp)
{
    np_stats s;
    s.sum = kt_np_sum(v, n);
    s.mean = s.sum / (double)n;
    for (size_t i = 0; i < n; i++) tmp[i] = (v[i] - s.mean) * (v[i] - s.mean);
    s.std = sqrt(kt_np_sum(tmp, n) / (double)n);
    memcpy(tmp, v, n * sizeof *tmp);
    kt_sort_doubles(tmp, n);
    s.min = tmp[0];
    s.max = tmp[n - 1];
    s.median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
    return s;
}

typedef struct text {
    char *s;
    size_t n, cap;
    bool failed;
} text;

static void add(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->failed) return;
    if (t->n + k + 1 > t->cap) {
        size_t cap = (t->n + k + 1) * 2;
        char *p = realloc(t->s, cap);
        if (!p) {
            t->failed = true;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, k + 1);
    t->n += k;
}

static void add_np(text *t, const char *key, double v)
{
    char num[48];
    kt_py_float(v, num, sizeof num);
    add(t, ", '");
    add(t, key);
    add(t, "': np.float64(");
    add(t, num);
    add(t, ")");
}

static void add_name(text *t, const char *name, bool trunc)
{
    size_t n = strlen(name);
    char *cut = NULL;
    if (trunc && n > 64 && (cut = malloc(68))) { /* TraceLens: name[:64] + "..." */
        memcpy(cut, name, 64);
        memcpy(cut + 64, "...", 4);
        name = cut;
        n = 67;
    }
    char *r = kt_py_str_repr(name, n);
    add(t, "{'name': ");
    add(t, r ? r : "''");
    t->failed |= !r || (trunc && strlen(name) > 64 && !cut);
    free(r);
    free(cut);
}

static void add_entry(text *t, const kt_strtab *strs, const kt_pgroup *g, size_t pos, double *col, double *tmp,
                      bool trunc)
{
    uint32_t nm = g->kd_name[pos];
    add_name(t, nm == KT_NONE ? "" : kt_strtab_get(strs, nm), trunc);
    char num[24];
    add(t, ", 'stream': ");
    if (g->kd_stream[pos] < 0) add(t, "None");
    else {
        kt_fmt_i64(g->kd_stream[pos], num);
        add(t, num);
    }
    for (size_t c = 0; c < g->kd_calls; c++) col[c] = g->kd_dur[c * g->kd_n + pos];
    np_stats s = np_describe(col, g->kd_calls, tmp);
    if (trunc) {
        add_np(t, "mean_duration_us", kt_np_round(s.mean, 2));
    } else {
        kt_fmt_i64((int64_t)g->kd_calls, num);
        add(t, ", 'count': ");
        add(t, num);
        add_np(t, "total_duration_us", s.sum);
        add_np(t, "mean_duration_us", s.mean);
        add_np(t, "median_duration_us", s.median);
        add_np(t, "std_dev_duration_us", s.std);
        add_np(t, "min_duration_us", s.min);
        add_np(t, "max_duration_us", s.max);
    }
    add(t, "}");
}

char *kt_kernel_details_repr(const kt_strtab *strs, const kt_pgroup *g, bool trunc)
{
    text t = { 0 };
    size_t calls = g->kd_calls ? g->kd_calls : 1;
    double *col = malloc(calls * sizeof *col), *tmp = malloc(calls * sizeof *tmp);
    add(&t, "[");
    for (size_t p = 0; col && tmp && g->kd_calls && p < g->kd_n; p++) {
        if (p) add(&t, ", ");
        add_entry(&t, strs, g, p, col, tmp, trunc);
    }
    add(&t, "]");
    free(col);
    free(tmp);
    if (t.failed || !col || !tmp) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
