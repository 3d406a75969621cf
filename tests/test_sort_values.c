/* test_sort_values.c — values sorted by their distinct values
 * (kt_sort_values: perf's per-call times, describe()) come out as
 * kt_sort_doubles puts them, bit for bit: few distinct values (counted),
 * signed zeros, sorted input, many distinct values and NaNs (both handed
 * to kt_sort_doubles).                                                    */
#include "analysis/common/stats.h"
#include "model/radix.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v sorted both ways: the same bits. */
static void check_same_as_radix(const double *v, size_t n)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    memcpy(a, v, n * sizeof *a);
    memcpy(b, v, n * sizeof *b);
    kt_sort_values(a, n);
    kt_sort_doubles(b, n);
    CHECK(!memcmp(a, b, n * sizeof *a));
    free(a);
    free(b);
}

TEST(sort_values_few_distinct_values)
{
    enum { N = 1000 };
    double v[N];
    for (size_t i = 0; i < N; i++) v[i] = (double)((i * 7919) % 5) * 1.25 - 2.5; /* 5 values, 0 among them */
    v[3] = -0.0;                                 /* was +0 */
    v[700] = 1e-3 * 4171;                        /* was -2.5; not exact in binary, once */
    check_same_as_radix(v, N);
    kt_sort_values(v, N);
    CHECK(v[0] == -2.5 && v[198] == -2.5 && v[199] == -1.25 && v[N - 2] == 2.5);
    size_t zeros = 0;
    for (size_t i = 0; i < N; i++) zeros += v[i] == 0;
    CHECK_INT(zeros, 200);
    CHECK(v[399] == 0 && signbit(v[399]) && v[400] == 0 && !signbit(v[400])); /* -0 first of the zeros */
    CHECK(v[N - 1] == 1e-3 * 4171);
    check_same_as_radix(v, N); /* sorted already */
}

TEST(sort_values_many_values_and_nans)
{
    enum { N = 500 };
    double v[N];
    for (size_t i = 0; i < N; i++) v[i] = (double)((i * 7919) % 997) / 3;
    check_same_as_radix(v, N);
    for (size_t i = 0; i < N; i++) v[i] = (double)(i % 3);
    v[10] = NAN;
    v[20] = -NAN;
    check_same_as_radix(v, N);
    check_same_as_radix(v, 40);             /* below the counting size */
}
