/*
 * cmd_gaps.c — `kineta gaps`: idle gaps between consecutive kernels of each
 * GPU stream, device idle (holes in the union of GPU activity), a gap
 * histogram and the kernel-pair transition table.
 */
#include "cli.h"

#include <math.h>
#include <string.h>

extern const cli_command cmd_gaps;

typedef struct gaps_state {
    kt_gaps_options o;
    bool top_given;
} gaps_state;

static const cli_option gaps_options[] = {
    { "hist-min", "US", "histogram from this gap length (default: the shortest gap)" },
    { "hist-max", "US", "histogram up to this gap length (default: the longest gap)" },
    { "bins", "N", "histogram bins (default 20)" },
    { "linear", NULL, "equal-width bins (default: log-spaced)" },
    { "gap-top", "N", "kernel pairs per rank (default: 15 in table format, all in csv/json and with -o)" },
    { "gap-sort", "KEY", "order pairs by count|avg|max|stdev|total (default total; avggap, maxgap too)" },
    { "pstep", "N", "only ProfilerStep N" },
    { NULL, NULL, NULL },
};
static const char *const gaps_tables[] = { "device_idle", "stream_gaps", "gap_histogram", "transitions", NULL };

static void gaps_init(void *state)
{
    ((gaps_state *)state)->o = kt_gaps_defaults();
}

static int parse_sort(kt_gaps_options *o, const char *v)
{
    /* avggap and maxgap: the seed analyzer's spellings */
    static const char *const keys[] = { "total", "count", "avg", "max", "stdev", "avggap", "maxgap" };
    static const kt_gap_sort sorts[] = { KT_GAP_SORT_TOTAL, KT_GAP_SORT_COUNT, KT_GAP_SORT_AVG,
                                         KT_GAP_SORT_MAX, KT_GAP_SORT_STDEV, KT_GAP_SORT_AVG,
                                         KT_GAP_SORT_MAX };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(v, keys[i])) {
            o->sort = sorts[i];
            return 0;
        }
    fprintf(stderr, "kineta: --gap-sort must be count, avg, max, stdev or total\n");
    return 2;
}

static int gaps_parse(void *state, const char *name, const char *v)
{
    gaps_state *s = state;
    long long x;
    if (!strcmp(name, "hist-min")) return cli_parse_double(name, v, &s->o.hist_min_us) ? 0 : 2;
    if (!strcmp(name, "hist-max")) return cli_parse_double(name, v, &s->o.hist_max_us) ? 0 : 2;
    if (!strcmp(name, "linear")) { s->o.linear = 1; return 0; }
    if (!strcmp(name, "gap-sort")) return parse_sort(&s->o, v);
    if (!cli_parse_int(name, v, 0, 1000000000, &x)) return 2;
    if (!strcmp(name, "bins")) s->o.bins = x > 0 ? (int)x : 1;
    else if (!strcmp(name, "gap-top")) s->o.top = (size_t)x, s->top_given = true;
    else if (!strcmp(name, "pstep")) s->o.step = x;
    return 0;
}

static kt_gaps_options run_options(const cli_ctx *ctx, const gaps_state *s)
{
    kt_gaps_options o = s->o;
    if ((ctx->out_path || ctx->format != FMT_TABLE) && !s->top_given) o.top = 0; /* files get every row */
    o.short_names = !ctx->verbose && !ctx->out_path; /* the -o report has full names, as the seed's */
    return o;
}

static kt_status gaps_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    kt_gaps_options o = run_options(ctx, state);
    return kt_gaps(t, &ctx->sel, &o, out);
}

static kt_status gaps_map(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **partial)
{
    kt_gaps_options o = run_options(ctx, state);
    return kt_gaps_map(t, &ctx->sel, &o, partial);
}

static kt_status gaps_reduce(const cli_ctx *ctx, void *state, const kt_tables *const *partials, size_t n,
                             kt_tables **out)
{
    kt_gaps_options o = run_options(ctx, state);
    return kt_gaps_reduce(partials, n, &o, out);
}

static int64_t gaps_step(const void *state)
{
    return ((const gaps_state *)state)->o.step;
}

/* The histogram as bars, like the seed analyzer (and readable at a glance). */
static void print_histogram(const kt_table *h, size_t n, FILE *f)
{
    int64_t most = 1;
    for (size_t r = 0; r < n; r++)
        if (kt_table_int(h, r, 2) > most) most = kt_table_int(h, r, 2);
    fprintf(f, "== gap_histogram (%zu bins, µs)\n", n);
    for (size_t r = 0; r < n; r++) {
        double a = kt_table_float(h, r, 0), b = kt_table_float(h, r, 1);
        int64_t c = kt_table_int(h, r, 2);
        int bar = (int)(40 * c / most);
        char range[64];
        if (isnan(a)) snprintf(range, sizeof range, "< %.1f", b);
        else if (isnan(b)) snprintf(range, sizeof range, "> %.1f", a);
        else snprintf(range, sizeof range, "%.1f-%.1f", a, b);
        fprintf(f, "%24s |", range);
        for (int i = 0; i < 40; i++) fputs(i < bar ? "\xe2\x96\x88" : " ", f);
        fprintf(f, "| %lld (%.1f%%)\n", (long long)c, kt_table_float(h, r, 3));
    }
}

/* Table format: the histogram drawn, the other tables as usual. */
static bool gaps_print_text(const kt_table *t, size_t nrows, FILE *f)
{
    if (strcmp(kt_table_name(t), "gap_histogram")) return false;
    print_histogram(t, nrows, f);
    return true;
}

/* With -o and no --format the file is a text report: every table, full
 * names, the histogram drawn.  Otherwise the generic printer.             */
static int gaps_print(const cli_ctx *ctx, const kt_tables *ts, FILE *f)
{
    if (!ctx->out_path || ctx->format_given) return print_tables(ctx, &cmd_gaps, ts, f);
    text_style st = { .full_names = true };
    bool first = true;
    for (size_t i = 0; i < kt_tables_count(ts); i++) {
        const kt_table *t = kt_tables_get(ts, i);
        if (ctx->table && strcmp(ctx->table, kt_table_name(t))) continue;
        if (!first) fputc('\n', f);
        first = false;
        if (!gaps_print_text(t, kt_table_nrows(t), f)) print_table_text_styled(t, &st, f);
    }
    return 0;
}

const cli_command cmd_gaps = {
    .name = "gaps",
    .summary = "gaps between consecutive kernels per GPU stream, device idle, kernel-pair transitions",
    .description = "Gaps are measured per GPU stream (never per CPU thread); device idle is the\n"
                   "holes in the union of all GPU activity of a device, not the sum of stream gaps.\n"
                   "Kernel names are shortened unless --verbose.",
    .options = gaps_options,
    .tables = gaps_tables,
    .state_size = sizeof(gaps_state),
    .init = gaps_init,
    .parse = gaps_parse,
    .run = gaps_run,
    .map = gaps_map,
    .reduce = gaps_reduce,
    .print = gaps_print,
    .print_text = gaps_print_text,
    .selected_step = gaps_step,
};
