/*
 * test_report_bins.c — rp_log_bin against the log formula that defines
 * the launch histograms' bins, on every edge, the doubles either side of
 * it, values between, and ranges narrow and wide.
 */
#include "report/report_bins.h"
#include "test.h"

#include <math.h>

/* Values whose formula result would not fit an int are not asked about
 * (the formula's conversion is undefined there; the report never has one:
 * its bins end at the largest value).                                    */
static bool fits(const rp_log_bins *b, double v)
{
    return v <= b->lo || RP_LOG_BINS * log(v / b->lo) / b->log_span < 1e9;
}

static size_t formula(const rp_log_bins *b, double v)
{
    int k = v <= b->lo ? 0 : (int)(RP_LOG_BINS * log(v / b->lo) / b->log_span);
    return (size_t)(k < 0 ? 0 : k >= RP_LOG_BINS ? RP_LOG_BINS - 1 : k);
}

static void check_range(double lo, double hi)
{
    rp_log_bins b;
    rp_log_bins_init(&b, lo, hi);
    CHECK_NEAR(b.edges[0], lo, 0);
    CHECK_NEAR(b.edges[RP_LOG_BINS], hi, hi * 1e-12);
    for (int k = 0; k <= RP_LOG_BINS; k++) {
        double e = b.edges[k];
        const double at[] = { e, nextafter(e, 0), nextafter(e, INFINITY), e * (1 + 1e-7), e * (1 - 1e-7),
                              e * 1.3, e * 0.7, e * 1e3 };
        for (size_t i = 0; i < sizeof at / sizeof *at; i++)
            if (fits(&b, at[i])) CHECK_INT(rp_log_bin(&b, at[i]), formula(&b, at[i]));
    }
    for (double v = lo / 4; v < hi * 4; v *= 1.0137)
        if (fits(&b, v)) CHECK_INT(rp_log_bin(&b, v), formula(&b, v));
    CHECK_INT(rp_log_bin(&b, -1), 0);
}

TEST(report_log_bins_match_the_log_formula)
{
    check_range(1, 1e4);
    check_range(0.001, 2.5e6);
    check_range(3, 30);
    check_range(1, 1 + 1e-9);
    check_range(1e-150, 1e150);
}

TEST(report_log_bins_middles)
{
    rp_log_bins b;
    rp_log_bins_init(&b, 1, 1e6); /* a quarter of a decade per bin */
    CHECK_INT(rp_log_bin(&b, 1.5), 0);
    CHECK_INT(rp_log_bin(&b, 2), 1);
    CHECK_INT(rp_log_bin(&b, 10.5), 4);
    CHECK_INT(rp_log_bin(&b, 5e5), 22);
    CHECK_INT(rp_log_bin(&b, 9.9e5), 23);
    CHECK_INT(rp_log_bin(&b, 1e9), 23);
}
