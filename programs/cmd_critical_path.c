/*
 * cmd_critical_path.c — `kineta critical-path [-o DIR]`: HTA's lightweight
 * critical path analysis (tables summary, breakdown, edges, graph, and
 * what_if with --what-if) and, with -o, the overlay trace written into DIR.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct cp_state {
    kt_critical_path_options o;
    bool no_overlay;
} cp_state;

static const cli_option cp_options[] = {
    { "annotation", "NAME", "region of interest: events whose name contains NAME (default ProfilerStep when "
                            "present, else the whole trace; \"\" = whole trace)" },
    { "instance", "N|A-B", "which instance(s) of the annotation, from 0 (default 0)" },
    { "what-if", "SPEC", "predict the path with edge classes rescaled: launch=0, cpu=0.5, comm=0, gpu=F, "
                         "kernel_gap=F; '+' combines, ',' separates scenarios" },
    { "only-critical", NULL, "overlay keeps only the critical complete events (and annotations)" },
    { "all-edges", NULL, "overlay draws every graph edge, not only the path's (not with --only-critical)" },
    { "no-overlay", NULL, "do not write the overlay trace even with -o DIR (none is written without -o)" },
    { NULL, NULL, NULL },
};
static const char *const cp_tables[] = { "summary", "breakdown", "edges", "graph", "what_if", "files", NULL };
static const char *const cp_raw_tables[] = { "breakdown", "edges", NULL };

static void cp_init(void *state)
{
    cp_state *s = state;
    s->o = kt_critical_path_defaults();
}

static bool parse_instance(const char *v, kt_critical_path_options *o)
{
    char *end;
    long long a = strtoll(v, &end, 10), b = a;
    if (end == v || a < 0) return false;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtoll(s, &end, 10);
        if (end == s || b < a) return false;
    }
    if (*end) return false;
    o->instance_first = a;
    o->instance_last = b;
    return true;
}

static int cp_parse(void *state, const char *name, const char *value)
{
    cp_state *s = state;
    if (!strcmp(name, "annotation")) s->o.annotation = value;
    else if (!strcmp(name, "what-if")) s->o.what_if = value;
    else if (!strcmp(name, "only-critical")) s->o.only_critical = 1;
    else if (!strcmp(name, "all-edges")) s->o.all_edges = 1;
    else if (!strcmp(name, "no-overlay")) s->no_overlay = true;
    else if (!strcmp(name, "instance") && !parse_instance(value, &s->o)) {
        fprintf(stderr, "kineta critical-path: --instance wants N or A-B (A <= B), not \"%s\"\n", value);
        return 2;
    } else if (strcmp(name, "instance")) {
        return 2;
    }
    return 0;
}

static kt_status cp_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    cp_state *s = state;
    s->o.out_dir = s->no_overlay ? NULL : ctx->out_path; /* no -o: the tables only */
    kt_diags *why = NULL;
    kt_status st = kt_critical_path(t, &ctx->sel, &s->o, out, &why);
    cli_fail_diags("critical-path", NULL, why);
    return st;
}

const cli_command cmd_critical_path = {
    .name = "critical-path",
    .summary = "critical path through CPU ops, launches and GPU events, what bounds it (HTA)",
    .description = "HTA's lightweight critical path analysis: a graph of op/call/kernel start and end\n"
                   "points with operator, dependency, launch-delay, kernel-kernel and sync edges, and\n"
                   "its longest path over one ProfilerStep (or --annotation/--instance).  Tables:\n"
                   "summary (bound_by -> % of the path), breakdown and edges (the path), graph, and\n"
                   "what_if (--what-if launch=0: the path again with launch delays free).  With -o DIR\n"
                   "the overlay DIR/overlaid_critical_path_<file> marks the path (args.critical,\n"
                   "arrows of cat critical_path) for Perfetto.  --hta-compat reproduces HTA's\n"
                   "results exactly.",
    .options = cp_options,
    .tables = cp_tables,
    .raw_tables = cp_raw_tables,
    .state_size = sizeof(cp_state),
    .init = cp_init,
    .parse = cp_parse,
    .run = cp_run,
    .output_dir = true,
    .output_dir_optional = true, /* without it: the tables, no overlay */
};
