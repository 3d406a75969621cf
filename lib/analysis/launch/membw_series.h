/*
 * membw_series.h — memory bandwidth over time per memcpy/memset kind
 * (spec A4.7): the sum of the bandwidths of the copies running at each
 * instant, one series per kind ("Memcpy HtoD", "Memset", ...).
 *
 * `kineta memcpy-bw` summarizes it and `kineta counters` writes it into a
 * trace copy, so both take it from here.
 */
#ifndef KT_MEMBW_SERIES_H
#define KT_MEMBW_SERIES_H

#include "analysis/common/step_series.h"
#include "model/index.h"

typedef struct kt_bw_series {
    /* key = index into kinds, value = GB/s, tid unused; grouped by kind
     * (kinds in name order), then device (default only), time order     */
    kt_step_point *p;
    size_t n;
    char (*kinds)[16]; /* kt_memory_kernel_type names, sorted */
    size_t nkinds;
} kt_bw_series;

/* Default: every memcpy/memset event, bandwidth from Kineto's arg or else
 * bytes/duration (AMD traces have no bandwidth arg; the bytes may be on
 * the launching call), series per (kind, device) as true step functions
 * (one point per timestamp, none repeating the previous value), exactly 0
 * when no copy runs.  hta_compat: HTA's rows (memory kernel
 * names on a stream, 0-length copies lengthened to 1 µs, missing bandwidth
 * = 0) in its exact row sequence and float sums.                          */
kt_status kt_membw_series(const kt_rank *r, const kt_strtab *strs, bool hta_compat,
                          kt_bw_series *out);
void kt_bw_series_free(kt_bw_series *s);

#endif
