/*
 * table_concat.c — the reduce of analyses whose tables are per-rank rows:
 * concatenation in rank order, and re-expressing times measured from one
 * rank's origin as times from the job's origin.
 *
 * Most analyses emit one block of rows per rank, rank-major, so the table
 * of a whole job is the tables of its ranks one after the other.  Times
 * "since the trace start" are the exception: the start is the earliest rank's
 * (A2.10), known only once every rank is mapped, so they are fixed here.
 * Footnotes whose figures count something over the ranks add up
 * (kt_table_add_count_note); the others are said once.
 */
#include "table/table.h"

#include <math.h>
#include <string.h>

static bool same_columns(const kt_table *a, const kt_table *b)
{
    if (kt_table_ncols(a) != kt_table_ncols(b)) return false;
    for (size_t c = 0; c < kt_table_ncols(a); c++)
        if (strcmp(kt_table_col_name(a, c), kt_table_col_name(b, c)) ||
            kt_table_col_type(a, c) != kt_table_col_type(b, c) ||
            kt_table_col_precision(a, c) != kt_table_col_precision(b, c))
            return false;
    return true;
}

static void copy_row(kt_table *dst, const kt_table *src, size_t row)
{
    kt_table_add_row(dst);
    for (size_t c = 0; c < kt_table_ncols(src); c++) {
        if (kt_table_is_null(src, row, c)) continue;
        switch (kt_table_col_type(src, c)) {
        case KT_COL_INT: kt_table_set_int(dst, c, kt_table_int(src, row, c)); break;
        case KT_COL_FLOAT: kt_table_set_float(dst, c, kt_table_float(src, row, c)); break;
        case KT_COL_STR: kt_table_set_str(dst, c, kt_table_str(src, row, c)); break;
        }
    }
}

kt_status kt_table_append_rows(kt_table *dst, const kt_table *src)
{
    if (!same_columns(dst, src)) return KT_EANALYSIS;
    kt_table_reserve(dst, kt_table_nrows(dst) + kt_table_nrows(src));
    for (size_t r = 0; r < kt_table_nrows(src); r++) copy_row(dst, src, r);
    return kt_table_failed(dst) ? KT_ENOMEM : KT_OK;
}

/* The table of acc named like src, its footnotes merged (counted ones
 * summed); tables acc lacks are taken over whole.                       */
static kt_status append_table(kt_tables *acc, kt_tables *part, size_t i)
{
    const kt_table *src = kt_tables_get(part, i);
    kt_table *dst = (kt_table *)kt_tables_find(acc, kt_table_name(src));
    if (!dst) {
        kt_table *copy = kt_table_new(kt_table_name(src));
        for (size_t c = 0; copy && c < kt_table_ncols(src); c++) {
            kt_table_add_col(copy, kt_table_col_name(src, c), kt_table_col_type(src, c),
                             kt_table_col_precision(src, c));
            if (kt_table_col_unit(src, c)) kt_table_set_unit(copy, c, kt_table_col_unit(src, c));
        }
        if (!copy || !kt_tables_add(acc, copy)) return KT_ENOMEM;
        dst = copy;
    }
    kt_status st = kt_table_append_rows(dst, src);
    kt_table_merge_notes(dst, src);
    return st == KT_OK && kt_table_failed(dst) ? KT_ENOMEM : st;
}

kt_status kt_tables_append(kt_tables **acc, kt_tables *part)
{
    if (!*acc) {
        *acc = part;
        return KT_OK;
    }
    kt_status st = KT_OK;
    for (size_t i = 0; part && i < kt_tables_count(part) && st == KT_OK; i++) st = append_table(*acc, part, i);
    kt_tables_free(part);
    return st;
}

/* The cell holds (ts - from) / 1e3 as a double: its integer ns come back
 * exactly by rounding (|ns| < 2^50), and the new value is computed as the
 * analysis would have computed it from the other origin.                 */
