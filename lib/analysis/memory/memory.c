/*
 * memory.c — `kineta memory`: device memory over time from the Kineto
 * "[memory]" instant events (profile_memory=True), which HTA drops when it
 * loads a trace: per device the allocated and reserved bytes after every
 * allocation and free, the peak and when it happened, which ops held the
 * memory at the peak, allocation counts; optionally a trace copy with the
 * totals as counter tracks.
 *
 * Events whose totals are negative (a damaged or hand-edited trace) are
 * counted in "devices".negative_totals and otherwise ignored: they never
 * make a peak, a series point or a counter.  Each rank is one map
 * (memory_events.c, peak_ops.c); the tables concatenate the ranks' rows.
 */
#include "analysis/common/copy_names.h"
#include "analysis/memory/memory.h"
#include "analysis/memory/memory_trace.h"
#include "analysis/memory/peak_ops.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_memory_options_init(kt_memory_options *o, size_t size)
{
    const kt_memory_options d = { .top = 10 };
    kt_options_init(o, size, &d, sizeof d);
}

typedef struct mem_tables {
    kt_table *devices, *series, *peak_ops, *files;
} mem_tables;

static kt_table *new_table(const char *name, const char *const *cols, const kt_col_type *types, size_t n)
{
    kt_table *tb = kt_table_new(name);
    for (size_t c = 0; tb && c < n; c++) kt_table_add_col(tb, cols[c], types[c], types[c] == KT_COL_FLOAT ? 3 : 0);
    return tb;
}

static bool make_tables(mem_tables *m, const kt_memory_options *o)
{
    static const char *const dcols[] = { "rank", "device", "allocations", "frees", "bytes_allocated",
                                         "peak_allocated", "peak_ts", "peak_reserved", "final_allocated",
                                         "negative_totals" };
    static const kt_col_type dtypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_INT,
                                          KT_COL_INT, KT_COL_FLOAT, KT_COL_INT, KT_COL_INT, KT_COL_INT };
    static const char *const scols[] = { "rank", "device", "ts", "allocated", "reserved" };
    static const kt_col_type stypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_FLOAT, KT_COL_INT, KT_COL_INT };
    static const char *const pcols[] = { "rank", "device", "op", "bytes_held", "allocations", "pct_of_peak" };
    static const kt_col_type ptypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT, KT_COL_FLOAT };
    static const char *const fcols[] = { "rank", "input", "output", "counter_events", "bytes" };
    static const kt_col_type ftypes[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT };
    m->devices = new_table("devices", dcols, dtypes, 10);
    m->series = o->no_series ? NULL : new_table("series", scols, stypes, 5);
    m->peak_ops = new_table("peak_ops", pcols, ptypes, 6);
    m->files = o->out_dir ? new_table("files", fcols, ftypes, 5) : NULL;
    return m->devices && (o->no_series || m->series) && m->peak_ops && (!o->out_dir || m->files);
}

/* The time of the latest device peak (INT64_MIN without one). */
static int64_t latest_peak(const kt_mem_rank *m, const size_t *peak)
{
    int64_t ts = INT64_MIN;
    for (size_t i = 0; i < m->ndev; i++)
        if (peak[i] != SIZE_MAX && m->dev[i].e[peak[i]].ts > ts) ts = m->dev[i].e[peak[i]].ts;
    return ts;
}

/* The device's row; returns its peak: the first event with the largest
 * allocated total, or SIZE_MAX (found in the same pass).                 */
static size_t device_row(const kt_trace *t, int rank, const kt_mem_device *d, kt_table *tb)
{
    int64_t allocs = 0, frees = 0, bytes = 0, peak_res = -1, bad = 0, final = -1;
    size_t peak = SIZE_MAX;
    for (size_t i = 0; i < d->n; i++) {
        const kt_mem_event *e = &d->e[i];
        allocs += e->bytes > 0;
        frees += e->bytes < 0;
        bytes += e->bytes > 0 ? e->bytes : 0;
        if (!kt_mem_event_valid(e)) { bad++; continue; }
        if (peak == SIZE_MAX || e->allocated > d->e[peak].allocated) peak = i;
        if (e->reserved > peak_res) peak_res = e->reserved;
        final = e->allocated;
    }
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, rank);
    kt_table_set_str(tb, 1, d->label);
    kt_table_set_int(tb, 2, allocs);
    kt_table_set_int(tb, 3, frees);
    kt_table_set_int(tb, 4, bytes);
    if (peak != SIZE_MAX) {
        kt_table_set_int(tb, 5, d->e[peak].allocated);
        kt_table_set_float(tb, 6, (double)(d->e[peak].ts - t->min_ts) / 1e3);
        kt_table_set_int(tb, 7, peak_res);
        kt_table_set_int(tb, 8, final);
    }
    kt_table_set_int(tb, 9, bad);
    return peak;
}

static void series_rows(const kt_trace *t, int rank, const kt_mem_device *d, kt_table *tb)
{
    kt_table_reserve(tb, kt_table_nrows(tb) + d->n); /* rows not grown (and copied) one doubling at a time */
    size_t first = kt_table_nrows(tb); /* the device's first row: its label, which the others share */
    for (size_t i = 0; i < d->n; i++) {
        const kt_mem_event *e = &d->e[i];
        if (!kt_mem_event_valid(e)) continue;
        kt_row row = kt_table_row(tb);
        kt_row_int(row, 0, rank);
        if (kt_table_nrows(tb) - 1 == first) kt_row_str(tb, row, 1, d->label);
        else kt_row_str_of(tb, row, 1, first);
        kt_row_float(row, 2, (double)(e->ts - t->min_ts) / 1e3);
        kt_row_int(row, 3, e->allocated);
        kt_row_int(row, 4, e->reserved);
    }
}

