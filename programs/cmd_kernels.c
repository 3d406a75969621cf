/*
 * cmd_kernels.c — `kineta kernels`: the per-kernel table (count, total, avg,
 * median, min, max, std, shares of launches / kernel time / GPU wall time,
 * category, type), top N by a chosen key; -o writes the detailed report.
 */
#include "cli.h"

#include <string.h>

extern const cli_command cmd_kernels;

typedef struct kernels_state {
    kt_kernels_options o;
    const char *rules;
    bool top_given;
} kernels_state;

static const cli_option kernels_options[] = {
    { "sort", "KEY", "count|duration|total|percentage|duration-percentage (default total)" },
    { "top", "N", "rows (default: 10 in table format, all in csv/json and with -o; 0 = all)" },
    { "by", "KEY", "one row per name|short|category|type|launcher (default name)" },
    { "pstep", "N", "only kernels of ProfilerStep N" },
    { "memory", NULL, "count memcpy and memset too" },
    { "rules", "FILE", "category rules to add (format: docs/categories.md)" },
    { NULL, NULL, NULL },
};
static const char *const kernels_tables[] = { "kernels", "summary", NULL };
static const char *const sort_keys[] = { "count", "duration", "total", "percentage", "duration-percentage" };
static const char *const by_keys[] = { "name", "short", "category", "type", "launcher" };

static void kernels_init(void *state)
{
    ((kernels_state *)state)->o = kt_kernels_defaults();
}

/* Index of v in keys[0..n), or -1 with a message. */
static int choice(const char *opt, const char *v, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, keys[i])) return i;
    fprintf(stderr, "kineta: --%s must be one of:", opt);
    for (int i = 0; i < n; i++) fprintf(stderr, " %s", keys[i]);
    fprintf(stderr, "\n");
    return -1;
}

static int kernels_parse(void *state, const char *name, const char *v)
{
    kernels_state *s = state;
    long long x;
    int c;
    if (!strcmp(name, "memory")) s->o.memory = 1;
    else if (!strcmp(name, "rules")) s->rules = v;
    else if (!strcmp(name, "sort")) {
        if ((c = choice(name, v, sort_keys, 5)) < 0) return 2;
        s->o.sort = (kt_kernel_sort)c;
    } else if (!strcmp(name, "by")) {
        if ((c = choice(name, v, by_keys, 5)) < 0) return 2;
        s->o.by = (kt_kernel_key)c;
    } else {
        if (!cli_parse_int(name, v, 0, 1000000000, &x)) return 2;
        if (!strcmp(name, "top")) s->o.top = (size_t)x, s->top_given = true;
        else s->o.pstep = x;
    }
    return 0;
}

/* The library's options for this run: every row for files and machine
 * formats, full names in the report or with --verbose.                    */
static kt_kernels_options run_options(const cli_ctx *ctx, const kernels_state *s)
{
    kt_kernels_options o = s->o;
    o.full_names = ctx->verbose || ctx->out_path; /* the report has full names */
    if ((ctx->out_path || ctx->format != FMT_TABLE) && !s->top_given) o.top = 0; /* files get every row */
    return o;
}

/* kt_kernels or kt_kernels_map (map) with the --rules categorizer. */
static kt_status with_rules(const cli_ctx *ctx, const kt_trace *t, const kernels_state *s, bool map,
                            kt_tables **out)
{
    kt_categorizer *c;
    kt_status st = cli_load_categorizer(s->rules, &c);
    if (st != KT_OK) return st;
    kt_kernels_options o = run_options(ctx, s);
    o.categorizer = c;
    st = map ? kt_kernels_map(t, &ctx->sel, &o, out) : kt_kernels(t, &ctx->sel, &o, out);
    kt_categorizer_free(c);
    return st;
}

static kt_status kernels_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return with_rules(ctx, t, state, false, out);
}

static kt_status kernels_map(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **partial)
{
    return with_rules(ctx, t, state, true, partial);
}

