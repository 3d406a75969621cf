/*
 * cmd_stragglers.c — `kineta stragglers`: the rank that holds the others
 * back, with the numbers behind the verdict (HTA's answer with
 * --hta-compat).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct stragglers_state {
    kt_stragglers_options o;
    int64_t steps[64];
} stragglers_state;

static const cli_option stragglers_options[] = {
    { "candidates", "K", "HTA's num_candidates: ranks flagged per step (default 2)" },
    { "steps", "N[,N...]", "only these ProfilerSteps (default all)" },
    { "align", "MODE", "clock alignment for the arrival evidence: collectives (default), none, hta" },
    { "z", "Z", "robust z-score above which a rank's compute is slow (default 3.5)" },
    { "min-steps", "N", "ProfilerSteps a slow-compute verdict needs, else inconclusive (default 3)" },
    { "min-collectives", "N", "matched collectives an arrives-last verdict needs, else inconclusive (default 10)" },
    { "min-effect", "PCT", "excess over the ranks' median compute a slow-compute verdict needs (default 10)" },
    { NULL, NULL, NULL },
};
static const char *const stragglers_tables[] = { "verdict", "arrivals", "compute", "hta_stragglers", "hta_metric",
                                                 "stragglers", "metric", NULL };

static void stragglers_init(void *state)
{
    stragglers_state *s = state;
    s->o = kt_stragglers_defaults();
}

static int parse_steps(stragglers_state *s, const char *value)
{
    const char *p = value;
    s->o.nsteps = 0;
    while (*p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || s->o.nsteps == 64 || (*end && *end != ',')) {
            fprintf(stderr, "kineta: --steps takes up to 64 step numbers separated by commas (got '%s')\n", value);
            return 2;
        }
        s->steps[s->o.nsteps++] = v;
        p = *end ? end + 1 : end;
    }
    s->o.steps = s->steps;
    return 0;
}

static int stragglers_parse(void *state, const char *name, const char *value)
{
    stragglers_state *s = state;
    long long v;
    if (!strcmp(name, "candidates")) {
        if (!cli_parse_int(name, value, 1, 1 << 20, &v)) return 2;
        s->o.candidates = (int)v;
        return 0;
    }
    if (!strcmp(name, "steps")) return parse_steps(s, value);
    if (!strcmp(name, "z")) return cli_parse_double(name, value, &s->o.z_threshold) ? 0 : 2;
    if (!strcmp(name, "min-effect")) return cli_parse_double(name, value, &s->o.min_effect_pct) ? 0 : 2;
    if (!strcmp(name, "min-steps") || !strcmp(name, "min-collectives")) {
        if (!cli_parse_int(name, value, 1, 1 << 30, &v)) return 2;
        *(name[4] == 's' ? &s->o.min_steps : &s->o.min_collectives) = (size_t)v;
        return 0;
    }
    if (!strcmp(name, "align")) {
        if (!strcmp(value, "collectives")) s->o.align = KT_ALIGN_COLLECTIVES;
        else if (!strcmp(value, "none")) s->o.align = KT_ALIGN_NONE;
        else if (!strcmp(value, "hta")) s->o.align = KT_ALIGN_HTA;
        else {
            fprintf(stderr, "kineta: --align takes collectives, none or hta (got '%s')\n", value);
            return 2;
        }
        return 0;
    }
    return 2;
}

static kt_status stragglers_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    stragglers_state *s = state;
    return kt_stragglers(t, &ctx->sel, &s->o, out);
}

const cli_command cmd_stragglers = {
    .name = "stragglers",
    .summary = "the rank that holds the others back, with the evidence (HTA get_potential_stragglers)",
    .description = "verdict: a rank that arrives last at most collectives and waits least, and\n"
                   "ranks whose computation time per step is an outlier (robust z-score), with the\n"
                   "numbers behind each, \"inconclusive\" below --min-steps, --min-collectives or\n"
                   "--min-effect; its footnotes say what each table measures and why they can\n"
                   "disagree; arrivals and compute hold the evidence.  hta_stragglers and\n"
                   "hta_metric: HTA's metric with current NCCL names.  --hta-compat: HTA's answer\n"
                   "exactly (tables stragglers, metric).",
    .options = stragglers_options,
    .tables = stragglers_tables,
    .state_size = sizeof(stragglers_state),
    .init = stragglers_init,
    .parse = stragglers_parse,
    .run = stragglers_run,
};