static void peak_row(kt_table *tb, int rank, const char *device, const char *op, int64_t bytes, int64_t allocs,
                     int64_t at_peak)
{
    kt_table_add_row(tb);
    kt_table_set_int(tb, 0, rank);
    kt_table_set_str(tb, 1, device);
    kt_table_set_str(tb, 2, op);
    kt_table_set_int(tb, 3, bytes);
    kt_table_set_int(tb, 4, allocs);
    kt_table_set_float(tb, 5, at_peak > 0 ? 100.0 * (double)bytes / (double)at_peak : 0);
}

static kt_status peak_rows(const kt_trace *t, const kt_rank *r, const kt_thread_ops *thread_ops,
                           const kt_mem_device *d, size_t peak, size_t top, kt_table *tb)
{
    kt_peak_op *ops;
    size_t n;
    kt_status s = kt_peak_ops(r, thread_ops, d, peak, &ops, &n);
    int64_t live = 0, at_peak = d->e[peak].allocated;
    for (size_t i = 0; s == KT_OK && i < n; i++) {
        live += ops[i].bytes;
        if (!top || i < top)
            peak_row(tb, r->rank, d->label, ops[i].op == KT_NONE ? "(no op)" : kt_strtab_get(t->strs, ops[i].op),
                     ops[i].bytes, (int64_t)ops[i].allocations, at_peak);
    }
    /* memory allocated before profiling started has no event of its own */
    if (s == KT_OK && at_peak > live) peak_row(tb, r->rank, d->label, "(allocated before the trace)", at_peak - live, 0,
                                              at_peak);
    free(ops);
    return s;
}

static kt_status write_copy(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r, const kt_mem_rank *m,
                            const kt_memory_options *o, kt_overlay_write_fn write, kt_table *files, kt_diags **diags)
{
    char path[4096], err[512] = "";
    uint64_t events = 0, bytes = 0;
    int tag = kt_file_name_shared(t, sel, r) ? r->rank : -1;
    kt_status s = kt_memory_trace_write(t, r, m, o->out_dir, tag, write, path, sizeof path, &events, &bytes, err,
                                        sizeof err);
    if (s != KT_OK) {
        kt_diags_fail(diags, r->file, "%s", err);
        return s;
    }
    kt_table_add_row(files);
    kt_table_set_int(files, 0, r->rank);
    kt_table_set_str(files, 1, r->file);
    kt_table_set_str(files, 2, path);
    kt_table_set_int(files, 3, (int64_t)events);
    kt_table_set_int(files, 4, (int64_t)bytes);
    return KT_OK;
}

static kt_status one_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r, const kt_memory_options *o,
                          kt_overlay_write_fn write, mem_tables *tb, kt_memory_keep keep, void *ctx,
                          kt_diags **diags)
{
    kt_mem_rank m;
    kt_status s = kt_mem_rank_collect(t, r, &m);
    size_t *peaks = s == KT_OK ? malloc((m.ndev + 1) * sizeof *peaks) : NULL;
    if (s == KT_OK && !peaks) s = KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < m.ndev; i++) {
        peaks[i] = device_row(t, r->rank, &m.dev[i], tb->devices);
        if (tb->series) series_rows(t, r->rank, &m.dev[i], tb->series);
    }
    int64_t latest = s == KT_OK ? latest_peak(&m, peaks) : INT64_MIN;
    kt_thread_ops *ops = NULL; /* built for the first device with a peak */
    for (size_t i = 0; s == KT_OK && i < m.ndev; i++) {
        if (peaks[i] == SIZE_MAX) continue;
        if (!ops && !(ops = kt_thread_ops_new(r, latest))) s = KT_ENOMEM;
        if (s == KT_OK) s = peak_rows(t, r, ops, &m.dev[i], peaks[i], o->top, tb->peak_ops);
    }
    free(peaks);
    kt_thread_ops_free(ops);
    if (s == KT_OK && o->out_dir) s = write_copy(t, sel, r, &m, o, write, tb->files, diags);
    if (s != KT_OK || !keep || !keep(ctx, r, &m)) kt_mem_rank_free(&m);
    return s;
}

kt_status kt_memory_keeping(const kt_trace *t, const kt_rank_sel *sel, const kt_memory_options *opt,
                            kt_overlay_write_fn write, kt_memory_keep keep, void *ctx, kt_tables **out,
                            kt_diags **diags)
{
    kt_memory_options o = kt_memory_defaults();
    mem_tables tb = { 0 };
    *out = NULL;
    kt_diags_begin(diags);
    if (!kt_options_take(&o, sizeof o, opt) || (o.out_dir && !write)) return KT_EUSAGE;
    kt_status s = make_tables(&tb, &o) ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = one_rank(t, sel, t->ranks[i], &o, write, &tb, keep, ctx, diags);
    kt_table *all[4];
    size_t n = 0;
    all[n++] = tb.devices;
    if (!o.no_series) all[n++] = tb.series;
    all[n++] = tb.peak_ops;
    if (o.out_dir) all[n++] = tb.files;
    if (s != KT_OK) {
        for (size_t i = 0; i < n; i++) kt_table_free(all[i]);
        return s;
    }
    return kt_tables_from(all, n, out);
}
