/*
 * memory_trace.c — see memory_trace.h.  The totals become a kt_overlay's
 * counter samples, one track per device; the writer handed in copies the
 * trace with them appended, as `kineta counters` does its own.
 */
#include "analysis/common/copy_names.h"
#include "analysis/memory/memory_trace.h"

#include <stdio.h>
#include <string.h>

/* "Memory <device>": Allocated, Reserved at each event with valid totals. */
static void add_samples(kt_overlay *ov, const kt_rank *r, const kt_mem_rank *m)
{
    for (size_t d = 0; d < m->ndev && !ov->failed; d++) {
        const kt_mem_device *dev = &m->dev[d];
        char name[64];
        int n = snprintf(name, sizeof name, "Memory %s", dev->label);
        uint32_t track = kt_overlay_add_track(ov, name, (size_t)n,
                                              (kt_counter_track){ .keys = { "Allocated", "Reserved" }, .ts_decimals = true });
        for (size_t i = 0; i < dev->n && !ov->failed; i++) {
            const kt_mem_event *e = &dev->e[i];
            if (!kt_mem_event_valid(e)) continue; /* bad totals: not plotted */
            kt_counter_sample *x = kt_overlay_add_sample(ov);
            if (x)
                *x = (kt_counter_sample){ .ts = e->ts, .pid = kt_event_pid(r, e->ev), .v = { { .i = e->allocated }, { .i = e->reserved } },
                                          .track = track };
        }
    }
}

kt_status kt_memory_trace_write(const kt_trace *t, const kt_rank *r, const kt_mem_rank *m, const char *out_dir,
                                int tag, kt_overlay_write_fn write, char *path, size_t cap, uint64_t *events,
                                uint64_t *bytes, char *err, size_t errlen)
{
    *events = *bytes = 0;
    if (!kt_copy_path(out_dir, r->file, "_with_memory", tag, path, cap)) return KT_EUSAGE;
    kt_overlay ov = { 0 };
    add_samples(&ov, r, m);
    kt_overlay_written done = { 0 };
    kt_status s = ov.failed ? KT_ENOMEM : write(t, r, &ov, path, &done, err, errlen);
    *events = ov.nsamples;
    *bytes = done.json_bytes;
    kt_overlay_free(&ov);
    return s;
}
