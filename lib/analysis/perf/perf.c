/*
 * perf.c — `kineta perf`: the reduce step and the tables (kineta.h).
 *
 * Each selected rank is mapped on its own (perf_rank.c) and the partials
 * merged; the tables are then built from the merged groups
 * (perf_ops_tables.c: the launcher tables; perf_model_tables.c: roofline
 * sheets, headroom and the rest); this file picks the device spec, writes
 * the notes and runs the steps in order.
 */
#include "analysis/common/stats.h"
#include "analysis/perf/perf.h"
#include "analysis/perf/perf_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_perf_options_init(kt_perf_options *o, size_t size)
{
    const kt_perf_options d = { .top = 20 };
    kt_options_init(o, size, &d, sizeof d);
}

static void note(perf_run *run, const char *level, const char *msg)
{
    kt_table_add_row(run->notes);
    kt_table_set_str(run->notes, 0, level);
    kt_table_set_str(run->notes, 1, msg);
}

/* No spec for the trace's GPU: which GPU it names, and the known ones. */
static void unknown_gpu_note(perf_run *run)
{
    char msg[1024];
    size_t n, len = (size_t)snprintf(msg, sizeof msg, "no roofline columns: %s%s%s; known GPUs:",
                                     run->device[0] ? "the trace's GPU is \"" : "the trace names no GPU",
                                     run->device, run->device[0] ? "\", not in the table" : "");
    const kt_device_spec *known = kt_device_specs(&n);
    for (size_t i = 0; i < n && len < sizeof msg; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s", i ? "," : "", known[i].name);
    if (len < sizeof msg) snprintf(msg + len, sizeof msg - len, "; give --device-spec FILE");
    note(run, "info", msg);
}

static kt_status pick_spec(perf_run *run, const kt_rank_sel *sel, char *err, size_t errlen)
{
    char msg[256];
    if (run->o.device_spec) {
        if (!kt_device_spec_parse(run->o.device_spec, strlen(run->o.device_spec), &run->spec, err, errlen))
            return KT_EUSAGE;
        run->have_spec = true;
    }
    for (size_t i = 0; i < run->t->nranks && !run->device[0]; i++) {
        const kt_rank *r = run->t->ranks[i];
        if (kt_rank_selected(sel, r->rank) && r->ndevices && r->device_names[0] != KT_NONE)
            snprintf(run->device, sizeof run->device, "%s", kt_strtab_get(run->t->strs, r->device_names[0]));
    }
    if (!run->o.device_spec && !run->o.tracelens) run->have_spec = kt_device_spec_for(run->device, &run->spec);
    if (run->have_spec) {
        snprintf(msg, sizeof msg, "roofline against %s: %s", run->spec.name, run->spec.source);
        note(run, "info", msg);
    } else if (run->o.tracelens && !run->o.device_spec) {
        note(run, "info", "no roofline columns: --tracelens uses a device spec only when given (--device-spec)");
    } else {
        unknown_gpu_note(run);
    }
    return KT_OK;
}

static void shape_notes(perf_run *run)
{
    char msg[320];
    const kt_perf_partial *p = &run->all;
    if (p->args_unreadable)
        note(run, "warning",
             "the trace file could not be re-read for op shapes (moved, changed or loaded from memory)");
    if (p->no_shapes) {
        snprintf(msg, sizeof msg,
                 "%zu of %zu modelled op calls have no Input Dims: record the trace with "
                 "torch.profiler.profile(record_shapes=True) to get FLOPs and bytes; timing columns only",
                 p->no_shapes, p->modelled_calls);
        note(run, "warning", msg);
    }
    if (p->bad_shapes) {
        snprintf(msg, sizeof msg, "%zu op calls have shapes their model cannot use (see unmodelled_ops)",
                 p->bad_shapes);
        note(run, "warning", msg);
    }
}

static kt_status map_ranks(perf_run *run, const kt_rank_sel *sel, unsigned flags)
{
    for (size_t i = 0; i < run->t->nranks; i++) {
        const kt_rank *r = run->t->ranks[i];
        if (!kt_rank_selected(sel, r->rank)) continue;
        kt_perf_partial part;
        kt_status st = kt_perf_map_rank(run->t, r, flags, &part);
        if (st != KT_OK) return st;
        if (!kt_perf_partial_merge(&run->all, &part)) return KT_ENOMEM;
    }
    return KT_OK;
}

kt_status kt_perf_run_begin(perf_run *run, const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt,
                            unsigned flags, char *err, size_t errlen)
{
    *run = (perf_run){ .t = t, .o = kt_perf_defaults() };
    if (!kt_options_take(&run->o, sizeof run->o, opt)) return KT_EUSAGE;
    run->all.gpu_first_us = INFINITY;
    run->all.gpu_last_us = -INFINITY;
    run->notes = kt_table_new("notes");
    if (!run->notes) return KT_ENOMEM;
    kt_table_add_col(run->notes, "level", KT_COL_STR, 0);
    kt_table_add_col(run->notes, "message", KT_COL_STR, 0);
    kt_status st = pick_spec(run, sel, err, errlen);
    if (st == KT_OK) st = map_ranks(run, sel, flags);
    if (st == KT_OK) shape_notes(run);
    if (st != KT_OK) kt_perf_run_end(run);
    return st;
}

void kt_perf_run_end(perf_run *run)
{
    kt_table_free(run->notes);
    run->notes = NULL;
    kt_perf_partial_free(&run->all);
}

/* kt_perf's tables; shape_tables: also those of ops by shapes, unified op
 * and short kernel, and the headroom (built from the unified ops).       */
static kt_status perf_tables(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt,
                             bool shape_tables, kt_tables **out, char *err, size_t errlen)
{
    *out = NULL;
    char dummy[8];
    perf_run run;
    kt_perf_options o = kt_perf_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    unsigned flags = (o.tracelens ? KT_PERF_KERNEL_DETAILS : KT_PERF_TRITON) | (shape_tables ? KT_PERF_SHAPE_GROUPS : 0);
    kt_status st = kt_perf_run_begin(&run, t, sel, opt, flags, err ? err : dummy, err ? errlen : sizeof dummy);
    if (st != KT_OK) return st;
    kt_table *tb[24];
    size_t n = 0;
    tb[n++] = kt_pt_ops_summary(&run);
    tb[n++] = kt_pt_ops_by_category(&run);
    if (shape_tables) {
        tb[n++] = kt_pt_ops_unique_args(&run);
        tb[n++] = kt_pt_unified_summary(&run);
        tb[n++] = kt_pt_short_kernels(&run);
        tb[n++] = kt_pt_kernel_summary(&run);
    }
    for (int f = 0; f < KT_PF__COUNT; f++) {
        kt_table *s = kt_pt_family_sheet(&run, f);
        if (s) tb[n++] = s;
    }
    if (shape_tables && run.have_spec) tb[n++] = kt_pt_headroom(&run);
    tb[n++] = kt_pt_throughput_table(&run, false);
    tb[n++] = kt_pt_throughput_table(&run, true);
    tb[n++] = kt_pt_unmodelled(&run);
    tb[n++] = kt_pt_coverage(&run);
    tb[n++] = kt_pt_unmodelled_time(&run);
    tb[n++] = run.notes;
    run.notes = NULL; /* now the tables' */
    kt_perf_run_end(&run);
    return kt_tables_from(tb, n, out);
}

kt_status kt_perf(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out,
                  kt_diags **diags)
{
    char err[512] = "";
    kt_diags_begin(diags);
    kt_status st = perf_tables(t, sel, opt, true, out, err, sizeof err);
    if (st != KT_OK) kt_diags_fail(diags, NULL, "%s", err);
    return st;
}

kt_status kt_perf_overview(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *opt, kt_tables **out)
{
    return perf_tables(t, sel, opt, false, out, NULL, 0);
}
