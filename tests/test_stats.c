/* test_stats.c — kt_median_values gives kt_describe_values' q50: hand
 * values, then odd and even counts with many repeats (the selection's
 * three-way partitions) against a full describe of the same values.     */
#include "test.h"
#include "analysis/common/stats.h"

#include <stdint.h>

TEST(median_values_hand_values)
{
    double one[] = { 7 }, two[] = { 4, 1 }, three[] = { 9, 1, 5 }, four[] = { 3, 8, 1, 6 };
    CHECK(kt_median_values(one, 1) == 7);
    CHECK(kt_median_values(two, 2) == 2.5);
    CHECK(kt_median_values(three, 3) == 5);
    CHECK(kt_median_values(four, 4) == 4.5);
}

TEST(median_values_equal_describe_q50)
{
    enum { N = 5001 };
    static double v[N], w[N];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t n = 1; n <= N; n += n < 100 ? 1 : 977) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[i] = w[i] = (double)(x % (n % 3 ? 40 : 1000000)) * 125.0; /* few or many distinct gaps */
        }
        double median = kt_median_values(v, n);
        CHECK(median == kt_describe_values(w, n).q50);
    }
}
