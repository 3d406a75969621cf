/* test_value_counts.c — the distinct-value counter: counts, the order
 * values were first seen, and refusal past the limit.                    */
#include "analysis/common/value_counts.h"
#include "test.h"

TEST(value_counts_counts_and_limit)
{
    kt_value_counts c;
    CHECK(kt_value_counts_init(&c, 3));
    static const int64_t v[] = { 5, -1, 5, 0, 5, -1 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) CHECK(kt_value_counts_add(&c, v[i]));
    CHECK(c.nseen == 3 && c.seen[0] == 5 && c.seen[1] == -1 && c.seen[2] == 0);
    CHECK(kt_value_counts_of(&c, 5) == 3 && kt_value_counts_of(&c, -1) == 2 && kt_value_counts_of(&c, 0) == 1);
    CHECK(kt_value_counts_of(&c, 7) == 0);
    CHECK(!kt_value_counts_add(&c, 7)); /* a fourth distinct value */
    CHECK(kt_value_counts_add(&c, 0));  /* a known one still counts */
    CHECK(kt_value_counts_of(&c, 0) == 2);
    kt_value_counts_free(&c);
}
