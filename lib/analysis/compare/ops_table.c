/*
 * ops_table.c — HTA's compare_traces and ops_diff (A4.13): per op or
 * kernel name, each run's count and total duration and their difference.
 *
 * Map: one run's selected events of the device → (name → count, time).
 * Reduce: HTA's outer join — the control's names in sorted order, then the
 * names only the test has, sorted (pandas concat's union keeps the first
 * index's order and appends the rest); a name missing on one side counts
 * 0.  ops_diff classifies each row exactly as HTA's ops_diff does.
 */
#include "compare.h"
#include "analysis/common/kernel_type.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_ctx {
    const kt_strtab *strs;
    bool short_names;
} name_ctx;

static char *name_label(void *vctx, int64_t key)
{
    const name_ctx *c = vctx;
    const char *name = kt_strtab_get(c->strs, (uint32_t)key);
    if (!c->short_names) return strdup(name);
    size_t cap = strlen(name) + 1;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    const char *s = kt_shorten_name(name, buf, cap);
    memmove(buf, s, strlen(s) + 1);
    return buf;
}

kt_status kt_diff_op_totals(const kt_diff_side *s, kt_diff_device device, bool short_names,
                            kt_key_totals *out)
{
    kt_key_acc acc;
    if (!kt_key_acc_init(&acc, kt_strtab_count(s->t->strs))) {
        kt_key_acc_free(&acc);
        return KT_ENOMEM;
    }
    for (size_t k = 0; k < s->n; k++) {
        uint32_t ev = s->ev[k];
        if (s->r->ev.name[ev] == KT_NONE) continue; /* pandas drops a NaN group key */
        if (device != KT_DIFF_DEVICE_ALL && kt_diff_side_is_gpu(s, ev) != (device == KT_DIFF_DEVICE_GPU))
            continue;
        int64_t ts, dur;
        kt_diff_side_time(s, ev, &ts, &dur);
        kt_key_acc_add(&acc, s->r->ev.name[ev], dur);
    }
    name_ctx ctx = { s->t->strs, short_names };
    return kt_key_acc_finish(&acc, name_label, &ctx, out);
}

/* ---- reduce ---------------------------------------------------------------- */
typedef struct op_row {
    const char *name;
    const kt_key_total *c, *t; /* NULL: absent on that side */
} op_row;

/* HTA's row order: control names (sorted), then test-only names (sorted). */
static op_row *join_rows(const kt_key_totals *c, const kt_key_totals *t, size_t *n)
{
    op_row *rows = malloc((c->n + t->n + 1) * sizeof *rows);
    bool *matched = calloc(t->n + 1, sizeof *matched);
    if (!rows || !matched) {
        free(rows);
        free(matched);
        return NULL;
    }
    size_t j = 0, k = 0;
    for (size_t i = 0; i < c->n; i++) {
        while (j < t->n && strcmp(t->v[j].label, c->v[i].label) < 0) j++;
        bool both = j < t->n && !strcmp(t->v[j].label, c->v[i].label);
        if (both) matched[j] = true;
        rows[k++] = (op_row){ c->v[i].label, &c->v[i], both ? &t->v[j] : NULL };
    }
    for (j = 0; j < t->n; j++)
        if (!matched[j]) rows[k++] = (op_row){ t->v[j].label, NULL, &t->v[j] };
    free(matched);
    *n = k;
    return rows;
}

static int64_t count_of(const kt_key_total *x) { return x ? (int64_t)x->count : 0; }
static double us_of(const kt_key_total *x) { return x ? (double)x->dur / 1000.0 : 0.0; }

static kt_table *ops_table(const op_row *rows, size_t n, const char *cl, const char *tl, bool short_names)
{
    kt_table *tb = kt_table_new("ops");
    char col[256];
    kt_table_add_col(tb, short_names ? "short_name" : "name", KT_COL_STR, 0);
    const char *labels[2] = { cl, tl };
    for (int s = 0; s < 2; s++) {
        snprintf(col, sizeof col, "%s_counts", labels[s]);
        kt_table_add_col(tb, col, KT_COL_INT, 0);
        snprintf(col, sizeof col, "%s_total_duration", labels[s]);
        kt_table_add_col(tb, col, KT_COL_FLOAT, -1);
    }
    kt_table_add_col(tb, "diff_counts", KT_COL_INT, 0);
    kt_table_add_col(tb, "diff_duration", KT_COL_FLOAT, -1);
    kt_table_add_col(tb, "counts_change_categories", KT_COL_STR, 0);
    for (size_t i = 0; i < n; i++) {
        int64_t dc = count_of(rows[i].t) - count_of(rows[i].c);
        kt_table_add_row(tb);
        kt_table_set_str(tb, 0, rows[i].name);
        kt_table_set_int(tb, 1, count_of(rows[i].c));
        kt_table_set_float(tb, 2, us_of(rows[i].c));
        kt_table_set_int(tb, 3, count_of(rows[i].t));
        kt_table_set_float(tb, 4, us_of(rows[i].t));
        kt_table_set_int(tb, 5, dc);
        kt_table_set_float(tb, 6, us_of(rows[i].t) - us_of(rows[i].c));
        kt_table_set_str(tb, 7, dc > 0 ? "+" : dc < 0 ? "-" : "=");
    }
    return tb;
}

/* HTA's ops_diff: which of its five lists a row is in (each row is in one). */
static const char *change_of(const op_row *r)
{
    int64_t c = count_of(r->c), t = count_of(r->t), d = t - c;
    if (c == 0 && t > 0) return "added";
    if (c > 0 && t == 0) return "deleted";
    if (c > 0 && d > 0) return "increased";
    if (t > 0 && d < 0) return "decreased";
    return t > 0 && d == 0 ? "unchanged" : NULL;
}

static kt_table *ops_diff_table(const op_row *rows, size_t n)
{
    static const char *const changes[] = { "added", "deleted", "increased", "decreased", "unchanged" };
    kt_table *tb = kt_table_new("ops_diff");
    kt_table_add_col(tb, "change", KT_COL_STR, 0);
    kt_table_add_col(tb, "name", KT_COL_STR, 0);
    for (size_t c = 0; c < 5; c++)
        for (size_t i = 0; i < n; i++) {
            const char *ch = change_of(&rows[i]);
            if (!ch || strcmp(ch, changes[c])) continue;
            kt_table_add_row(tb);
            kt_table_set_str(tb, 0, ch);
            kt_table_set_str(tb, 1, rows[i].name);
        }
    return tb;
}

kt_status kt_diff_ops_tables(const kt_key_totals *control, const kt_key_totals *test, const char *clabel,
                             const char *tlabel, bool short_names, kt_table **ops, kt_table **ops_diff)
{
    size_t n = 0;
    op_row *rows = join_rows(control, test, &n);
    if (!rows) return KT_ENOMEM;
    *ops = ops_table(rows, n, clabel, tlabel, short_names);
    *ops_diff = ops_diff_table(rows, n);
    free(rows);
    return KT_OK;
}
