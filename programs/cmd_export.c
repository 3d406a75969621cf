/*
 * cmd_export.c — `kineta export --sqlite FILE`: the trace and its main
 * analysis tables as an SQLite database (schema: docs/sqlite.md).
 */
#include "cli.h"
#include "cli_checks.h"

#include <stdio.h>
#include <string.h>

static const cli_option export_options[] = {
    { "sqlite", "FILE", "write an SQLite database to FILE (replaced if it exists)" },
    { "no-events", NULL, "leave out the per-event table (launches, flows, steps stay)" },
    { NULL, NULL, NULL },
};
static const char *const export_tables[] = { "export", NULL };

typedef struct export_state {
    kt_sqlite_options o;
} export_state;

static void export_init(void *state)
{
    ((export_state *)state)->o = kt_sqlite_defaults();
}

static int export_parse(void *state, const char *name, const char *value)
{
    export_state *s = state;
    if (!strcmp(name, "sqlite")) {
        s->o.path = value;
        return cli_check_output_file("export", value); /* before the load, as -o FILE */
    }
    else if (!strcmp(name, "no-events")) s->o.no_events = 1;
    else return 2;
    return 0;
}

static kt_status export_run(const cli_ctx *ctx, const kt_trace *t, void *state, kt_tables **out)
{
    export_state *s = state;
    if (!s->o.path) {
        cli_fail("export", "--sqlite FILE is required");
        return KT_EUSAGE;
    }
    kt_diags *why = NULL;
    char prefix[4200];
    kt_status st = kt_export_sqlite(t, &ctx->sel, &s->o, out, &why);
    snprintf(prefix, sizeof prefix, "%s: ", s->o.path);
    cli_fail_diags("export", prefix, why);
    return st;
}

const cli_command cmd_export = {
    .name = "export",
    .summary = "write the trace and its main tables to an SQLite database (--sqlite FILE)",
    .description = "Tables: ranks, strings, events (one row per event, names through strings),\n"
                   "launches (call -> GPU event), flows, steps, counters, and the kernels,\n"
                   "temporal and idle analyses; views gpu_events, kernels_with_launch,\n"
                   "kernel_time_by_name.  Schema and example queries: docs/sqlite.md.",
    .options = export_options,
    .tables = export_tables,
    .state_size = sizeof(export_state),
    .init = export_init,
    .parse = export_parse,
    .run = export_run,
};
