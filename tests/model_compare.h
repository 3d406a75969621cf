/*
 * model_compare.h — two loads of the same events agree column by column.
 *
 * Used where one input is loaded two ways (sequential vs split ranges,
 * Kineto fast path vs the general member loop).  String ids depend on the
 * order of interning, so strings are compared by content.
 */
#ifndef KT_MODEL_COMPARE_H
#define KT_MODEL_COMPARE_H

#include "model/model.h"

#include <stdbool.h>

/* CHECKs that rank 0 of a and b hold the same events, args, counts and
 * reports.  same_offsets: the two inputs have the same bytes, so byte
 * offsets (raw args ranges, report offsets) must agree too; otherwise
 * only the report count and the args' lengths are compared.              */
void kt_check_same_model(const kt_trace *a, const kt_trace *b, bool same_offsets);

/* CHECKs that two event summaries agree field by field. */
void kt_check_same_summary(const kt_event_summary *x, const kt_event_summary *y);
/* CHECKs that the summary each rank of t was loaded with is the one a scan
 * of its events gives (kt_summary_scan).                                  */
void kt_check_summary_rescanned(const kt_trace *t);

#endif
