/*
 * side_by_side.c — the one-line answer to "what got slower": GPU time and
 * count per kernel, kernel category or launching op in both runs, sorted
 * by the absolute change in time.
 *
 * Map: one run's selected GPU work (kernels, copies, sets) → (key → count,
 * time), keyed by name id or launcher key and labelled once per key.
 * Reduce: the union of both runs' labels, 0 where a side lacks one.
 */
#include "compare.h"
#include "analysis/common/kernel_launcher.h"
#include "analysis/common/kernel_type.h"
#include "table/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct key_ctx {
    const kt_trace *t;
    kt_diff_key by;
    const kt_categorizer *cat;
    bool short_names;
    size_t names;  /* string ids + 1: a launcher's name slot, KT_NONE last */
} key_ctx;

/* Launcher keys (kind << 32 | name id or KT_NONE) as dense keys and back. */
static int64_t dense_launcher(const key_ctx *c, uint64_t key)
{
    uint32_t name = (uint32_t)key;
    return (int64_t)(kt_launcher_kind(key) * c->names + (name == KT_NONE ? c->names - 1 : name));
}

static uint64_t launcher_of(const key_ctx *c, int64_t dense)
{
    uint64_t kind = (uint64_t)dense / c->names, name = (uint64_t)dense % c->names;
    return kind << 32 | (name == c->names - 1 ? KT_NONE : name);
}

static char *gpu_label(void *vctx, int64_t key)
{
    const key_ctx *c = vctx;
    if (c->by == KT_DIFF_BY_OP) return strdup(kt_launcher_label(c->t, launcher_of(c, key)));
    const char *name = kt_strtab_get(c->t->strs, (uint32_t)key);
    if (c->by == KT_DIFF_BY_CATEGORY) return strdup(kt_categorize(c->cat, name));
    if (!c->short_names) return strdup(name);
    size_t cap = strlen(name) + 1;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    const char *s = kt_shorten_name(name, buf, cap);
    memmove(buf, s, strlen(s) + 1);
    return buf;
}

kt_status kt_diff_gpu_totals(const kt_diff_side *s, kt_diff_key by, const kt_categorizer *cat, bool short_names,
                             kt_key_totals *out)
{
    if (by == KT_DIFF_BY_OP) {
        kt_status st = kt_index_call_tree(s->r);
        if (st != KT_OK) return st;
    }
    key_ctx ctx = { s->t, by, cat, short_names, kt_strtab_count(s->t->strs) + 1 };
    kt_key_acc acc;
    if (!kt_key_acc_init(&acc, by == KT_DIFF_BY_OP ? (KT_LAUNCH_LINKED + 1) * ctx.names : ctx.names)) {
        kt_key_acc_free(&acc);
        return KT_ENOMEM;
    }
    kt_launch_memo memo = { KT_NONE, false };
    for (size_t k = 0; k < s->n; k++) {
        uint32_t ev = s->ev[k];
        if (!kt_kind_is_gpu(s->r->ev.kind[ev]) || s->r->ev.name[ev] == KT_NONE) continue;
        int64_t ts, dur;
        kt_diff_side_time(s, ev, &ts, &dur);
        int64_t key = by == KT_DIFF_BY_OP ? dense_launcher(&ctx, kt_launcher_key(s->t, s->r, ev, &memo))
                                          : s->r->ev.name[ev];
        kt_key_acc_add(&acc, key, dur);
    }
    return kt_key_acc_finish(&acc, gpu_label, &ctx, out);
}

/* ---- reduce ---------------------------------------------------------------- */
typedef struct sbs_row {
    const char *key;
    const kt_key_total *c, *t;
    double delta;
} sbs_row;

static int by_abs_delta(const void *x, const void *y)
{
    const sbs_row *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->key, b->key);
}

static double time_us(const kt_key_total *x) { return x ? (double)x->dur / 1000.0 : 0.0; }
static int64_t count_of(const kt_key_total *x) { return x ? (int64_t)x->count : 0; }

/* The union of two label-sorted lists. */
static sbs_row *union_rows(const kt_key_totals *c, const kt_key_totals *t, size_t *n)
{
    sbs_row *rows = malloc((c->n + t->n + 1) * sizeof *rows);
    if (!rows) return NULL;
    size_t i = 0, j = 0, k = 0;
    while (i < c->n || j < t->n) {
        int cmp = i == c->n ? 1 : j == t->n ? -1 : strcmp(c->v[i].label, t->v[j].label);
        const kt_key_total *a = cmp <= 0 ? &c->v[i++] : NULL, *b = cmp >= 0 ? &t->v[j++] : NULL;
        rows[k++] = (sbs_row){ a ? a->label : b->label, a, b, time_us(b) - time_us(a) };
    }
    *n = k;
    return rows;
}

kt_table *kt_diff_side_by_side(const kt_key_totals *control, const kt_key_totals *test, const char *clabel,
                               const char *tlabel, kt_diff_key by)
{
    size_t n = 0;
    sbs_row *rows = union_rows(control, test, &n);
    if (!rows) return NULL;
    qsort(rows, n, sizeof *rows, by_abs_delta);
    kt_table *tb = kt_table_new("side_by_side");
    char col[256];
    kt_table_add_col(tb, by == KT_DIFF_BY_OP ? "op" : by == KT_DIFF_BY_CATEGORY ? "category" : "kernel", KT_COL_STR, 0);
    const char *labels[2] = { clabel, tlabel };
    for (int s = 0; s < 2; s++) {
        snprintf(col, sizeof col, "%s_count", labels[s]);
        kt_table_add_col(tb, col, KT_COL_INT, 0);
        snprintf(col, sizeof col, "%s_time_us", labels[s]);
        kt_table_add_col(tb, col, KT_COL_FLOAT, 3);
    }
    kt_table_add_col(tb, "delta_count", KT_COL_INT, 0);
    kt_table_add_col(tb, "delta_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "delta_pct", KT_COL_FLOAT, 2);
    for (size_t i = 0; i < n; i++) {
        const sbs_row *r = &rows[i];
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, r->key);
        kt_table_set_int(tb, 1, count_of(r->c));
        kt_table_set_float(tb, 2, time_us(r->c));
        kt_table_set_int(tb, 3, count_of(r->t));
        kt_table_set_float(tb, 4, time_us(r->t));
        kt_table_set_int(tb, 5, count_of(r->t) - count_of(r->c));
        kt_table_set_float(tb, 6, r->delta);
        kt_table_set_float(tb, 7, time_us(r->c) > 0 ? 100.0 * r->delta / time_us(r->c) : NAN);
    }
    free(rows);
    return tb;
}
