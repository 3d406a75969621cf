/*
 * json_number.c — JSON numbers read as the loader reads them: exact
 * integers, correctly rounded doubles, µs as exact ns; the same digits
 * give the same value whatever the host program's locale
 * (json_number.h).  In the model layer so that every layer reads numbers
 * this one way (the loader, HTA's rounding, perf's specs and shapes,
 * trace copies).
 */
#include "json_number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pow10_tab[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

static double scale10(double m, int e)
{
    while (e > 22) { m *= 1e22; e -= 22; }
    while (e < -22) { m /= 1e22; e += 22; }
    return e >= 0 ? m * pow10_tab[e] : m / pow10_tab[-e];
}

/* Decimal digits of a JSON number: up to 19 significant digits in m, the
 * power of ten they are scaled by, and whether digits were dropped.      */
typedef struct decimal {
    bool neg, frac_or_exp, dropped;
    uint64_t m;
    int ndigits;     /* significant digits kept in m                       */
    int64_t exp10;   /* value = m * 10^exp10, plus the dropped digits       */
} decimal;

static const char *scan_decimal(const char *s, const char *end, decimal *d)
{
    memset(d, 0, sizeof *d);
    const char *p = s;
    if (p < end && (*p == '-' || *p == '+')) d->neg = *p++ == '-';
    const char *digits = p;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (d->ndigits < 19) {
            if (d->m || *p != '0') d->ndigits++;
            d->m = d->m * 10 + (uint64_t)(*p - '0');
        } else {
            d->dropped |= *p != '0';
            d->exp10++;
        }
    }
    bool any = p > digits;
    if (p < end && *p == '.') {
        d->frac_or_exp = true;
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            any = true;
            if (d->ndigits < 19) {
                if (d->m || *p != '0') d->ndigits++;
                d->m = d->m * 10 + (uint64_t)(*p - '0');
                d->exp10--;
            } else {
                d->dropped |= *p != '0';
            }
        }
    }
    if (!any) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        d->frac_or_exp = true;
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        if (p >= end || *p < '0' || *p > '9') return NULL;
        int64_t e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (e < 100000) e = e * 10 + (*p - '0');
        d->exp10 += eneg ? -e : e;
    }
    return p;
}

/* m · 10^e is correctly rounded by one multiplication or division when m
 * and the power of ten are exact doubles (Clinger's fast path).            */
static bool exact_fast_path(const decimal *d)
{
    return !d->dropped && d->m <= (UINT64_C(1) << 53) && d->exp10 >= -22 && d->exp10 <= 22;
}

/* Longer mantissas (17-19 digits, e.g. bandwidth args) round twice above;
 * strtod rounds once, as Python's float() does for HTA.  strtod reads the
 * radix character of the process locale (',' under de_DE), and a library
 * must not depend on that: the number is handed over without one, as
 * digits and a power of ten ("12.5e3" → "125e2").                          */
static double correctly_rounded(const char *s, const char *p, double approx)
{
    char buf[96];
    size_t k = 0;
    int64_t shift = 0, exp = 0;
    bool in_frac = false, eneg = false;
    const char *q = s;
    for (; q < p && *q != 'e' && *q != 'E'; q++) {
        if (*q == '.') {
            in_frac = true;
            continue;
        }
        if (k + 24 >= sizeof buf) return approx;
        buf[k++] = *q;
        shift -= in_frac;
    }
    if (q < p) q++;
    if (q < p && (*q == '-' || *q == '+')) eneg = *q++ == '-';
    for (; q < p; q++)
        if (exp < 100000) exp = exp * 10 + (*q - '0');
    snprintf(buf + k, sizeof buf - k, "e%lld", (long long)((eneg ? -exp : exp) + shift));
    return strtod(buf, NULL);
}

const char *kt_parse_number(const char *s, const char *end, kt_num *out)
{
    decimal d;
    const char *p = scan_decimal(s, end, &d);
    if (!p) return NULL;
    out->f = scale10((double)d.m, (int)(d.exp10 < -400 ? -400 : d.exp10 > 400 ? 400 : d.exp10));
    if (d.neg) out->f = -out->f;
    if (d.frac_or_exp && !exact_fast_path(&d)) out->f = correctly_rounded(s, p, out->f);
    if (d.frac_or_exp) {
        out->kind = KT_NUM_FLOAT;
        out->i = kt_double_to_i64(out->f, 0);
        return p;
    }
    if (d.exp10 != 0 || d.m > (uint64_t)INT64_MAX + d.neg) {
        out->kind = KT_NUM_BIGINT;
        out->i = 0;
        return p;
    }
    out->kind = KT_NUM_INT;
    out->i = d.neg ? (int64_t)(0 - d.m) : (int64_t)d.m;
    return p;
}

static const uint64_t pow10_u64[] = { 1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
                                      1000000ull, 10000000ull, 100000000ull, 1000000000ull,
                                      10000000000ull, 100000000000ull, 1000000000000ull,
                                      10000000000000ull, 100000000000000ull,
                                      1000000000000000ull, 10000000000000000ull,
                                      100000000000000000ull, 1000000000000000000ull,
                                      10000000000000000000ull };

const char *kt_parse_us_as_ns(const char *s, const char *end, int64_t *ns, bool *rounded,
                              bool *overflow)
{
    decimal d;
    const char *p = scan_decimal(s, end, &d);
    *rounded = false;
    *overflow = false;
    if (!p) return NULL;
    int64_t scale = d.exp10 + 3; /* µs → ns */
    uint64_t v;
    if (scale >= 0) {
        if (scale > 19 || (d.m && d.m > UINT64_MAX / pow10_u64[scale])) {
            *overflow = d.m != 0;
            v = 0;
        } else {
            v = d.m * pow10_u64[scale];
        }
        *rounded = d.dropped; /* only when > 19 digits, i.e. overflow anyway */
    } else if (-scale > 19) { /* far below 1 ns */
        v = 0;
        *rounded = d.m != 0;
    } else {
        uint64_t div = pow10_u64[-scale], r = d.m % div;
        v = d.m / div + (r >= div - r); /* round half up (on the magnitude) */
        *rounded = r != 0 || d.dropped;
    }
    if (v > (uint64_t)INT64_MAX) {
        *overflow = true;
        v = 0;
    }
    *ns = d.neg ? -(int64_t)v : (int64_t)v;
    return p;
}
