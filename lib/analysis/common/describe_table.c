/* describe_table.c — see describe_table.h. */
#include "analysis/common/describe_table.h"

#include <stdio.h>

size_t kt_describe_add_cols(kt_table *t, const char *prefix)
{
    static const char *const stats[] = { "mean", "std", "min", "25%", "50%", "75%", "max" };
    char name[128];
    snprintf(name, sizeof name, "%s_count", prefix);
    size_t first = kt_table_add_col(t, name, KT_COL_INT, 0);
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++) {
        snprintf(name, sizeof name, "%s_%s", prefix, stats[i]);
        kt_table_add_col(t, name, KT_COL_FLOAT, -1);
    }
    return first;
}

void kt_describe_set_unit(kt_table *t, size_t first_col, const char *unit)
{
    for (size_t i = 1; i <= 7; i++) kt_table_set_unit(t, first_col + i, unit);
}

void kt_describe_set(kt_table *t, size_t c, const kt_describe *d)
{
    kt_table_set_int(t, c, (int64_t)d->count);
    const double v[] = { d->mean, d->std, d->min, d->q25, d->q50, d->q75, d->max };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) kt_table_set_float(t, c + 1 + i, v[i]);
}
