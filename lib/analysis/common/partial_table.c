/*
 * partial_table.c — see partial_table.h.
 */
#include "analysis/common/partial_table.h"
#include "table/table.h"

#include <string.h>

kt_table *kt_partial_table_new(const kt_partial_spec *s)
{
    kt_table *t = kt_table_new(s->name);
    for (size_t c = 0; t && c < s->n; c++) kt_table_add_col(t, s->cols[c], s->type[c], s->type[c] == KT_COL_FLOAT ? -1 : 0);
    return t;
}

const kt_table *kt_partial_table_find(const kt_tables *ts, const kt_partial_spec *s)
{
    const kt_table *t = kt_tables_find(ts, s->name);
    if (!t || kt_table_ncols(t) != s->n) return NULL;
    for (size_t c = 0; c < s->n; c++)
        if (strcmp(kt_table_col_name(t, c), s->cols[c]) || kt_table_col_type(t, c) != s->type[c]) return NULL;
    return t;
}
