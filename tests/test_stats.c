/* test_stats.c — kt_median_values gives kt_describe_values' q50: hand
 * values, then odd and even counts with many repeats (the selection's
 * three-way partitions) against a full describe of the same values.     */
#include "test.h"
#include "analysis/common/stats.h"
#include "model/radix.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* Repeated values take the counting sort: the same order, bits and
 * statistics as the plain sort, -0 and 0 kept apart; a NaN or many
 * distinct values fall back to the plain sort.                          */
TEST(describe_values_counted_equal_plain_sort)
{
    enum { N = 4000 };
    static double v[N], w[N];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = w[i] = x % 7 == 0 ? (x % 2 ? -0.0 : 0.0) : (double)(x % 50) * 1.1;
    }
    kt_describe a = kt_describe_values(v, N);
    kt_sort_doubles(w, N);
    kt_describe b = kt_describe_values(w, N); /* sorted: taken as it is */
    CHECK(memcmp(v, w, sizeof v) == 0);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(a.count == N && a.max == 49 * 1.1 && a.min == 0);
}

TEST(describe_values_hand_values)
{
    enum { N = 100 };
    double v[N];
    for (size_t i = 0; i < N; i++) v[i] = (double)(i % 4); /* 25 each of 0..3, few distinct */
    kt_describe d = kt_describe_values(v, N);
    CHECK(d.mean == 1.5 && d.min == 0 && d.max == 3);
    CHECK(d.q25 == 0.75 && d.q50 == 1.5 && d.q75 == 2.25);
    CHECK(v[0] == 0 && v[24] == 0 && v[25] == 1 && v[99] == 3);
}

TEST(describe_values_many_distinct_and_nan_equal_plain_sort)
{
    enum { N = 1000 };
    static double v[N], w[N];
    for (int nan = 0; nan < 2; nan++) {
        for (size_t i = 0; i < N; i++) v[i] = w[i] = nan && i == 500 ? NAN : (double)((i * 7919) % N) / 3;
        kt_describe a = kt_describe_values(v, N);
        kt_sort_doubles(w, N);
        CHECK(memcmp(v, w, sizeof v) == 0);
        CHECK(a.min == 0 && a.count == N);
        CHECK(nan ? a.max != a.max : a.max == (double)(N - 1) / 3);
    }
}
