/*
 * stats.c — see stats.h.  The formulas follow numpy/pandas operation by
 * operation (two-pass variance, numpy's lerp) so results agree to the bit.
 */
#include "analysis/common/stats.h"

#include "model/radix.h"

#include <math.h>
#include <stdlib.h>

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

kt_describe kt_describe_values(double *v, size_t n)
{
    kt_describe d = { n, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    if (n == 0) return d;
    kt_sort_doubles(v, n);
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

double kt_np_round(double x, int decimals)
{
    double scale = pow(10.0, decimals);
    return nearbyint(x * scale) / scale;
}

double kt_pct(double part, double whole)
{
    return whole == 0 ? NAN : 100.0 * (part / whole);
}
