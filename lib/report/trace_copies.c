/*
 * trace_copies.c — the entry points (kineta.h) of the analyses that write
 * a copy of each rank's trace: `counters` and `memory` (counter tracks),
 * `patterns` and `critical-path` (overlays).  The analyses lie below
 * output/ and only say what to mark (table/overlay.h); output/'s one
 * writer of trace copies writes it; this file, above both, hands the
 * writer to the analysis.
 */
#include "analysis/launch/counters.h"
#include "analysis/memory/memory.h"
#include "analysis/structure/critical_path_overlay.h"
#include "analysis/structure/patterns_overlay.h"
#include "output/overlay_write.h"

kt_status kt_counters(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt, kt_tables **out,
                      kt_diags **diags)
{
    return kt_counters_writing(t, sel, opt, kt_write_overlay, out, diags);
}

kt_status kt_memory(const kt_trace *t, const kt_rank_sel *sel, const kt_memory_options *opt, kt_tables **out,
                    kt_diags **diags)
{
    return kt_memory_keeping(t, sel, opt, kt_write_overlay, NULL, NULL, out, diags);
}

kt_status kt_patterns(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *opt, kt_tables **out,
                      kt_diags **diags)
{
    return kt_patterns_writing(t, sel, opt, kt_write_overlay, out, diags);
}

kt_status kt_critical_path(const kt_trace *t, const kt_rank_sel *sel, const kt_critical_path_options *opt,
                           kt_tables **out, kt_diags **diags)
{
    return kt_critical_path_writing(t, sel, opt, kt_write_overlay, out, diags);
}
