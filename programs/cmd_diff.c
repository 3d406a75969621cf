/*
 * cmd_diff.c — `kineta diff CONTROL TEST`: what changed between two runs:
 * HTA's op/kernel comparison, a side-by-side GPU table and the merged call
 * trees (printed as an indented tree with --format table).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct diff_state {
    kt_diff_options o;
    const char *rules;
    char labels[256];
} diff_state;

static const cli_option diff_options[] = {
    { "test-rank", "R", "rank of TEST (default: its first; --rank R picks CONTROL's)" },
    { "iteration", "N|all", "ProfilerStep of CONTROL (default: its first; all = whole trace)" },
    { "test-iteration", "N|all", "ProfilerStep of TEST (default: its first)" },
    { "device", "cpu|gpu|all", "events in 'ops' (default all; HTA: cpu = stream -1)" },
    { "short-names", NULL, "'ops' and side_by_side's kernels by HTA's short name" },
    { "labels", "A,B", "names of the two runs in column names (default Control,Test)" },
    { "by", "kernel|category|op", "key of 'side_by_side' (default kernel)" },
    { "rules", "FILE", "kernel category rules to add (docs/categories.md)" },
    { NULL, NULL, NULL },
};
static const char *const diff_tables[] = { "ops", "ops_diff", "side_by_side", "tree", "kernels", NULL };
static const char *const diff_raw_tables[] = { "ops", "ops_diff", "side_by_side", "tree", "kernels", NULL };

static void diff_init(void *state)
{
    ((diff_state *)state)->o = kt_diff_defaults();
}

static int pick(const char *opt, const char *v, const char *const *keys, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, keys[i])) return i;
    fprintf(stderr, "kineta diff: --%s must be one of:", opt);
    for (int i = 0; i < n; i++) fprintf(stderr, " %s", keys[i]);
    fprintf(stderr, "\n");
    return -1;
}

static bool parse_iteration(const char *opt, const char *v, int64_t *out)
{
    long long x;
    if (!strcmp(v, "all")) {
        *out = KT_DIFF_WHOLE;
        return true;
    }
    if (!cli_parse_int(opt, v, 0, INT64_MAX, &x)) return false;
    *out = x;
    return true;
}

static int diff_parse(void *state, const char *name, const char *v)
{
    static const char *const devices[] = { "all", "cpu", "gpu" }, *const keys[] = { "kernel", "category", "op" };
    diff_state *s = state;
    long long x;
    int c;
    if (!strcmp(name, "test-rank")) {
        if (!cli_parse_int(name, v, 0, 1 << 30, &x)) return 2;
        s->o.test_rank = (int)x;
    } else if (!strcmp(name, "iteration")) {
        if (!parse_iteration(name, v, &s->o.control_iteration)) return 2;
    } else if (!strcmp(name, "test-iteration")) {
        if (!parse_iteration(name, v, &s->o.test_iteration)) return 2;
    } else if (!strcmp(name, "device")) {
        if ((c = pick(name, v, devices, 3)) < 0) return 2;
        s->o.device = (kt_diff_device)c;
    } else if (!strcmp(name, "by")) {
        if ((c = pick(name, v, keys, 3)) < 0) return 2;
        s->o.by = (kt_diff_key)c;
    } else if (!strcmp(name, "short-names")) {
        s->o.short_names = 1;
    } else if (!strcmp(name, "labels")) {
        if (!cli_parse_pair(name, v, s->labels, sizeof s->labels, &s->o.control_label, &s->o.test_label)) return 2;
    } else if (!strcmp(name, "rules")) {
        s->rules = v;
    }
    return 0;
}

static kt_status diff_run(const cli_ctx *ctx, const kt_trace *control, const kt_trace *test, void *state,
                          kt_tables **out)
{
    diff_state *s = state;
    kt_categorizer *cat = NULL;
    if (ctx->sel.nranks > 1) {
        cli_fail("diff", "--rank takes one rank (CONTROL's)");
        return KT_EUSAGE;
    }
    if (ctx->sel.nranks == 1) s->o.control_rank = ctx->sel.ranks[0];
    s->o.hta_compat = ctx->hta_compat;
    kt_status st = cli_load_categorizer(s->rules, &cat);
    if (st != KT_OK) return st;
    s->o.categorizer = cat;
    kt_diags *why = NULL;
    st = kt_diff(control, test, &s->o, out, &why);
    cli_fail_diags("diff", NULL, why);
    kt_categorizer_free(cat);
    return st;
}

/* ---- the merged tree as text, like TraceLens's merged_tree_output ------- */
static void print_side(const kt_table *t, size_t r, long count, long cpu, long gpu, FILE *f)
{
    fprintf(f, "%lldx cpu %.1f gpu %.1f", (long long)kt_table_int(t, r, (size_t)count),
            kt_table_float(t, r, (size_t)cpu), kt_table_float(t, r, (size_t)gpu));
}

