/*
 * hta_nesting.h — the parents HTA's CallStackGraph gives a thread's events
 * (trace_call_stack.py), for --hta-compat.
 *
 * HTA melts the thread's events into open and close endpoints (opens in
 * row order, then closes), sorts them by time with pandas (numpy
 * quicksort), then with sorted(cmp_to_key(...)) and its endpoint
 * comparator, and walks them with a stack: an open takes the top as
 * parent and is pushed, a close pops whatever is on top.  The comparator
 * is not a total order (a zero-length event at the instant one event ends
 * and another starts: close < open < zero-length < close), so the nesting
 * depends on the sorts' exact comparisons; common/np_sort and
 * common/py_sort replay them.  Negative durations count as 0 (HTA raises
 * "Unexpected case").
 */
#ifndef KT_HTA_NESTING_H
#define KT_HTA_NESTING_H

#include "analysis/structure/op_tree.h"

/* Sets tr->parent for the nodes (grouped by thread) the HTA way. */
bool kt_hta_link_parents(kt_op_tree *tr);

#endif
