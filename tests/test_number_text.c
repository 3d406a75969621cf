/* test_number_text.c — kt_int_text / kt_fixed_text write what printf writes;
 * kt_shortest_text the shortest printf form that reads back.             */
#include "test.h"
#include "table/number_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int check_fixed(double v, int decimals)
{
    char fast[KT_NUMBER_TEXT_MAX], slow[400];
    snprintf(slow, sizeof slow, "%.*f", decimals, v);
    if (!kt_fixed_text(fast, v, decimals)) return 0;
    CHECK_STR(fast, slow);
    return 1;
}

static void check_int(int64_t v)
{
    char fast[KT_NUMBER_TEXT_MAX], slow[32];
    snprintf(slow, sizeof slow, "%lld", (long long)v);
    CHECK_INT(kt_int_text(fast, v), strlen(slow));
    CHECK_STR(fast, slow);
}

/* Every digit count (the digits go two at a time: odd and even lengths),
 * both signs, the extremes, and a spread of values.                      */
TEST(int_text_equals_printf)
{
    static const int64_t vs[] = { 0, 1, -1, 9, 10, 99, 100, 1234567890123LL, -42, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) check_int(vs[i]);
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10)
        for (int64_t d = -1; d <= 1; d++) {
            check_int(p + d);
            check_int(-(p + d));
        }
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        check_int((int64_t)(x >> (i % 60)));
    }
}

TEST(fixed_text_hand_values)
{
    char b[KT_NUMBER_TEXT_MAX];
    CHECK_INT(kt_fixed_text(b, 927.32, 3), 7);
    CHECK_STR(b, "927.320");
    kt_fixed_text(b, 0.0049, 2);
    CHECK_STR(b, "0.00");
    kt_fixed_text(b, -0.0001, 3);
    CHECK_STR(b, "-0.000"); /* printf keeps the sign */
    kt_fixed_text(b, 2.6, 0);
    CHECK_STR(b, "3");
    kt_fixed_text(b, 1.00000006, 7);
    CHECK_STR(b, "1.0000001");
    CHECK_INT(kt_fixed_text(b, 2.5, 0), 0);    /* an exact tie: left to printf (round half even) */
    CHECK_INT(kt_fixed_text(b, 0.0005, 3), 0); /* near a tie in binary */
    CHECK_INT(kt_fixed_text(b, NAN, 3), 0);
    CHECK_INT(kt_fixed_text(b, INFINITY, 3), 0);
    CHECK_INT(kt_fixed_text(b, 1e30, 3), 0);
    CHECK_INT(kt_fixed_text(b, 1.0, 10), 0);
}

TEST(fixed_text_equals_printf_on_many_values)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    int written = 0;
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double mag = (double)(s % 1000000007) / (double)(1 + (s >> 40) % 100000);
        double v = (s & 1) ? -mag : mag;
        written += check_fixed(v, (int)(s >> 20) % 10);
        written += check_fixed((double)(int64_t)(s % 100000000) / 1000.0, 3); /* ns -> µs like the tables */
        written += check_fixed((double)(s % 2000) / 8.0, 2);                   /* ties on binary fractions */
    }
    CHECK(written > 350000); /* the fast path answered most (395 k), not printf */
}

/* The reference: the first of "%.15g", "%.16g", "%.17g" that reads back. */
static void check_shortest(double v)
{
    char fast[KT_NUMBER_TEXT_MAX], slow[64];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(slow, sizeof slow, "%.*g", digits, v);
        if (strtod(slow, NULL) == v) break;
    }
    CHECK_INT(kt_shortest_text(fast, v), strlen(slow));
    CHECK_STR(fast, slow);
    CHECK(strtod(fast, NULL) == v);
}

TEST(shortest_text_hand_values)
{
    char b[KT_NUMBER_TEXT_MAX];
    static const struct { double v; const char *s; } cases[] = {
        { 8.944e-06, "8.944e-06" },              /* TraceLens's GFLOPS, was 0.000009 in csv */
        { 0.0002156601676556466, "0.0002156601676556466" },
        { 1643.8029999999999, "1643.8029999999999" }, /* 16 digits, not %.17g's 17 */
        { 17.360615234375, "17.360615234375" },
        { 0.1, "0.1" },
        { 100, "100" },
        { -2.5, "-2.5" },
        { 1e15, "1e+15" },
        { 123456789012345.0, "123456789012345" },
        { 0.0001, "0.0001" },
        { 0, "0" },
        { -0.0, "-0" },
        { 5e-324, "4.94065645841247e-324" }, /* 15 digits read back (a subnormal) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kt_shortest_text(b, cases[i].v);
        CHECK_STR(b, cases[i].s);
        check_shortest(cases[i].v);
    }
}

/* Every kind of value the tables hold: ns as µs and ms, ratios, sums of
 * many terms (16-17 digits), powers of ten and their neighbours, tiny and
 * huge magnitudes, both signs.                                            */
TEST(shortest_text_equals_printf_on_many_values)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double sign = (s & 1) ? -1 : 1;
        check_shortest(sign * (double)(int64_t)(s % 100000000000) / 1000.0);
        check_shortest((double)(s % 1000000007) / 1e6);
        check_shortest((double)(s % 1000003) / (double)(1 + (s >> 40) % 9973));
        double bits;
        uint64_t u = (s & 0x7FEFFFFFFFFFFFFFULL); /* finite */
        memcpy(&bits, &u, sizeof bits);
        check_shortest(bits);
    }
    for (int e = -20; e <= 20; e++) {
        double p = pow(10, e);
        check_shortest(p);
        check_shortest(nextafter(p, 0));
        check_shortest(nextafter(p, INFINITY));
    }
}
