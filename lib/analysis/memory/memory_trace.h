/*
 * memory_trace.h — a copy of a rank's trace file with the memory totals
 * as Chrome counter tracks ("Memory <device>": Allocated, Reserved), so
 * memory can be seen next to the ops and kernels in Perfetto.
 */
#ifndef KT_MEMORY_TRACE_H
#define KT_MEMORY_TRACE_H

#include "analysis/memory/memory_events.h"
#include "table/overlay.h"

/* Writes <out_dir>/<name>_with_memory.json[.gz] with write (tag >= 0:
 * _rank<tag> is added, for ranks whose files share a name); *path gets
 * the output path (cap bytes), *events the counter events written,
 * *bytes the JSON bytes.                                                 */
kt_status kt_memory_trace_write(const kt_trace *t, const kt_rank *r, const kt_mem_rank *m, const char *out_dir,
                                int tag, kt_overlay_write_fn write, char *path, size_t cap, uint64_t *events,
                                uint64_t *bytes, char *err, size_t errlen);

#endif
