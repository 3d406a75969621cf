/*
 * cmd_collectives.c — `kineta collectives`: communication kernels matched
 * across ranks, with latency, skew, wait and bandwidth per collective
 * (TraceLens NcclAnalyser), stragglers and the ranks' clock offsets.
 */
#include "cli.h"

#include <string.h>

static const cli_option collectives_options[] = {
    { "align", "MODE", "collectives (default: estimate clock offsets from collective ends), none, hta" },
    { "gpus-per-node", "N", "node id = rank / N: node_span and intra_node per collective" },
    { "tracelens", NULL, "TraceLens's semantics: match by position in the process group, no alignment" },
    { NULL, NULL, NULL },
};
static const char *const collectives_tables[] = { "implicit_sync", "summary", "all2allv", "all2allv_summary",
                                                  "all2allv_heatmap", "other", "stragglers", "unmatched",
                                                  "clock_offsets", "ranks", "kernels", NULL };
static const char *const collectives_raw_tables[] = { "implicit_sync", "all2allv", "other", "unmatched", "kernels", NULL };

static void collectives_init(void *state)
{
    *(kt_collectives_options *)state = kt_collectives_defaults();
}

/* --align MODE */
static int parse_align(const char *value, kt_align_mode *out)
{
    if (!strcmp(value, "collectives")) *out = KT_ALIGN_COLLECTIVES;
    else if (!strcmp(value, "none")) *out = KT_ALIGN_NONE;
    else if (!strcmp(value, "hta")) *out = KT_ALIGN_HTA;
    else {
        fprintf(stderr, "kineta: --align takes collectives, none or hta (got '%s')\n", value);
        return 2;
    }
    return 0;
}

static int collectives_parse(void *state, const char *name, const char *value)
{
    kt_collectives_options *o = state;
    long long v;
    if (!strcmp(name, "align")) return parse_align(value, &o->align);
    if (!strcmp(name, "gpus-per-node")) {
        if (!cli_parse_int(name, value, 1, 1 << 20, &v)) return 2;
        o->gpus_per_node = (int)v;
        return 0;
    }
    if (!strcmp(name, "tracelens")) {
        o->tracelens = 1;
        return 0;
    }
    return 2;
}

static kt_status collectives_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    return kt_collectives(t, &ctx->sel, state, out);
}

const cli_command cmd_collectives = {
    .name = "collectives",
    .summary = "collectives matched across ranks: latency, skew, wait, bandwidth, clock offsets (TraceLens)",
    .description = "Every NCCL/RCCL kernel of every rank with its metadata, matched across ranks by\n"
                   "(process group, Seq), else by position in the process group (TraceLens), else\n"
                   "by position on the stream.  implicit_sync: one row per allreduce / allgather /\n"
                   "reducescatter / alltoall with per-rank start, duration and wait; summary per\n"
                   "type x size x group; all2allv; other; stragglers; unmatched (never dropped);\n"
                   "clock_offsets estimated from collective ends (applied unless --align none).",
    .options = collectives_options,
    .tables = collectives_tables,
    .raw_tables = collectives_raw_tables,
    .state_size = sizeof(kt_collectives_options),
    .init = collectives_init,
    .parse = collectives_parse,
    .run = collectives_run,
};
