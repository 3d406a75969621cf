/*
 * critical_path_overlay.h — the critical path drawn over the rank's own
 * trace (spec A4.11 step 5, HTA's overlay_critical_path_analysis): events
 * on the path get args.critical = 1 and the path's dependency, launch and
 * sync edges become flow arrows (cat "critical_path") for Perfetto.
 */
#ifndef KT_CRITICAL_PATH_OVERLAY_H
#define KT_CRITICAL_PATH_OVERLAY_H

#include "analysis/structure/critical_path_longest.h"
#include "table/overlay.h"

typedef struct cp_overlay_request {
    const kt_trace *t;
    const kt_rank *r;
    const cp_graph *g;
    const cp_path *path;
    const char *out_dir;
    bool only_critical;
    bool all_edges;      /* an arrow per graph edge (not with only_critical) */
    bool tag_rank;       /* another rank's input has the same file name */
} cp_overlay_request;

typedef struct cp_overlay_result {
    char *output;        /* path written (malloc'ed) */
    size_t marked;       /* events given args.critical */
    size_t arrows;       /* flow arrows (s/f pairs) */
} cp_overlay_result;

/* Writes out_dir/overlaid_critical_path_<input file name> with write (with tag_rank
 * overlaid_critical_path_rank<R>_<name>, so rank directories of files with
 * one name do not overwrite each other); refuses to write into the input's
 * own directory.  KT_EUSAGE / KT_EINPUT /
 * KT_EANALYSIS with why in err.                                          */
kt_status cp_write_overlay(const cp_overlay_request *rq, kt_overlay_write_fn write, cp_overlay_result *res,
                           char *err, size_t errlen);

/* kt_critical_path (kineta.h), the overlays written by write: the
 * analysis lies below output/, so kt_critical_path, defined above both,
 * hands output's writer in (NULL: no overlay may be asked for).          */
kt_status kt_critical_path_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_critical_path_options *opt,
                                   kt_overlay_write_fn write, kt_tables **out, kt_diags **diags);

#endif
