/*
 * call_tree_diff.h — the two runs' call trees merged (TraceLens's idea).
 *
 * HTA's op table says which names changed, not where: when a port to
 * another vendor lowers aten::convolution to other ops and kernels, a flat
 * diff shows one op deleted and another added.  Merging the trees shows
 * the common parent with both runs' GPU time under it.
 */
#ifndef KT_CALL_TREE_DIFF_H
#define KT_CALL_TREE_DIFF_H

#include "diff_side.h"

/* Tables "tree" and "kernels" (kineta.h, kt_diff). */
kt_status kt_diff_call_trees(const kt_diff_side *control, const kt_diff_side *test, kt_table **tree,
                             kt_table **kernels);

#endif