static kt_status kernels_reduce(const cli_ctx *ctx, void *state, const kt_tables *const *partials, size_t n,
                                kt_tables **out)
{
    kt_kernels_options o = run_options(ctx, state);
    return kt_kernels_reduce(partials, n, &o, out);
}

static int64_t kernels_step(const void *state)
{
    return ((const kernels_state *)state)->o.pstep;
}

static double num(const kt_table *t, size_t row, const char *col)
{
    long c = kt_table_col_index(t, col);
    return c < 0 ? 0 : kt_table_float(t, row, (size_t)c);
}

/* The detailed report (-o FILE without --format), as the seed analyzer's
 * kernel_analysis.txt: one block per kernel with its full name.          */
static void print_report(const kt_tables *ts, FILE *f)
{
    const kt_table *k = kt_tables_find(ts, "kernels"), *sum = kt_tables_find(ts, "summary");
    fprintf(f, "DETAILED GPU KERNEL ANALYSIS\n%.50s\n", "==================================================");
    fprintf(f, "Ranks: %.0f   Kernels: %.0f   Launches: %.0f\n", num(sum, 0, "ranks"), num(sum, 0, "kernels"),
            num(sum, 0, "launches"));
    fprintf(f, "Kernel time: %.3f us   GPU wall time: %.3f us   Unlinked launches: %.0f   Graph-launched: %.0f\n",
            num(sum, 0, "kernel time (us)"), num(sum, 0, "GPU wall time (us)"), num(sum, 0, "unlinked launches"),
            num(sum, 0, "graph-launched kernels"));
    fprintf(f, "%.50s\n\n", "==================================================");
    for (size_t r = 0; r < kt_table_nrows(k); r++) {
        fprintf(f, "#%zu: %s\n", r + 1, kt_table_str(k, r, 1));
        fprintf(f, "  Count: %.0f (%.2f%% of launches)\n", num(k, r, "count"), num(k, r, "% launches"));
        fprintf(f, "  Total Duration: %.3f us (%.2f%% of kernel time, %.2f%% of GPU wall time)\n",
                num(k, r, "total (us)"), num(k, r, "% kernel time"), num(k, r, "% GPU wall time"));
        fprintf(f, "  Average: %.3f us   Median: %.3f us   Min: %.3f us   Max: %.3f us\n", num(k, r, "avg (us)"),
                num(k, r, "median (us)"), num(k, r, "min (us)"), num(k, r, "max (us)"));
        fprintf(f, "  Standard Deviation: %.3f us\n", num(k, r, "std (us)"));
        fprintf(f, "  Category: %s   Type: %s\n%.50s\n", kt_table_str(k, r, 12), kt_table_str(k, r, 13),
                "--------------------------------------------------");
    }
}

static int kernels_print(const cli_ctx *ctx, const kt_tables *ts, FILE *f)
{
    if (ctx->out_path && !ctx->format_given) {
        print_report(ts, f);
        return 0;
    }
    return print_tables(ctx, &cmd_kernels, ts, f);
}

const cli_command cmd_kernels = {
    .name = "kernels",
    .summary = "per-kernel table: count, total/avg/median/min/max/std, shares, category, type",
    .description = "GPU kernels only (with --memory also memcpy/memset), never runtime calls.\n"
                   "Names are short and kept distinct unless --verbose; rows aggregate full names\n"
                   "unless --by short.  % GPU wall time is of the span from the first to the last\n"
                   "GPU event of each rank.  -o FILE writes every kernel with full names as a text\n"
                   "report (or csv/json with --format).",
    .options = kernels_options,
    .tables = kernels_tables,
    .state_size = sizeof(kernels_state),
    .init = kernels_init,
    .parse = kernels_parse,
    .run = kernels_run,
    .print = kernels_print,
    .selected_step = kernels_step,
    .map = kernels_map,
    .reduce = kernels_reduce,
};
