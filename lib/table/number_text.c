/*
 * number_text.c — see number_text.h.
 */
#include "number_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^d, 0 <= d <= 9, as doubles (exact) and as integers. */
static const double dbl_scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
static const uint64_t int_scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };

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
    if (decimals < 0 || decimals > 9 || !isfinite(v)) return 0;
    double x = fabs(v) * dbl_scale[decimals];
    if (x >= FIXED_LIMIT) return 0;
    double whole = floor(x);
    double frac = x - whole;
    if (fabs(frac - 0.5) < TIE_MARGIN) return 0;
    uint64_t u = (uint64_t)whole + (frac > 0.5);
    size_t n = 0;
    if (signbit(v)) b[n++] = '-'; /* printf keeps the sign of -0.0001 -> "-0.000" */
    n += unsigned_text(b + n, u / int_scale[decimals]);
    if (decimals == 0) return n;
    b[n++] = '.';
    uint64_t f = u % int_scale[decimals];
    for (int i = decimals - 1; i >= 0; i--) {
        b[n + (size_t)i] = (char)('0' + f % 10);
        f /= 10;
    }
    n += (size_t)decimals;
    b[n] = '\0';
    return n;
}

/* The decimal u / 10^d with trailing fraction zeros left out, as %g. */
static size_t decimal_text(char *b, uint64_t u, int d)
{
    uint64_t f = u % int_scale[d];
    size_t n = unsigned_text(b, u / int_scale[d]);
    for (; d > 0 && f % 10 == 0; d--) f /= 10;
    if (d == 0) return n;
    b[n++] = '.';
    for (int i = d - 1; i >= 0; i--, f /= 10) b[n + (size_t)i] = (char)('0' + f % 10);
    n += (size_t)d;
    b[n] = '\0';
    return n;
}

/* The fewest decimals d (0-9) for which the d-decimal nearest |v| reads
 * back to |v|: u / 10^d as a double is the correctly rounded quotient,
 * which is what strtod makes of the text, so the check is exact.  u below
 * 10^15 (at most 15 significant digits) and 1e-4 <= |v|: then that decimal
 * is the one "%.15g" writes, and %g writes it without an exponent.
 * Returns the length, 0 when no such d (the caller asks printf).        */
#define SHORTEST_LIMIT 1e15
static size_t short_decimal(char *b, double v)
{
    double a = fabs(v);
    if (!(a >= 1e-4 && a < SHORTEST_LIMIT)) return 0;
    size_t sign = signbit(v) ? 1 : 0;
    for (int d = 0; d < 10; d++) {
        double x = a * dbl_scale[d];
        if (x >= SHORTEST_LIMIT) break;
        uint64_t u = (uint64_t)(x + 0.5);
        if ((double)u / dbl_scale[d] != a) continue;
        if (sign) b[0] = '-';
        return sign + decimal_text(b + sign, u, d);
    }
    return 0;
}

size_t kt_shortest_text(char *b, double v)
{
    if (v == 0) return (size_t)snprintf(b, KT_NUMBER_TEXT_MAX, signbit(v) ? "-0" : "0");
    size_t n = short_decimal(b, v);
    if (n) return n;
    for (int digits = 15; digits < 17; digits++) {
        n = (size_t)snprintf(b, KT_NUMBER_TEXT_MAX, "%.*g", digits, v);
        if (strtod(b, NULL) == v) return n;
    }
    return (size_t)snprintf(b, KT_NUMBER_TEXT_MAX, "%.17g", v);
}
