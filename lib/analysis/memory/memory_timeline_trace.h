/*
 * memory_timeline_trace.h — a memory timeline (the "timeline" table of
 * kt_memory_timeline_file) as a Chrome trace of counter events, one track
 * with a series per memory category, for Perfetto.
 *
 * The timeline file is not a trace, so unlike `kineta counters` there is
 * nothing to copy: the trace is written from the table.
 */
#ifndef KT_MEMORY_TIMELINE_TRACE_H
#define KT_MEMORY_TIMELINE_TRACE_H

#include "model/model.h"

/* Writes <out_dir>/<input name without .gz>_counters.json; *out gets its
 * path, *events the counter events, *bytes the file size.  KT_EUSAGE when
 * it would be the input itself, KT_EANALYSIS when it cannot be written
 * (err says why; a partial file is removed).                             */
kt_status kt_mem_timeline_write(const kt_table *timeline, const char *in_path, const char *out_dir, char *out,
                                size_t cap, uint64_t *events, uint64_t *bytes, char *err, size_t errlen);

#endif
