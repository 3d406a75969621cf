/*
 * cmd_perf.c — `kineta perf`: FLOPs and bytes per op from its recorded
 * shapes, achieved TFLOP/s and TB/s, roofline against the device, and
 * where the headroom is (TraceLens's perf report).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct perf_state {
    kt_perf_options o;
    const char *spec_path;
    const char *xlsx_path;
    const char *compare;      /* --compare BASE: the run compared with PATH */
    char names[256];          /* --names a,b: "a\0b" */
    kt_perf_compare_options c;
} perf_state;

static const cli_option perf_options[] = {
    { "tracelens", NULL,
      "TraceLens's sheet columns, names and row order (its CSVs; no roofline unless --device-spec)" },
    { "device-spec", "FILE", "peak TFLOP/s and bandwidth from TraceLens's arch JSON instead of the built-in table" },
    { "top", "N", "headroom rows kept (default 20, 0 = all)" },
    { "xlsx", "FILE",
      "write TraceLens's workbook (gpu_timeline and the --tracelens sheets; with several ranks each rank's rows "
      "under a rank column), and print its sheets" },
    { "compare", "BASE", "compare the run BASE with PATH sheet by sheet (both values, difference, ratio per row)" },
    { "names", "A,B", "the two runs' names in --compare's columns (default base,test)" },
    { NULL, NULL, NULL },
};
static const char *const perf_tables[] = {
    "gpu_timeline", "ops_summary", "ops_summary_by_category", "ops_unique_args", "unified_perf_summary",
    "short_kernels_summary", "kernel_summary",
    "GEMM", "SDPA_fwd", "CONV_fwd", "UnaryElementwise", "BinaryElementwise", "Normalization", "Reduce_fwd",
    "Triton", "headroom", "perf_by_family", "perf_by_step", "unmodelled_ops", "coverage", "unmodelled", "notes", NULL,
};

static void perf_init(void *state)
{
    perf_state *s = state;
    s->o = kt_perf_defaults();
    s->spec_path = NULL;
    s->xlsx_path = NULL;
    s->compare = NULL;
    s->c = kt_perf_compare_defaults();
}

static int perf_parse(void *state, const char *name, const char *value)
{
    perf_state *s = state;
    long long v;
    if (!strcmp(name, "tracelens")) s->o.tracelens = 1;
    else if (!strcmp(name, "device-spec")) s->spec_path = value;
    else if (!strcmp(name, "xlsx")) {
        s->xlsx_path = value;
        s->o.tracelens = 1;
    }
    else if (!strcmp(name, "compare")) s->compare = value;
    else if (!strcmp(name, "names"))
        return cli_parse_pair(name, value, s->names, sizeof s->names, &s->c.base_name, &s->c.test_name) ? 0 : 2;
    else if (!strcmp(name, "top") && cli_parse_int(name, value, 0, 1000000000, &v)) s->o.top = (size_t)v;
    else return 2;
    return 0;
}

/* --compare BASE: the two runs' sheets matched (and the workbook). */
static kt_status compare_runs(const cli_ctx *ctx, const kt_trace *t, perf_state *s, const char *spec,
                              kt_tables **out, kt_diags **why)
{
    kt_trace *base = NULL;
    kt_status st = cli_load_run("perf", "compare", s->compare, &base);
    if (st != KT_OK) return st;
    s->c.device_spec = spec;
    if (s->xlsx_path) st = kt_perf_compare_workbook(base, t, &ctx->sel, &s->c, s->xlsx_path, out, why);
    else st = kt_perf_compare(base, t, &ctx->sel, &s->c, out, why);
    kt_trace_free(base);
    return st;
}

static kt_status perf_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    perf_state *s = state;
    kt_perf_options o = s->o;
    char *spec = NULL, prefix[4200];
    if (s->spec_path && !(spec = cli_read_device_spec("perf", s->spec_path))) return KT_EUSAGE;
    o.device_spec = spec;
    kt_diags *why = NULL;
    kt_status st;
    if (s->compare) st = compare_runs(ctx, t, s, spec, out, &why);
    else if (s->xlsx_path) st = kt_perf_workbook(t, &ctx->sel, &o, s->xlsx_path, out, &why);
    else st = kt_perf(t, &ctx->sel, &o, out, &why);
    snprintf(prefix, sizeof prefix, "--device-spec %s: ", s->spec_path ? s->spec_path : "");
    if (st == KT_OK) kt_diags_free(why);
    else cli_fail_diags("perf", st == KT_EUSAGE ? prefix : NULL, why);
    free(spec);
    return st;
}

const cli_command cmd_perf = {
    .name = "perf",
    .summary = "FLOPs, bytes, achieved TFLOP/s and TB/s per op, roofline and headroom (TraceLens perf report)",
    .description = "Kernel launchers summarized by op and TraceLens op category; GEMM, attention,\n"
                   "convolution, elementwise, layer-norm and reduce ops modelled from their\n"
                   "recorded shapes (record_shapes=True), one row per op and\n"
                   "shape, with achieved throughput and, against the GPU's datasheet peaks (or\n"
                   "--device-spec), roofline time, bound and headroom.  --tracelens reproduces\n"
                   "TraceLens's CSV sheets, --xlsx its workbook; --compare BASE sets two runs'\n"
                   "sheets side by side.  Details: docs/perf.md.",
    .options = perf_options,
    .tables = perf_tables,
    .state_size = sizeof(perf_state),
    .init = perf_init,
    .parse = perf_parse,
    .run = perf_run,
};
