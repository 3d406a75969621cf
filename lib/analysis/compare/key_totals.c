/*
 * key_totals.c — (key → count, time) accumulation and its labelled,
 * sorted, merged form (see key_totals.h).
 */
#include "key_totals.h"
#include "analysis/common/sat_math.h"

#include <stdlib.h>
#include <string.h>

bool kt_key_acc_init(kt_key_acc *a, size_t limit)
{
    size_t m = limit ? limit : 1;
    *a = (kt_key_acc){ .limit = limit };
    a->row = malloc(m * sizeof *a->row);
    a->key = malloc(m * sizeof *a->key);
    a->count = malloc(m * sizeof *a->count);
    a->dur = malloc(m * sizeof *a->dur);
    if (a->row) memset(a->row, 0xff, m * sizeof *a->row);
    return a->row && a->key && a->count && a->dur;
}

void kt_key_acc_free(kt_key_acc *a)
{
    free(a->row);
    free(a->key);
    free(a->count);
    free(a->dur);
    *a = (kt_key_acc){ 0 };
}

bool kt_key_acc_add(kt_key_acc *a, int64_t key, int64_t dur)
{
    if (key < 0 || (uint64_t)key >= a->limit) return false;
    uint32_t *row = &a->row[key];
    if (*row == UINT32_MAX) {
        *row = (uint32_t)a->n;
        a->key[a->n] = key;
        a->count[a->n] = 0;
        a->dur[a->n] = 0;
        a->n++;
    }
    a->count[*row]++;
    a->dur[*row] = kt_sat_add(a->dur[*row], dur);
    return true;
}

static int by_label(const void *x, const void *y)
{
    return strcmp(((const kt_key_total *)x)->label, ((const kt_key_total *)y)->label);
}

/* Sorted rows with equal labels folded into the first. */
static void merge_equal(kt_key_totals *t)
{
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (w && !strcmp(t->v[w - 1].label, t->v[i].label)) {
            t->v[w - 1].count += t->v[i].count;
            t->v[w - 1].dur = kt_sat_add(t->v[w - 1].dur, t->v[i].dur);
            free(t->v[i].label);
        } else {
            t->v[w++] = t->v[i];
        }
    }
    t->n = w;
}

kt_status kt_key_acc_finish(kt_key_acc *a, char *(*label)(void *ctx, int64_t key), void *ctx,
                            kt_key_totals *out)
{
    *out = (kt_key_totals){ .v = calloc(a->n ? a->n : 1, sizeof *out->v) };
    kt_status st = out->v ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < a->n; i++) {
        out->v[i] = (kt_key_total){ label(ctx, a->key[i]), a->count[i], a->dur[i] };
        out->n++;
        if (!out->v[i].label) st = KT_ENOMEM;
    }
    kt_key_acc_free(a);
    if (st != KT_OK) {
        kt_key_totals_free(out);
        return st;
    }
    qsort(out->v, out->n, sizeof *out->v, by_label);
    merge_equal(out);
    return KT_OK;
}

void kt_key_totals_free(kt_key_totals *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i].label);
    free(t->v);
    *t = (kt_key_totals){ 0 };
}
