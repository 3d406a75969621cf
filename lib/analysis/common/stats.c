/*
 * stats.c — see stats.h.  The formulas follow numpy/pandas operation by
 * operation (two-pass variance, numpy's lerp) so results agree to the bit.
 */
#include "analysis/common/stats.h"

#include "analysis/common/value_counts.h"
#include "model/radix.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* numpy's linear interpolation from a to the next value b at fraction t. */
static double lerp(double a, double b, double t)
{
    double d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

/* numpy.quantile(method="linear") on sorted v. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n) return v[n - 1];
    return lerp(v[lo], v[lo + 1], pos - (double)lo);
}

static void swap_values(double *v, size_t a, size_t b)
{
    double x = v[a];
    v[a] = v[b];
    v[b] = x;
}

static double middle_of_three(double a, double b, double c)
{
    if (a > b) {
        double x = a;
        a = b;
        b = x;
    }
    return c < a ? a : c > b ? b : c;
}

/* v[k] the k-th smallest of v[0..n), no smaller value after it and no
 * larger one before it: three-way partitions (values repeat a lot), and a
 * sort of what is left when the pivots split badly.                      */
static void select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n, rounds = 0;
    while (hi - lo > 1) {
        if (++rounds > 64) {
            kt_sort_doubles(v + lo, hi - lo);
            return;
        }
        double p = middle_of_three(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < p) swap_values(v, lt++, i++);
            else if (v[i] > p) swap_values(v, i, --gt);
            else i++;
        }
        if (k < lt) hi = lt;
        else if (k >= gt) lo = gt;
        else return;
    }
}

double kt_median_values(double *v, size_t n)
{
    double pos = 0.5 * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    select_kth(v, n, lo);
    if (lo + 1 >= n) return v[lo];
    double b = v[lo + 1]; /* the next value: the least of those after v[lo] */
    for (size_t i = lo + 2; i < n; i++)
        if (v[i] < b) b = v[i];
    return lerp(v[lo], b, pos - (double)lo);
}

/* v[0..n) ascending, equal values equal to the bit (so 0 before -0 or a
 * NaN, which kt_sort_doubles would move, read as not sorted).           */
static bool in_order(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (!(v[i - 1] < v[i]) && memcmp(&v[i - 1], &v[i], sizeof *v) != 0) return false;
    return true;
}

static int64_t bits_of(double d)
{
    int64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double double_of(int64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* v sorted by counting its distinct values and sorting those, when they
 * are few and no NaN (kt_sort_doubles keeps NaNs of any payload in their
 * order, which counting would not); false otherwise, v untouched.       */
static bool counted_sort(double *v, size_t n)
{
    kt_value_counts c;
    bool ok = kt_value_counts_init(&c, n / KT_VALUE_COUNTS_SHARE);
    for (size_t i = 0; ok && i < n; i++) ok = v[i] == v[i] && kt_value_counts_add(&c, bits_of(v[i]));
    double *distinct = ok ? malloc((c.nseen ? c.nseen : 1) * sizeof *distinct) : NULL;
    if (distinct) {
        for (size_t k = 0; k < c.nseen; k++) distinct[k] = double_of(c.seen[k]);
        kt_sort_doubles(distinct, c.nseen);
        size_t out = 0;
        for (size_t k = 0; k < c.nseen; k++)
            for (uint64_t m = kt_value_counts_of(&c, bits_of(distinct[k])); m; m--) v[out++] = distinct[k];
    }
    free(distinct);
    kt_value_counts_free(&c);
    return distinct != NULL;
}

void kt_sort_values(double *v, size_t n)
{
    if (n >= 64 && (in_order(v, n) || counted_sort(v, n))) return; /* fewer: not worth the tables */
    kt_sort_doubles(v, n);
}

/* describe() of v[0..n) in kt_sort_doubles' order. */
static kt_describe describe_sorted(const double *v, size_t n)
{
    kt_describe d = { n, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    if (n == 0) return d;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    d.mean = sum / (double)n;
    if (n > 1) {
        double ss = 0;
        for (size_t i = 0; i < n; i++) ss += (v[i] - d.mean) * (v[i] - d.mean);
        d.std = sqrt(ss / (double)(n - 1));
    }
    d.min = v[0];
    d.max = v[n - 1];
    d.q25 = quantile(v, n, 0.25);
    d.q50 = quantile(v, n, 0.5);
    d.q75 = quantile(v, n, 0.75);
    return d;
}

kt_describe kt_describe_values(double *v, size_t n)
{
    kt_sort_values(v, n);
    return describe_sorted(v, n);
}

double kt_np_round(double x, int decimals)
{
    double scale = pow(10.0, decimals);
    return nearbyint(x * scale) / scale;
}

double kt_pct(double part, double whole)
{
    return whole == 0 ? NAN : 100.0 * (part / whole);
}

/* numpy's DOUBLE_pairwise_sum. */
double kt_np_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        memcpy(r, a, sizeof r);
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + (size_t)j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return kt_np_sum(a, n2) + kt_np_sum(a + n2, n - n2);
}
