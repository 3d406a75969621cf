/*
 * cmd_categories.c — `kineta categories`: every kernel's kernel_category
 * (GEMM, attention, convolution, ...) by name, grouped by the CPU op that
 * launched it; user rule files extend or override the built-in rules.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct categories_state {
    kt_categories_options o;
    const char *rules;
} categories_state;

static const cli_option categories_options[] = {
    { "rules", "FILE", "add or override category rules (format: docs/categories.md)" },
    { "print-rules", NULL, "print the built-in rules (a valid rules file) and exit" },
    { "no-memory", NULL, "leave memcpy and memset out" },
    { "top", "N", "rows of the kernels and op_categories tables (default 0 = all)" },
    { "pstep", "N", "only ProfilerStep N" },
    { NULL, NULL, NULL },
};
static const char *const categories_tables[] = { "kernels", "op_categories", "categories", NULL };

static void categories_init(void *state)
{
    ((categories_state *)state)->o = kt_categories_defaults();
}

static int categories_parse(void *state, const char *name, const char *v)
{
    categories_state *s = state;
    long long x;
    if (!strcmp(name, "print-rules")) {
        fputs(kt_categorizer_builtin_rules(), stdout);
        return -1; /* done: like --help, nothing to load */
    }
    if (!strcmp(name, "rules")) s->rules = v;
    else if (!strcmp(name, "no-memory")) s->o.memory = 0;
    else if (!strcmp(name, "top") || !strcmp(name, "pstep")) {
        if (!cli_parse_int(name, v, 0, 1000000000, &x)) return 2;
        if (!strcmp(name, "top")) s->o.top = (size_t)x;
        else s->o.pstep = x;
    }
    return 0;
}

kt_status cli_load_categorizer(const char *rules, kt_categorizer **out)
{
    *out = NULL;
    if (!rules) return KT_OK;
    kt_diags *why = NULL;
    kt_status s = kt_categorizer_new(out);
    if (s == KT_OK) s = kt_categorizer_load_rules(*out, rules, &why);
    cli_fail_diags(NULL, NULL, why);
    if (s == KT_OK) return KT_OK;
    kt_categorizer_free(*out);
    *out = NULL;
    return s == KT_EINPUT ? KT_EUSAGE : s;
}

/* kt_categories or kt_categories_map (map) with the --rules categorizer. */
static kt_status with_rules(const cli_ctx *ctx, const kt_trace *t, const categories_state *s, bool map,
                            kt_tables **out)
{
    kt_categorizer *c;
    kt_status st = cli_load_categorizer(s->rules, &c);
    if (st != KT_OK) return st;
    kt_categories_options o = s->o;
    o.categorizer = c;
    o.full_names = ctx->verbose;
    st = map ? kt_categories_map(t, &ctx->sel, &o, out) : kt_categories(t, &ctx->sel, &o, out);
    kt_categorizer_free(c);
    return st;
}

static kt_status categories_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return with_rules(ctx, t, state, false, out);
}

static kt_status categories_map(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **partial)
{
    return with_rules(ctx, t, state, true, partial);
}

static kt_status categories_reduce(const cli_ctx *ctx, void *state, const kt_tables *const *partials, size_t n,
                                   kt_tables **out)
{
    kt_categories_options o = ((const categories_state *)state)->o;
    o.full_names = ctx->verbose;
    return kt_categories_reduce(partials, n, &o, out);
}

static int64_t categories_step(const void *state)
{
    return ((const categories_state *)state)->o.pstep;
}

const cli_command cmd_categories = {
    .name = "categories",
    .summary = "kernel categories by name (GEMM, attention, conv, norm, ...) per launching CPU op",
    .description = "Tables: kernels (cpu_op, kernel_category, kernel_name, count, time), op_categories\n"
                   "(per launching op and category, with % of the op's kernel time), categories.\n"
                   "Kernels of a graph launch count under the graph launch call; kernels with no\n"
                   "launch link under \"(unlinked)\".  Rules: --print-rules, docs/categories.md.",
    .options = categories_options,
    .tables = categories_tables,
    .state_size = sizeof(categories_state),
    .init = categories_init,
    .parse = categories_parse,
    .run = categories_run,
    .selected_step = categories_step,
    .map = categories_map,
    .reduce = categories_reduce,
};
