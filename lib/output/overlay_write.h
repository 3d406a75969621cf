/*
 * overlay_write.h — an analysis's kt_overlay (table/overlay.h) written
 * as a copy of its rank's trace file, through the one writer of trace
 * copies (trace_edit.h): the edits applied in file order, the arrows and
 * counter samples formatted as the events appended to traceEvents.
 */
#ifndef KT_OVERLAY_WRITE_H
#define KT_OVERLAY_WRITE_H

#include "table/overlay.h"

/* A kt_overlay_write_fn: r's file with o applied, written to out_path
 * (gzip iff the input is).  KT_EUSAGE when out_path is the input;
 * KT_EINPUT when the input cannot be read or no longer matches the
 * loader's offsets; KT_EANALYSIS when the copy cannot be written (err
 * says why; nothing is left at out_path that was not there before).     */
kt_status kt_write_overlay(const kt_trace *t, const kt_rank *r, const kt_overlay *o, const char *out_path,
                           kt_overlay_written *res, char *err, size_t errlen);

#endif
