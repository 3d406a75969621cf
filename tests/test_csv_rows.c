/*
 * test_csv_rows.c — the CSV row reader on the shapes a profiler's CSV can
 * take: quoted commas and newlines, doubled quotes, quotes inside an
 * unquoted field, CRLF ends inside and outside quotes, empty fields, an
 * unterminated quote, and the integer forms readers accept.  Fields found
 * in place and fields unquoted into the row buffer must read the same.
 */
#include "test.h"
#include "load/csv_rows.h"

#include <string.h>

static void check_field(const kt_csv *c, int col, const char *want)
{
    kt_csv_field f = kt_csv_get(c, col);
    CHECK_INT(f.n, strlen(want));
    CHECK(f.n == strlen(want) && memcmp(f.s, want, f.n) == 0);
}

TEST(csv_rows_quotes_and_line_ends)
{
    static const char text[] = "a,b,c,d\r\n"
                               "\"x,1\",plain,\"q\"\"uote\",ab\"c,d\"e\r\n"
                               "\"a multi word line\nsecond line\",2,\"cr\r\"\r\n"
                               ",,\"\",\n"
                               "\"long quoted field with, a comma\",\"tail\"\r\n"
                               "\"unterminated,5";
    kt_csv c;
    CHECK(kt_csv_open(&c, text, sizeof text - 1));
    CHECK_INT(c.nhead, 4);
    CHECK_INT(kt_csv_col(&c, (const char *const[]){ "D", NULL }), 3);
    CHECK(kt_csv_next(&c));
    CHECK_INT(c.nf, 4);
    check_field(&c, 0, "x,1");
    check_field(&c, 1, "plain");
    check_field(&c, 2, "q\"uote");
    check_field(&c, 3, "abc,de");
    CHECK(kt_csv_next(&c));
    CHECK_INT(c.nf, 3);
    check_field(&c, 0, "a multi word line\nsecond line");
    check_field(&c, 1, "2");
    check_field(&c, 2, "cr\r"); /* one CR ends the row, the quoted one stays */
    CHECK(kt_csv_next(&c));
    CHECK_INT(c.nf, 4);
    for (int k = 0; k < 4; k++) check_field(&c, k, "");
    CHECK(kt_csv_next_cols(&c, 1));
    CHECK_INT(c.nf, 1);
    check_field(&c, 0, "long quoted field with, a comma");
    check_field(&c, 1, ""); /* not read */
    CHECK(kt_csv_next(&c));
    CHECK_INT(c.nf, 1);
    check_field(&c, 0, "unterminated,5");
    CHECK(!kt_csv_next(&c));
    kt_csv_close(&c);
}

TEST(csv_rows_integers)
{
    static const char text[] = "a,b,c,d,e,f\n   12,Agent 4,-7,1234567890123456789,-,1550151853029637\n";
    kt_csv c;
    CHECK(kt_csv_open(&c, text, sizeof text - 1));
    CHECK(kt_csv_next(&c));
    int64_t v = 0;
    CHECK(kt_csv_int(&c, 0, &v) && v == 12);
    CHECK(kt_csv_int(&c, 1, &v) && v == 4);
    CHECK(kt_csv_int(&c, 2, &v) && v == -7);
    CHECK(!kt_csv_int(&c, 3, &v)); /* 19 digits: may not fit */
    CHECK(!kt_csv_int(&c, 4, &v));
    CHECK(kt_csv_int(&c, 5, &v) && v == 1550151853029637);
    CHECK(!kt_csv_int(&c, 6, &v)); /* past the row */
    kt_csv_close(&c);
}
