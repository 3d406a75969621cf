/*
 * kernel_partial.h — kernels of one or more ranks as a mergeable partial.
 *
 * The kernels table aggregates a kernel over every rank (count, total,
 * median, std).  To analyse ranks one at a time (--stream-ranks, MPI) each
 * rank maps to groups keyed by strings (string ids differ between ranks
 * loaded separately) holding the rank's durations sorted and run-length
 * coded; merging partials in rank order and computing the statistics from
 * the merged sorted durations gives exactly what one pass over every rank
 * gives.  kt_kernels() itself maps each rank and merges, so the in-memory
 * and streamed paths are one code (docs/scaling.md).
 */
#ifndef KT_KERNEL_PARTIAL_H
#define KT_KERNEL_PARTIAL_H

#include "analysis/common/dur_runs.h"
#include "analysis/kernels/kernel_stats.h"
#include "kineta.h"
#include "model/model.h"

#define KT_KP_MIXED UINT32_MAX /* a group's kernels differ in category/type */

typedef struct kt_kgroup {
    uint32_t key;            /* string id in the partial's strs            */
    uint32_t kind;           /* tells equal keys apart (launcher kinds)    */
    uint32_t category, type; /* string ids, or KT_KP_MIXED                 */
    kt_dur_run *runs;        /* sorted by dur once kt_kpartial_sort ran    */
    size_t nruns, cap;
} kt_kgroup;

typedef struct kt_kpartial {
    kt_strtab *strs;
    kt_group_map index;      /* kind << 32 | key → group                   */
    kt_kgroup *g;            /* in order of first sight                    */
    size_t n, cap;
    int64_t wall_ns;         /* GPU wall time summed over ranks            */
    uint64_t unlinked, graph, nranks;
} kt_kpartial;

bool kt_kpartial_init(kt_kpartial *p);
void kt_kpartial_free(kt_kpartial *p);
/* Adds runs under (key, kind): a new group at the end on first sight, else
 * appended to it; category or type NULL, or differing from the group's,
 * make it mixed.  False on allocation failure.                           */
bool kt_kpartial_add(kt_kpartial *p, const char *key, uint32_t kind, const char *category, const char *type,
                     const kt_dur_run *runs, size_t nruns);
/* Sorts every group's runs by duration, equal durations coalesced. */
void kt_kpartial_sort(kt_kpartial *p);
/* Statistics of every group (after kt_kpartial_sort), computed from its
 * sorted durations as kt_group_stats computes them; NULL on failure.     */
kt_dur_stats *kt_kpartial_stats(const kt_kpartial *p);

/* The partial as tables (after kt_kpartial_sort; what travels between
 * processes), and tables merged back into a partial (KT_EINPUT when they
 * are not a kernels partial).                                            */
kt_status kt_kpartial_to_tables(const kt_kpartial *p, kt_tables **out);
kt_status kt_kpartial_add_tables(kt_kpartial *p, const kt_tables *ts);

#endif
