/*
 * cmd_perf.c — `kineta perf`: FLOPs and bytes per op from its recorded
 * shapes, achieved TFLOP/s and TB/s, roofline against the device, and
 * where the headroom is (TraceLens's perf report).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct perf_state {
    kt_perf_options o;
    const char *spec_path;
} perf_state;

static const cli_option perf_options[] = {
    { "tracelens", NULL,
      "TraceLens's sheet columns, names and row order (its CSVs; no roofline unless --device-spec)" },
    { "device-spec", "FILE", "peak TFLOP/s and bandwidth from TraceLens's arch JSON instead of the built-in table" },
    { "top", "N", "headroom rows kept (default 20, 0 = all)" },
    { NULL, NULL, NULL },
};
static const char *const perf_tables[] = {
    "ops_summary", "ops_summary_by_category", "ops_unique_args", "unified_perf_summary", "short_kernels_summary",
    "GEMM", "SDPA_fwd", "CONV_fwd", "UnaryElementwise", "BinaryElementwise", "Normalization", "Reduce_fwd",
    "Triton", "headroom", "perf_by_family", "perf_by_step", "unmodelled_ops", "coverage", "unmodelled", "notes", NULL,
};

static void perf_init(void *state)
{
    perf_state *s = state;
    s->o = kt_perf_defaults();
    s->spec_path = NULL;
}

static int perf_parse(void *state, const char *name, const char *value)
{
    perf_state *s = state;
    long long v;
    if (!strcmp(name, "tracelens")) s->o.tracelens = 1;
    else if (!strcmp(name, "device-spec")) s->spec_path = value;
    else if (!strcmp(name, "top") && cli_parse_int(name, value, 0, 1000000000, &v)) s->o.top = (size_t)v;
    else return 2;
    return 0;
}

/* The whole file, NUL-terminated, or NULL (message printed). */
static char *read_spec(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        cli_fail("perf", "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            char *p = cap <= (64u << 20) ? realloc(buf, cap) : NULL;
            if (!p) {
                cli_fail("perf", "%s is too large for a device spec", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096) break;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static kt_status perf_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    perf_state *s = state;
    kt_perf_options o = s->o;
    char *spec = NULL, prefix[4200];
    if (s->spec_path && !(spec = read_spec(s->spec_path))) return KT_EUSAGE;
    o.device_spec = spec;
    kt_diags *why = NULL;
    kt_status st = kt_perf(t, &ctx->sel, &o, out, &why);
    if (st == KT_EUSAGE) {
        snprintf(prefix, sizeof prefix, "--device-spec %s: ", s->spec_path ? s->spec_path : "");
        cli_fail_diags("perf", prefix, why);
    } else {
        kt_diags_free(why);
    }
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
                   "TraceLens's CSV sheets.  Details: docs/perf.md.",
    .options = perf_options,
    .tables = perf_tables,
    .state_size = sizeof(perf_state),
    .init = perf_init,
    .parse = perf_parse,
    .run = perf_run,
};
