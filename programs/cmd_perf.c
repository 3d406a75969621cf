/*
 * cmd_perf.c — `kineta perf`: FLOPs and bytes per op from its recorded
 * shapes, achieved TFLOP/s and TB/s, roofline against the device, and
 * where the headroom is (TraceLens's perf report).
 */
#include "cli.h"
#include "output/xlsx_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct perf_state {
    kt_perf_options o;
    const char *spec_path;
    const char *xlsx_path;
} perf_state;

static const cli_option perf_options[] = {
    { "tracelens", NULL,
      "TraceLens's sheet columns, names and row order (its CSVs; no roofline unless --device-spec)" },
    { "device-spec", "FILE", "peak TFLOP/s and bandwidth from TraceLens's arch JSON instead of the built-in table" },
    { "top", "N", "headroom rows kept (default 20, 0 = all)" },
    { "xlsx", "FILE", "also write the --tracelens sheets as an Excel workbook (a rank column for several ranks)" },
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
    s->xlsx_path = NULL;
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

/* The ranks the workbook has a part for: the selected ones, else all. */
static size_t workbook_ranks(const kt_trace *t, const kt_rank_sel *sel, int **ranks)
{
    size_t n = sel->nranks ? sel->nranks : kt_trace_nranks(t);
    *ranks = malloc((n ? n : 1) * sizeof **ranks);
    for (size_t i = 0; *ranks && i < n; i++) (*ranks)[i] = sel->nranks ? sel->ranks[i] : kt_trace_rank(t, i);
    return *ranks ? n : 0;
}

/* --xlsx: all's sheets for one rank; for several, each rank's own tables
 * under a rank column (TraceLens's multi-rank report).                  */
static kt_status write_workbook(const kt_trace *t, const kt_rank_sel *sel, const kt_perf_options *o,
                                const kt_tables *all, const char *path)
{
    int *ranks = NULL;
    size_t n = workbook_ranks(t, sel, &ranks);
    if (!ranks) return KT_ENOMEM;
    kt_tables **sets = calloc(n ? n : 1, sizeof *sets);
    kt_status st = sets ? KT_OK : KT_ENOMEM;
    char err[512] = "";
    for (size_t i = 0; n > 1 && i < n && st == KT_OK; i++) {
        kt_rank_sel one = { &ranks[i], 1 };
        st = kt_perf(t, &one, o, &sets[i], NULL); /* the same options passed for every rank */
    }
    if (st == KT_OK && n > 1) st = kt_xlsx_write(path, (const kt_tables *const *)sets, ranks, n, err, sizeof err);
    else if (st == KT_OK) st = kt_xlsx_write(path, &all, ranks, 1, err, sizeof err);
    if (st != KT_OK && st != KT_ENOMEM) cli_fail("perf", "--xlsx %s: %s", path, err);
    for (size_t i = 0; sets && i < n; i++) kt_tables_free(sets[i]);
    free(sets);
    free(ranks);
    return st;
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
    if (st == KT_OK && s->xlsx_path) st = write_workbook(t, &ctx->sel, &o, *out, s->xlsx_path);
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
