/*
 * cmd_patterns.c — `kineta patterns`: frequent GPU launch sequences under
 * an op, with an overlay trace marking them (HTA frequent CUDA kernel
 * sequences); `--mine`: frequent kernel sequences per stream, no op named.
 */
#include "cli.h"

#include <string.h>

typedef struct patterns_state {
    kt_patterns_options o;
    kt_mine_options m;
    bool mine, no_overlay;
} patterns_state;

static const cli_option patterns_options[] = {
    { "op", "NAME", "ops whose name contains NAME (default: the 3 ops launching most GPU events)" },
    { "pick", "N", "without --op: analyse the N ops launching most GPU events (default 3)" },
    { "min-len", "N", "an op needs at least N GPU events under it (default 3)" },
    { "top", "N", "mark the top N patterns in the overlay; --mine: rows per rank (default 5 / 10)" },
    { "keep-names", NULL, "overlay: do not compress other GPU events' names to ids" },
    { "no-overlay", NULL, "do not write the overlay trace even with -o DIR (none is written without -o)" },
    { "mine", NULL, "find frequent kernel sequences on each stream without naming an op" },
    { "max-len", "L", "--mine: longest sequence (default 8)" },
    { NULL, NULL, NULL },
};
static const char *const patterns_tables[] = { "patterns", "ops", "files", "sequences", NULL };

static void patterns_init(void *state)
{
    patterns_state *s = state;
    s->o = kt_patterns_defaults();
    s->m = kt_mine_defaults();
}

static int patterns_parse(void *state, const char *name, const char *value)
{
    patterns_state *s = state;
    long long x = 0;
    if (!strcmp(name, "op")) s->o.op = value;
    else if (!strcmp(name, "keep-names")) s->o.keep_names = 1;
    else if (!strcmp(name, "mine")) s->mine = true;
    else if (!strcmp(name, "no-overlay")) s->no_overlay = true;
    else if (!strcmp(name, "pick") && cli_parse_int(name, value, 1, 1000, &x)) s->o.pick_ops = (size_t)x;
    else if (!strcmp(name, "min-len") && cli_parse_int(name, value, 0, 1 << 30, &x)) s->o.min_len = (size_t)x;
    else if (!strcmp(name, "top") && cli_parse_int(name, value, 1, 1 << 30, &x)) s->o.top = s->m.top = (size_t)x;
    else if (!strcmp(name, "max-len") && cli_parse_int(name, value, 2, 64, &x)) s->m.max_len = (size_t)x;
    else return 2;
    return 0;
}

static kt_status patterns_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    patterns_state *s = state;
    if (s->mine) return kt_mine_sequences(t, &ctx->sel, &s->m, out);
    s->o.out_dir = s->no_overlay ? NULL : ctx->out_path; /* no -o: the tables only */
    kt_diags *why = NULL;
    kt_status st = kt_patterns(t, &ctx->sel, &s->o, out, &why);
    cli_fail_diags("patterns", NULL, why);
    const kt_table *p = st == KT_OK ? kt_tables_find(*out, "patterns") : NULL;
    if (p && kt_table_nrows(p) == 0 && !ctx->quiet)
        fprintf(stderr, "kineta patterns: no %s with %zu or more GPU events under it (table ops)\n",
                s->o.op ? "op matching the name" : "picked op", s->o.min_len);
    return st;
}

const cli_command cmd_patterns = {
    .name = "patterns",
    .summary = "frequent GPU launch sequences under an op, overlay trace (HTA); --mine: fusion candidates",
    .description = "Each op whose name contains NAME (the outermost ones; --hta-compat: HTA's\n"
                   "shallowest) with at least --min-len GPU events under it gives the pattern\n"
                   "'op|kernel|kernel|...'; identical patterns are counted (table patterns).\n"
                   "With -o DIR, DIR/overlaid_<file> is the trace with args.Patterns on the events of the top\n"
                   "patterns and other GPU events' names compressed to ids (dictionary on the\n"
                   "'PyTorch Profiler' span); open it in Perfetto and search 'Patterns'.\n"
                   "--mine ranks repeated kernel sequences per stream by count x (length-1) x\n"
                   "median gap: the launch overhead a fusion would save (writes no files).",
    .options = patterns_options,
    .tables = patterns_tables,
    .state_size = sizeof(patterns_state),
    .init = patterns_init,
    .parse = patterns_parse,
    .run = patterns_run,
    .output_dir = true,
    .output_dir_optional = true, /* without it: the tables, no overlay */
};
