/*
 * compare.h — the diff's maps and reduces, one pair per table family.
 *
 * Each table is a per-run map (one run's selected events → compact totals
 * keyed by strings, which compare across the two runs' string tables) and
 * a reduce that merges the control's and the test's totals into rows, so
 * that the maps can later run in separate processes.
 */
#ifndef KT_COMPARE_H
#define KT_COMPARE_H

#include "diff_side.h"
#include "key_totals.h"

/* ops (HTA compare_traces): count and time per name (HTA's short name
 * with short_names) of the selected events of the device.                */
kt_status kt_diff_op_totals(const kt_diff_side *s, kt_diff_device device, bool short_names,
                            kt_key_totals *out);
/* Tables "ops" and "ops_diff" from both runs' totals. */
kt_status kt_diff_ops_tables(const kt_key_totals *control, const kt_key_totals *test, const char *clabel,
                             const char *tlabel, bool short_names, kt_table **ops, kt_table **ops_diff);

/* side_by_side: GPU work (kernels, copies, sets) per kernel name (HTA's
 * short name with short_names), kernel category or launching op.         */
kt_status kt_diff_gpu_totals(const kt_diff_side *s, kt_diff_key by, const kt_categorizer *cat, bool short_names,
                             kt_key_totals *out);
kt_table *kt_diff_side_by_side(const kt_key_totals *control, const kt_key_totals *test, const char *clabel,
                               const char *tlabel, kt_diff_key by);

#endif
