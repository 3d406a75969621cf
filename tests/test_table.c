/* test_table.c — result tables: building, reading, CSV/JSON rendering. */
#include "test.h"
#include "output/table.h"
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
    CHECK_STR(s, "name,count,pct\n\"a,\"\"b\"\"\",42,12.35\nplain,,\n");
    free(s);
    kt_table_free(t);
}

/* JSON keeps every digit (12.345 in a 2-decimal column); CSV rounds. */
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
