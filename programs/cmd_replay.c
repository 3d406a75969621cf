/*
 * cmd_replay.c — `kineta replay`: ops picked from the perf tables written
 * as a replay IR (JSON) and standalone PyTorch scripts that re-run them
 * from their recorded shapes (TraceLens's EventReplay).
 */
#include "cli.h"
#include "output/replay_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct replay_state {
    kt_replay_options o;
    const char *spec_path;
} replay_state;

static const cli_option replay_options[] = {
    { "op", "PATTERN", "ops whose name matches (a glob; a plain word matches as a substring)" },
    { "top", "N", "the first N rows of perf's headroom table (time lost against the roofline)" },
    { "group", "ID", "the ops_unique_args row whose first_event is ID (kineta perf --table ops_unique_args)" },
    { "device-spec", "FILE",
      "peak TFLOP/s and bandwidth for --top's headroom from TraceLens's arch JSON instead of the built-in table" },
    { NULL, NULL, NULL },
};
static const char *const replay_tables[] = { "replay_ops", "replay_args", "replay_kernels", NULL };

static void replay_init(void *state)
{
    replay_state *s = state;
    s->o = kt_replay_defaults();
    s->spec_path = NULL;
}

static int replay_parse(void *state, const char *name, const char *value)
{
    replay_state *s = state;
    long long v;
    if (!strcmp(name, "op")) s->o.op = value;
    else if (!strcmp(name, "top") && cli_parse_int(name, value, 1, 1000000000, &v)) s->o.top = (size_t)v;
    else if (!strcmp(name, "group") && cli_parse_int(name, value, 0, 4294967295LL, &v)) s->o.group = v;
    else if (!strcmp(name, "device-spec")) s->spec_path = value;
    else return 2;
    return 0;
}

/* Ops the IR cannot express, said on stderr (the IR lists them too). */
static void say_not_replayable(const kt_tables *ts)
{
    const kt_table *ops = kt_tables_find(ts, "replay_ops");
    for (size_t r = 0; ops && r < kt_table_nrows(ops); r++)
        if (!kt_table_int(ops, r, 11))
            fprintf(stderr, "kineta replay: op %lld (%s, event %lld) not replayable: %s\n",
                    (long long)kt_table_int(ops, r, 0), kt_table_str(ops, r, 1), (long long)kt_table_int(ops, r, 3),
                    kt_table_str(ops, r, 12));
}

static kt_status replay_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    replay_state *s = state;
    kt_replay_options o = s->o;
    char *spec = NULL;
    if (s->spec_path && !(spec = cli_read_device_spec("replay", s->spec_path))) return KT_EUSAGE;
    o.device_spec = spec;
    kt_diags *why = NULL;
    kt_status st = kt_replay_ir(t, &ctx->sel, &o, out, &why);
    free(spec);
    /* with a spec, KT_EUSAGE is the spec's fault unless --group found no row */
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "--device-spec %s: ", s->spec_path ? s->spec_path : "");
    cli_fail_diags("replay", spec && st == KT_EUSAGE && o.group < 0 ? prefix : NULL, why);
    if (st != KT_OK) return st;
    if (!ctx->quiet) say_not_replayable(*out);
    if (!ctx->out_path) return KT_OK;
    char err[4400] = "";
    size_t nfiles;
    st = kt_replay_write(*out, ctx->paths[0], ctx->out_path, &nfiles, err, sizeof err);
    if (st != KT_OK && st != KT_ENOMEM) cli_fail("replay", "-o %s: %s", ctx->out_path, err);
    else if (st == KT_OK && !ctx->quiet)
        fprintf(stderr, "kineta replay: %zu files in %s (run %s/replay_all.py)\n", nfiles, ctx->out_path,
                ctx->out_path);
    return st;
}

const cli_command cmd_replay = {
    .name = "replay",
    .summary = "write ops' recorded shapes as a replay IR and PyTorch scripts that re-run them (TraceLens EventReplay)",
    .description = "Picks ops from the perf tables (default: every row of the roofline sheets;\n"
                   "--op, --top, --group) and gives each one's ATen arguments as recorded (shapes,\n"
                   "strides, dtypes, scalars, lists, None) and the kernels it launched.  With\n"
                   "-o DIR also writes DIR/replay_ir.json, a script per op and replay_all.py:\n"
                   "random inputs of the recorded layout, the op called through torch.ops,\n"
                   "timed beside the trace's time.  Details: docs/perf.md.",
    .options = replay_options,
    .tables = replay_tables,
    .state_size = sizeof(replay_state),
    .init = replay_init,
    .parse = replay_parse,
    .run = replay_run,
    .output_dir = true,
    .output_dir_optional = true,
};
