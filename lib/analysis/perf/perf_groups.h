/*
 * perf_groups.h — rows of the perf analysis grouped by a string key.
 *
 * Every perf table is a group-by: ops by name (ops_summary), by category,
 * by name and model parameters (the roofline sheets).  Ranks are mapped to
 * groups on their own (perf_rank.c) and the groups of all ranks are merged
 * by key (the reduce), so a group carries what it needs to be merged:
 * the per-call values (for medians and std), counts and sums, and the
 * details of its first call.
 */
#ifndef KT_PERF_GROUPS_H
#define KT_PERF_GROUPS_H

#include "analysis/perf/perf_models.h"

#include <stdint.h>

#define KT_PG_MAX_KERNELS 4   /* distinct kernel names kept per group */

typedef struct kt_pgroup {
    char *key;                /* name "\x1f" params ... (owned)          */
    uint32_t name;            /* strtab id of the op name                */
    int family;               /* kt_perf_family, -1 for plain op groups   */
    char *category;           /* TraceLens op category (owned; launchers) */
    /* first call: where it is, its model and the strings TraceLens shows */
    int rank;
    uint32_t first_ev;
    bool modelled;            /* the model evaluated (has_perf_model)    */
    kt_perf_eval eval;
    char *dims, *types, *strides, *concrete; /* Python reprs (owned): lists in
                                 the roofline sheets, tuples in the others */
    char *process_name, *process_label, *thread_name; /* (owned)           */
    /* per call: busy_us is the kernel busy time (subtree; a launcher's own
     * kernels for launcher groups), v2 a second value (unique args: subtree
     * busy time; unified: the op's CPU duration; short kernels: unused),
     * in call order: TraceLens's row order, which its sums, means and
     * stds depend on in the last digits                                   */
    double *busy_us, *v2;
    size_t n, cap;
    double direct_sum_us, subtree_sum_us;
    uint32_t kernels[KT_PG_MAX_KERNELS]; /* distinct kernel name ids      */
    int32_t stream;           /* kernel summary groups: the kernels' stream */
    size_t nkernels;
    /* TraceLens's kernel_details summary: the first call's GPU events
     * (name ids, streams) and, position by position, the durations (µs)
     * of every call with as many events (others are skipped, as TraceLens
     * does): kd_dur[call · kd_n + position].  Kept under --tracelens
     * only, which prints it (kt_perf_map_rank).                           */
    bool kd_set;
    uint32_t *kd_name;
    int32_t *kd_stream;
    size_t kd_n;
    double *kd_dur;
    size_t kd_calls, kd_cap;
} kt_pgroup;

typedef struct kt_pgroups {
    kt_pgroup *g;
    size_t n, cap;
    uint32_t *slot;           /* hash of keys → index, KT_NONE empty      */
    size_t mask;
} kt_pgroups;

/* The group of key (created empty, key copied, when new); NULL on OOM.
 * *created tells which.                                                  */
kt_pgroup *kt_pgroups_get(kt_pgroups *gs, const char *key, bool *created);
bool kt_pgroup_add_call(kt_pgroup *g, double busy_us, double v2);
void kt_pgroup_note_kernel(kt_pgroup *g, uint32_t name);
/* One call's GPU events for the kernel_details summary; false on OOM. */
bool kt_pgroup_add_kernels(kt_pgroup *g, const uint32_t *name, const int32_t *stream, const double *dur_us,
                           size_t n);
/* Fold src's groups into dst (src's calls after dst's); src is emptied.  */
bool kt_pgroups_merge(kt_pgroups *dst, kt_pgroups *src);
void kt_pgroups_free(kt_pgroups *gs);
/* The hash of s[0..n) the groups are found by (other memos use it too). */
uint64_t kt_pg_hash(const char *s, size_t n);

#endif
