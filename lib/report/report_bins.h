/*
 * report_bins.h — log-spaced histogram bins for the report's launch
 * histograms: which bin a value falls in, exactly as the log formula
 * that defines the bins says, without a log per value.
 */
#ifndef KT_REPORT_BINS_H
#define KT_REPORT_BINS_H

#include <stddef.h>

#define RP_LOG_BINS 24

typedef struct rp_log_bins {
    double edges[RP_LOG_BINS + 1]; /* lo * (hi / lo)^(b / RP_LOG_BINS) */
    double lo, log_span;           /* log(hi / lo) */
    double bins_per_log2;
} rp_log_bins;

/* Bins from lo to hi (0 < lo < hi). */
void rp_log_bins_init(rp_log_bins *b, double lo, double hi);
/* The bin of v (not NaN): 0 at or below lo, else
 * (int)(RP_LOG_BINS * log(v / lo) / log_span) kept in [0, RP_LOG_BINS).  */
size_t rp_log_bin(const rp_log_bins *b, double v);

#endif
