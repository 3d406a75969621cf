/*
 * partial_table.h — tables that carry a map's partial result between
 * processes (--stream-ranks, MPI): declared once by a spec (name, columns
 * and their types), created from it and, on the way back, found only when
 * their columns are exactly the spec's.
 */
#ifndef KT_PARTIAL_TABLE_H
#define KT_PARTIAL_TABLE_H

#include "kineta.h"

#define KT_PARTIAL_MAX_COLS 8

typedef struct kt_partial_spec {
    const char *name;
    const char *cols[KT_PARTIAL_MAX_COLS];
    kt_col_type type[KT_PARTIAL_MAX_COLS];
    size_t n;
} kt_partial_spec;

/* An empty table of spec s (NULL when out of memory). */
kt_table *kt_partial_table_new(const kt_partial_spec *s);
/* The table of spec s in ts with exactly its columns, or NULL. */
const kt_table *kt_partial_table_find(const kt_tables *ts, const kt_partial_spec *s);

#endif