#define MAX_INDENT 40 /* deeper nodes say their depth instead of indenting */
static void print_tree_text(const kt_table *t, size_t nrows, FILE *f)
{
    long status = kt_table_col_index(t, "status"), name = kt_table_col_index(t, "name"),
         tname = kt_table_col_index(t, "test_name"), depth = kt_table_col_index(t, "depth"),
         delta = kt_table_col_index(t, "delta_gpu_us");
    fprintf(f, "== tree (%zu nodes): [=] matched [-] only control [+] only test; "
               "each run: calls, cpu us, gpu us (launched under the node)\n",
            kt_table_nrows(t));
    for (size_t r = 0; r < nrows; r++) {
        const char *st = kt_table_str(t, r, (size_t)status);
        char mark = st[0] == 'm' ? '=' : !strcmp(st, "only-control") ? '-' : '+';
        int64_t d = kt_table_int(t, r, (size_t)depth);
        if (d > MAX_INDENT) fprintf(f, "%*s(depth %lld) ", 2 * MAX_INDENT, "", (long long)d);
        else fprintf(f, "%*s", (int)(2 * d), "");
        fprintf(f, "[%c] %s", mark, kt_table_str(t, r, (size_t)name));
        if (mark == '=' && strcmp(kt_table_str(t, r, (size_t)tname), kt_table_str(t, r, (size_t)name)))
            fprintf(f, " | %s", kt_table_str(t, r, (size_t)tname));
        fputs("  (", f);
        if (mark != '+') print_side(t, r, 6, 8, 10, f);
        if (mark == '=') fputs(" | ", f);
        if (mark != '-') print_side(t, r, 7, 9, 11, f);
        fprintf(f, ") delta gpu %+.1f\n", kt_table_float(t, r, (size_t)delta));
    }
}

/* Table format: the tree drawn, the other tables as usual. */
static bool diff_print_text(const kt_table *t, size_t nrows, FILE *f)
{
    if (strcmp(kt_table_name(t), "tree")) return false;
    print_tree_text(t, nrows, f);
    return true;
}

const cli_command cmd_diff = {
    .name = "diff",
    .summary = "what changed between two runs: ops, kernels and merged call trees (HTA TraceDiff+)",
    .description = "CONTROL and TEST are each a trace file or directory; one rank and one\n"
                   "iteration of each is compared (default: first rank, first ProfilerStep;\n"
                   "traces without ProfilerStep are compared whole).  ops/ops_diff are HTA's\n"
                   "compare_traces/ops_diff (--hta-compat: HTA's numbers); side_by_side is GPU\n"
                   "time per --by key sorted by |delta|; tree merges the two call trees\n"
                   "(children aligned by edit distance on normalised names, e.g. cudaLaunchKernel\n"
                   "= hipLaunchKernel) with each run's GPU time; kernels lists each merged\n"
                   "node's kernels per run.  Times in us.",
    .options = diff_options,
    .tables = diff_tables,
    .raw_tables = diff_raw_tables,
    .state_size = sizeof(diff_state),
    .init = diff_init,
    .parse = diff_parse,
    .run_pair = diff_run,
    .print_text = diff_print_text,
};
