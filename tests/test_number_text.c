/* test_number_text.c — kt_int_text / kt_fixed_text write what printf writes. */
#include "test.h"
#include "table/number_text.h"

#include <stdint.h>
#include <stdlib.h>

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
