/*
 * kernel_details.h — TraceLens's kernel_details summary columns.
 *
 * TraceLens summarizes the GPU events of a row's calls position by position
 * (the first call's list is the template; calls with another count are
 * skipped) and prints the result as the Python repr of a list of dicts with
 * numpy scalars: name, stream, count, total/mean/median/std/min/max µs
 * ("kernel_details_summary", "kernel_details__summarize_kernel_stats"), and
 * a short form with the name cut at 64 characters and the mean rounded to
 * 2 decimals ("trunc_kernel_details").  The statistics are numpy's — its
 * pairwise sum, population std — so the text matches TraceLens's.
 */
#ifndef KT_KERNEL_DETAILS_H
#define KT_KERNEL_DETAILS_H

#include "analysis/perf/perf_groups.h"
#include "model/model.h"

/* The repr for g (trunc: the short form); malloc'd, NULL on OOM. */
char *kt_kernel_details_repr(const kt_strtab *strs, const kt_pgroup *g, bool trunc);

#endif
