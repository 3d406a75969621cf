/*
 * tree_align.h — aligning two sequences of sibling names.
 *
 * Merging two call trees means deciding, under each matched parent, which
 * child of the control run is which child of the test run.  Children keep
 * their order in time, so the alignment is the edit distance's
 * (Wagner–Fischer, as TraceLens's TraceDiff) with equal names as the only
 * matches; children it leaves over whose names are equal are matched as
 * well (the order changed, the op did not), and the rest are reported as
 * one run's own at this lowest common ancestor.
 */
#ifndef KT_TREE_ALIGN_H
#define KT_TREE_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One step of an alignment: a (control index, test index) pair, either
 * side KT_ALIGN_GAP when the child is only in the other run.              */
#define KT_ALIGN_GAP UINT32_MAX
typedef struct kt_align_step {
    uint32_t a, b;
} kt_align_step;

/* Aligns a[0..na) with b[0..nb) (names as ids); out has room for na + nb
 * steps; returns the step count, or (size_t)-1 when out of memory.  Above
 * max_cells DP cells the order is not searched: equal names are matched
 * and the rest follow.                                                    */
size_t kt_align_names(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, size_t max_cells,
                      kt_align_step *out);

#endif
