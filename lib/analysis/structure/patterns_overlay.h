/*
 * patterns_overlay.h — DIR/overlaid_<file> for `kineta patterns` (A4.8
 * step 6): the top patterns marked in args, other GPU events' names
 * compressed to ids, the dictionary on the "PyTorch Profiler" span, as a
 * kt_overlay written by the writer handed in.
 */
#ifndef KT_PATTERNS_OVERLAY_H
#define KT_PATTERNS_OVERLAY_H

#include "analysis/structure/pattern_set.h"
#include "table/overlay.h"

typedef struct kt_overlay_result {
    int64_t marked;   /* events that got args.Patterns            */
    int64_t renamed;  /* GPU events whose name became an id       */
    int64_t unmarkable; /* pattern events without an args object in the
                           file (Kineto always writes one): not marked */
    uint64_t bytes;   /* JSON bytes written                        */
} kt_overlay_result;

/* top[0..ntop): pattern indices of s to mark, in table order; labels[i]
 * their pattern strings.                                                 */
kt_status kt_write_patterns_overlay(const kt_trace *t, const kt_rank *r, const kt_pattern_set *s,
                                    const uint32_t *top, const char *const *labels, size_t ntop,
                                    const char *out_path, bool keep_names, kt_overlay_write_fn write,
                                    kt_overlay_result *res, char *err, size_t errlen);

/* kt_patterns (kineta.h), the overlays written by write: the analysis
 * lies below output/, so kt_patterns, defined above both, hands output's
 * writer in (NULL: no overlay may be asked for).                         */
kt_status kt_patterns_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_patterns_options *opt,
                              kt_overlay_write_fn write, kt_tables **out, kt_diags **diags);

#endif