static double rebased(double us, int64_t shift_ns)
{
    int64_t ns = llround(us * 1e3);
    return (double)(ns + shift_ns) / 1e3;
}

kt_status kt_tables_rebase_us(kt_tables *ts, const char *table, const char *col, int64_t from_ns, int64_t to_ns)
{
    kt_table *t = (kt_table *)(ts ? kt_tables_find(ts, table) : NULL);
    long c = t ? kt_table_col_index(t, col) : -1;
    if (c < 0 || kt_table_col_type(t, (size_t)c) != KT_COL_FLOAT || from_ns == to_ns) return KT_OK;
    for (size_t r = 0; r < kt_table_nrows(t); r++)
        if (!kt_table_is_null(t, r, (size_t)c))
            kt_table_put_float(t, r, (size_t)c, rebased(kt_table_float(t, r, (size_t)c), from_ns - to_ns));
    return KT_OK;
}

/* The columns of table name over every set: "rank", then each column in
 * the order the sets first show it (roofline sheets' "param: " columns
 * differ between ranks).                                                 */
static kt_table *stack_columns(const kt_tables *const *sets, size_t n, const char *name)
{
    kt_table *dst = kt_table_new(name);
    if (dst) kt_table_add_col(dst, "rank", KT_COL_INT, 0);
    for (size_t i = 0; dst && i < n; i++) {
        const kt_table *src = kt_tables_find(sets[i], name);
        for (size_t c = 0; src && c < kt_table_ncols(src); c++)
            if (kt_table_col_index(dst, kt_table_col_name(src, c)) < 0) {
                size_t k = kt_table_add_col(dst, kt_table_col_name(src, c), kt_table_col_type(src, c),
                                            kt_table_col_precision(src, c));
                if (kt_table_col_unit(src, c)) kt_table_set_unit(dst, k, kt_table_col_unit(src, c));
            }
    }
    return dst;
}

/* src's rows under rank, each cell in dst's column of the same name. */
static void stack_rows(kt_table *dst, const kt_table *src, int rank)
{
    for (size_t r = 0; r < kt_table_nrows(src); r++) {
        kt_table_add_row(dst);
        kt_table_set_int(dst, 0, rank);
        for (size_t c = 0; c < kt_table_ncols(src); c++) {
            size_t d = (size_t)kt_table_col_index(dst, kt_table_col_name(src, c));
            if (kt_table_is_null(src, r, c)) continue;
            switch (kt_table_col_type(src, c)) {
            case KT_COL_INT: kt_table_set_int(dst, d, kt_table_int(src, r, c)); break;
            case KT_COL_FLOAT: kt_table_set_float(dst, d, kt_table_float(src, r, c)); break;
            case KT_COL_STR: kt_table_set_str(dst, d, kt_table_str(src, r, c)); break;
            }
        }
    }
}

kt_status kt_tables_stack_ranks(const kt_tables *const *sets, const int *ranks, size_t n, kt_tables **out)
{
    kt_tables *acc = kt_tables_new();
    kt_status st = acc ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; i < n && st == KT_OK; i++)
        for (size_t k = 0; k < kt_tables_count(sets[i]) && st == KT_OK; k++) {
            const char *name = kt_table_name(kt_tables_get(sets[i], k));
            if (kt_tables_find(acc, name)) continue;
            kt_table *dst = stack_columns(sets, n, name);
            for (size_t j = 0; dst && j < n; j++)
                if (kt_tables_find(sets[j], name)) stack_rows(dst, kt_tables_find(sets[j], name), ranks[j]);
            if (dst && kt_table_failed(dst)) {
                kt_table_free(dst);
                dst = NULL;
            }
            if (!dst || !kt_tables_add(acc, dst)) st = KT_ENOMEM;
        }
    if (st != KT_OK) kt_tables_free(acc);
    *out = st == KT_OK ? acc : NULL;
    return st;
}
