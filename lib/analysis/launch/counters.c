/*
 * counters.c — `kineta counters`: each rank's trace file again, with the
 * queue-length and memcpy-bandwidth series as Chrome counter tracks so
 * they can be seen next to the kernels in Perfetto (HTA
 * generate_trace_with_counters, spec A4.7; event format as HTA's).  The
 * series become a kt_overlay's counter samples; the writer handed in
 * writes the copy.
 */
#include "analysis/common/copy_names.h"
#include "analysis/launch/counters.h"
#include "analysis/launch/membw_series.h"
#include "analysis/launch/queue_series.h"
#include "table/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counter tracks: queue length per stream (id: the stream), then the
 * bandwidth of each copy kind.                                           */
static void add_samples(kt_overlay *ov, const kt_rank *r, const kt_step_point *q, size_t nq, const kt_bw_series *bw)
{
    static const char queue[] = "Queue Length";
    uint32_t qt = kt_overlay_add_track(ov, queue, sizeof queue - 1,
                                       (kt_counter_track){ .keys = { queue }, .with_id = true });
    uint32_t bt0 = (uint32_t)ov->ntracks;
    for (size_t k = 0; k < bw->nkinds; k++)
        kt_overlay_add_track(ov, bw->kinds[k], strlen(bw->kinds[k]),
                             (kt_counter_track){ .keys = { "Memcpy BW" }, .floats = true });
    kt_overlay_reserve_samples(ov, nq + bw->n);
    for (size_t i = 0; i < nq && !ov->failed; i++) {
        kt_counter_sample *x = kt_overlay_add_sample(ov);
        *x = (kt_counter_sample){ .ts = q[i].ts, .pid = kt_step_pid(r, &q[i]), .id = q[i].key,
                                  .v[0].i = (int64_t)q[i].value, .track = qt };
    }
    for (size_t i = 0; i < bw->n && !ov->failed; i++) {
        kt_counter_sample *x = kt_overlay_add_sample(ov);
        *x = (kt_counter_sample){ .ts = bw->p[i].ts, .pid = kt_step_pid(r, &bw->p[i]), .v[0].f = bw->p[i].value,
                                  .track = bt0 + (uint32_t)bw->p[i].key };
    }
}

static kt_table *files_table(void)
{
    static const char *const cols[] = { "rank", "input", "output", "counter_events", "uncompressed_bytes" };
    static const kt_col_type types[] = { KT_COL_INT, KT_COL_STR, KT_COL_STR, KT_COL_INT, KT_COL_INT };
    kt_table *t = kt_table_new("files");
    for (size_t i = 0; t && i < 5; i++) kt_table_add_col(t, cols[i], types[i], 0);
    return t;
}

void kt_counters_options_init(kt_counters_options *o, size_t size)
{
    const kt_counters_options d = { 0 };
    kt_options_init(o, size, &d, sizeof d);
}

static kt_status write_rank(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r,
                            const kt_counters_options *o, kt_overlay_write_fn write, kt_table *files, kt_diags **diags)
{
    char out[4096], err[512] = "";
    int tag = kt_file_name_shared(t, sel, r) ? r->rank : -1;
    if (!kt_copy_path(o->out_dir, r->file, "_with_counters", tag, out, sizeof out)) return KT_EUSAGE;
    kt_step_point *q = NULL;
    size_t nq = 0;
    kt_bw_series bw = { 0 };
    kt_status s = o->no_queue_length ? KT_OK : kt_queue_series(r, t->strs, t->hta_compat, &q, &nq, NULL);
    if (s == KT_OK && !o->no_memcpy_bw) s = kt_membw_series(r, t->strs, t->hta_compat, &bw);
    kt_overlay ov = { 0 };
    if (s == KT_OK) add_samples(&ov, r, q, nq, &bw);
    if (s == KT_OK && ov.failed) s = KT_ENOMEM;
    kt_overlay_written done = { 0 };
    if (s == KT_OK) s = write(t, r, &ov, out, &done, err, sizeof err);
    kt_overlay_free(&ov);
    if (s == KT_OK) {
        kt_table_add_row(files);
        kt_table_set_int(files, 0, r->rank);
        kt_table_set_str(files, 1, r->file);
        kt_table_set_str(files, 2, out);
        kt_table_set_int(files, 3, (int64_t)(nq + bw.n));
        kt_table_set_int(files, 4, (int64_t)done.json_bytes);
    } else {
        kt_diags_fail(diags, r->file, "%s", err);
    }
    free(q);
    kt_bw_series_free(&bw);
    return s;
}

kt_status kt_counters_writing(const kt_trace *t, const kt_rank_sel *sel, const kt_counters_options *opt,
                              kt_overlay_write_fn write, kt_tables **out, kt_diags **diags)
{
    *out = NULL;
    kt_diags_begin(diags);
    kt_counters_options o = kt_counters_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    if (!o.out_dir) {
        kt_diags_fail(diags, NULL, "an output directory is required");
        return KT_EUSAGE;
    }
    kt_table *files = files_table();
    kt_status s = files ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = write_rank(t, sel, t->ranks[i], &o, write, files, diags);
    if (s != KT_OK) {
        kt_table_free(files);
        return s;
    }
    return kt_tables_from(&files, 1, out);
}
