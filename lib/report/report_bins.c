/*
 * report_bins.c — see report_bins.h.  A log per value was a third of the
 * launch section's instructions: the edges around a value, found from a
 * rough guess, give its bin wherever rounding cannot matter, and the log
 * formula decides the values near an edge.
 */
#include "report/report_bins.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void rp_log_bins_init(rp_log_bins *b, double lo, double hi)
{
    for (int k = 0; k <= RP_LOG_BINS; k++) b->edges[k] = lo * pow(hi / lo, (double)k / RP_LOG_BINS);
    b->lo = lo;
    b->log_span = log(hi / lo);
    b->bins_per_log2 = RP_LOG_BINS / log2(hi / lo);
}

/* The formula that defines the bins. */
static size_t exact_bin(const rp_log_bins *b, double v)
{
    int k = v <= b->lo ? 0 : (int)(RP_LOG_BINS * log(v / b->lo) / b->log_span);
    return (size_t)(k < 0 ? 0 : k >= RP_LOG_BINS ? RP_LOG_BINS - 1 : k);
}

/* log2(x) for a finite x > 1 to within 0.1: the exponent, and a line
 * through the mantissa.  Only a first guess at a bin.                     */
static double rough_log2(double x)
{
    uint64_t bits, mant;
    double m;
    memcpy(&bits, &x, sizeof bits);
    mant = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1023 << 52);
    memcpy(&m, &mant, sizeof m);
    return (double)((int)((bits >> 52) & 0x7ff) - 1023) + (m - 1);
}

/* Away from every edge by more than a millionth of v (rounding moves the
 * formula's result by some 1e-15 of a bin), the last edge <= v is the
 * formula's bin.                                                          */
size_t rp_log_bin(const rp_log_bins *b, double v)
{
    if (v <= b->lo || !isfinite(v)) return exact_bin(b, v);
    double guess = rough_log2(v / b->lo) * b->bins_per_log2;
    size_t k = guess < 0 ? 0 : guess > RP_LOG_BINS ? RP_LOG_BINS : (size_t)guess;
    while (k > 0 && b->edges[k] > v) k--;
    while (k < RP_LOG_BINS && b->edges[k + 1] <= v) k++;
    double margin = 1e-6 * v;
    if (v - b->edges[k] <= margin || (k < RP_LOG_BINS && b->edges[k + 1] - v <= margin)) return exact_bin(b, v);
    return k < RP_LOG_BINS ? k : exact_bin(b, v); /* past the last edge: whatever the formula says */
}
