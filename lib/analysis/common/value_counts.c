/*
 * value_counts.c — see value_counts.h.
 */
#include "analysis/common/value_counts.h"

#include <stdlib.h>

bool kt_value_counts_init(kt_value_counts *c, size_t limit)
{
    size_t slots = 2;
    int bits = 1;
    while (slots < 2 * limit) slots *= 2, bits++;
    *c = (kt_value_counts){ .key = malloc(slots * sizeof *c->key), .n = calloc(slots, sizeof *c->n),
                            .seen = malloc((limit ? limit : 1) * sizeof *c->seen), .limit = limit,
                            .mask = slots - 1, .shift = 64 - bits };
    return c->key && c->n && c->seen;
}

void kt_value_counts_free(kt_value_counts *c)
{
    free(c->key);
    free(c->n);
    free(c->seen);
    *c = (kt_value_counts){ 0 };
}
