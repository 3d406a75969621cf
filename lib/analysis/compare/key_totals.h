/*
 * key_totals.h — count and summed duration per key, then per label string.
 *
 * The per-rank map of every diff table is the same: fold millions of
 * events into (key → count, time) with a small integer key (a name id, a
 * launcher kind and name id), then turn keys into strings, because the two runs have
 * different string tables and only strings compare across them.  Labels
 * that coincide (short names, categories) are merged; the result is
 * sorted by label (byte order = Python's code-point order), ready for a
 * merge walk against the other run.
 */
#ifndef KT_KEY_TOTALS_H
#define KT_KEY_TOTALS_H

#include "kineta.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kt_key_total {
    char *label;       /* malloc'd */
    uint64_t count;
    int64_t dur;       /* ns */
} kt_key_total;

typedef struct kt_key_totals {
    kt_key_total *v;   /* sorted by label, labels distinct */
    size_t n;
} kt_key_totals;

/* Keys are dense: ids below a limit (string ids are), so the key → row
 * lookup is an array index — a hash of such keys costs more than the
 * whole rest of the fold.                                                 */
typedef struct kt_key_acc {
    uint32_t *row;     /* per key: its row, UINT32_MAX = none yet */
    size_t limit;
    int64_t *key;
    uint64_t *count;
    int64_t *dur;
    size_t n;
} kt_key_acc;

/* Keys in [0, limit). */
bool kt_key_acc_init(kt_key_acc *a, size_t limit);
/* False when key is out of range (a caller's bug). */
bool kt_key_acc_add(kt_key_acc *a, int64_t key, int64_t dur);
/* label(ctx, key) returns a malloc'd string or NULL (out of memory).
 * Frees the accumulator's memory either way.                              */
kt_status kt_key_acc_finish(kt_key_acc *a, char *(*label)(void *ctx, int64_t key), void *ctx,
                            kt_key_totals *out);
void kt_key_acc_free(kt_key_acc *a);
void kt_key_totals_free(kt_key_totals *t);

#endif
