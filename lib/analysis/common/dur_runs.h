/*
 * dur_runs.h — a multiset of int64 durations (ns) as sorted runs of equal
 * values: the compact, exact form in which per-rank samples (kernel
 * durations, stream gaps) travel from the map to the reduce, where the
 * runs of every rank merge back into the one sorted multiset a single pass
 * would have seen (medians, histograms exact).
 */
#ifndef KT_DUR_RUNS_H
#define KT_DUR_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* n values equal to dur. */
typedef struct kt_dur_run {
    int64_t dur;
    uint64_t n;
} kt_dur_run;

/* Run-length codes d[0..n) into *runs (malloc'd), ascending; d may be left
 * sorted or as it was.                                                    */
bool kt_dur_runs(int64_t *d, size_t n, kt_dur_run **runs, size_t *nruns);
/* Sorts runs[0..*n) by value, equal values coalesced (*n shrinks). */
void kt_dur_runs_sort(kt_dur_run *runs, size_t *n);

#endif
