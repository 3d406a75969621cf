/*
 * number_text.c — see number_text.h.
 */
#include "number_text.h"

#include <math.h>
#include <string.h>

/* Two digits per division (tables of millions of integers are printed),
 * built right-aligned in tmp and moved to b in one fixed-size copy: b has
 * room for KT_NUMBER_TEXT_MAX - 1 bytes (a sign may come before).       */
static size_t unsigned_text(char *b, uint64_t u)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    enum { DIGITS_MAX = 20, COPY = 24 };
    char tmp[DIGITS_MAX + COPY] = { 0 };
    size_t at = DIGITS_MAX;
    for (; u >= 100; u /= 100) {
        at -= 2;
        memcpy(tmp + at, pairs + 2 * (u % 100), 2);
    }
    if (u >= 10) {
        at -= 2;
        memcpy(tmp + at, pairs + 2 * u, 2);
    } else {
        tmp[--at] = (char)('0' + u);
    }
    _Static_assert(COPY < KT_NUMBER_TEXT_MAX, "unsigned_text's copy fits the caller's room");
    memcpy(b, tmp + at, COPY);
    size_t n = DIGITS_MAX - at;
    b[n] = '\0';
    return n;
}

size_t kt_int_text(char *b, int64_t v)
{
    if (v >= 0) return unsigned_text(b, (uint64_t)v);
    b[0] = '-';
    return 1 + unsigned_text(b + 1, 0 - (uint64_t)v);
}

/* |v| * 10^decimals below 2^40: the product's rounding error (half an ulp,
 * <= 2^-13) is far below TIE_MARGIN, so a fraction outside
 * 0.5 +- TIE_MARGIN rounds the same way as the exact decimal value.      */
#define FIXED_LIMIT 1099511627776.0
#define TIE_MARGIN 1e-3

size_t kt_fixed_text(char *b, double v, int decimals)
{
    static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
    static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                      1000000000 };
    if (decimals < 0 || decimals > 9 || !isfinite(v)) return 0;
    double x = fabs(v) * scale[decimals];
    if (x >= FIXED_LIMIT) return 0;
    double whole = floor(x);
    double frac = x - whole;
    if (fabs(frac - 0.5) < TIE_MARGIN) return 0;
    uint64_t u = (uint64_t)whole + (frac > 0.5);
    size_t n = 0;
    if (signbit(v)) b[n++] = '-'; /* printf keeps the sign of -0.0001 -> "-0.000" */
    n += unsigned_text(b + n, u / pow10[decimals]);
    if (decimals == 0) return n;
    b[n++] = '.';
    uint64_t f = u % pow10[decimals];
    for (int i = decimals - 1; i >= 0; i--) {
        b[n + (size_t)i] = (char)('0' + f % 10);
        f /= 10;
    }
    n += (size_t)decimals;
    b[n] = '\0';
    return n;
}
