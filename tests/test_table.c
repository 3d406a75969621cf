/* test_table.c — result tables: building, reading, CSV/JSON rendering. */
#include "test.h"
#include "table/table.h"
#include "../programs/cli.h"

#include <stdlib.h>

static kt_table *sample(void)
{
    kt_table *t = kt_table_new("demo");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    kt_table_add_col(t, "count", KT_COL_INT, 0);
    kt_table_add_col(t, "pct", KT_COL_FLOAT, 2);
    kt_table_add_row(t);
    kt_table_set_str(t, 0, "a,\"b\"");
    kt_table_set_int(t, 1, 42);
    kt_table_set_float(t, 2, 12.345);
    kt_table_add_row(t);
    kt_table_set_str(t, 0, "plain");
    kt_table_set_float(t, 2, NAN);
    return t;
}

static char *render(void (*fn)(const kt_table *, FILE *), const kt_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(t, f);
    fclose(f);
    return buf;
}

TEST(table_csv_quotes_and_nulls)
{
    kt_table *t = sample();
    char *s = render(print_table_csv, t);
    CHECK_STR(s, "name,count,pct\n\"a,\"\"b\"\"\",42,12.345\nplain,,\n"); /* every digit */
    free(s);
    kt_table_free(t);
}

/* JSON keeps every digit (12.345 in a 2-decimal column), as CSV does. */
TEST(table_json_rows_keyed_by_column)
{
    kt_table *t = sample();
    char *s = render(print_table_json, t);
    CHECK_STR(s, "[\n  {\"name\":\"a,\\\"b\\\"\",\"count\":42,\"pct\":12.345},\n"
                 "  {\"name\":\"plain\",\"count\":null,\"pct\":null}\n]");
    free(s);
    kt_table_free(t);
}

TEST(table_lookup_by_name)
{
    kt_tables *ts = kt_tables_new();
    CHECK(kt_tables_add(ts, sample()));
    const kt_table *t = kt_tables_find(ts, "demo");
    CHECK(t != NULL);
    CHECK_INT(kt_table_col_index(t, "pct"), 2);
    CHECK_INT(kt_table_col_index(t, "nope"), -1);
    CHECK_INT(kt_table_int(t, 0, 1), 42);
    CHECK(kt_table_is_null(t, 1, 1));
    kt_tables_free(ts);
}

/* Rows filled through kt_table_row: the same cells as the setters give,
 * NaN and unset cells null, a shared string cell reading as its source,
 * and string cells past the first 64 KiB chunk intact.                   */
TEST(table_rows_filled_through_cells)
{
    kt_table *t = kt_table_new("rows");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    kt_table_add_col(t, "count", KT_COL_INT, 0);
    kt_table_add_col(t, "pct", KT_COL_FLOAT, 2);
    char big[40000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    for (int i = 0; i < 6; i++) {
        kt_row r = kt_table_row(t);
        if (i == 0) kt_row_str(t, r, 0, "gpu 0");
        else if (i < 3) kt_row_str_of(t, r, 0, 0);
        else kt_row_str(t, r, 0, big);
        if (i != 1) kt_row_int(r, 1, 10 * i);
        kt_row_float(r, 2, i == 2 ? NAN : 0.5 * i);
    }
    CHECK(!kt_table_failed(t));
    CHECK_INT(kt_table_nrows(t), 6);
    CHECK_STR(kt_table_str(t, 2, 0), "gpu 0");
    CHECK_INT(kt_table_is_null(t, 1, 1), 1);
    CHECK_INT(kt_table_int(t, 4, 1), 40);
    CHECK_INT(kt_table_is_null(t, 2, 2), 1);
    CHECK_NEAR(kt_table_float(t, 5, 2), 2.5, 0);
    CHECK_STR(kt_table_str(t, 5, 0), big);
    char *s = render(print_table_csv, t);
    static const char head[] = "name,count,pct\ngpu 0,0,0\ngpu 0,,0.5\ngpu 0,20,\n";
    CHECK(strncmp(s, head, sizeof head - 1) == 0);
    free(s);
    kt_table_free(t);
}

/* Several columns read in one pass give what a read of each gives: ints
 * as doubles, nulls as NaN, a column listed twice, one row of a range; a
 * string column, one past the end or rows past the last are refused with
 * nothing written.                                                       */
TEST(table_floats_rows_reads_columns_in_one_pass)
{
    kt_table *t = sample();
    double count[2], pct[2], again[2], one[2], keep[2] = { 7, 7 };
    double *dst[] = { pct, count, again };
    const size_t cols[] = { 2, 1, 2 };
    CHECK_INT(kt_table_floats_rows(t, cols, 3, 0, 2, dst), KT_OK);
    CHECK_NEAR(count[0], 42, 0);
    CHECK(isnan(count[1]));
    CHECK_NEAR(pct[0], 12.345, 0);
    CHECK(isnan(pct[1]));
    CHECK(!memcmp(pct, again, sizeof pct));
    CHECK_INT(kt_table_floats(t, 1, one, NULL), KT_OK);
    CHECK(!memcmp(one, count, sizeof one));
    const size_t with_text[] = { 1, 0 }, past[] = { 3 };
    double *into[] = { keep, keep };
    CHECK_INT(kt_table_floats_rows(t, with_text, 2, 0, 2, into), KT_EUSAGE);
    CHECK_INT(kt_table_floats_rows(t, past, 1, 0, 2, into), KT_EUSAGE);
    CHECK_INT(kt_table_floats_rows(t, cols, 1, 1, 3, into), KT_EUSAGE); /* rows past the last */
    CHECK_NEAR(keep[0], 7, 0);
    double *second[] = { one }; /* row 1 alone, into one[0] */
    CHECK_INT(kt_table_floats_rows(t, &cols[1], 1, 1, 2, second), KT_OK);
    CHECK(isnan(one[0]));
    kt_table_free(t);
}
