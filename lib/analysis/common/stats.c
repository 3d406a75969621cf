/*
 * stats.c — see stats.h.  The formulas follow numpy/pandas operation by
 * operation (two-pass variance, numpy's lerp) so results agree to the bit.
 */
#include "analysis/common/stats.h"

#include "model/radix.h"

#include <math.h>
#include <stdlib.h>

/* numpy.quantile(method="linear") on sorted v. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n) return v[n - 1];
    double t = pos - (double)lo, a = v[lo], b = v[lo + 1], d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
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
