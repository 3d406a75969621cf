/*
 * cli_embed.c — the CLI's commands run on a trace that is already loaded,
 * for bindings.
 *
 * The Python package loads a trace once and runs many analyses on it.  It
 * calls each command exactly as the CLI does — the same option names,
 * parsers and defaults, the same tables — so a DataFrame always equals
 * what `kineta CMD --format csv` prints, and a command added to the CLI is
 * in Python the moment it is registered, with nothing to keep in sync.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t kt_cli_ncommands(void)
{
    size_t n = 0;
    while (kt_commands[n]) n++;
    return n;
}

const char *kt_cli_command_name(size_t i)
{
    return i < kt_cli_ncommands() ? kt_commands[i]->name : NULL;
}

const char *kt_cli_command_summary(size_t i)
{
    return i < kt_cli_ncommands() ? kt_commands[i]->summary : NULL;
}

int kt_cli_command_is_pair(size_t i)
{
    return i < kt_cli_ncommands() && kt_commands[i]->run_pair != NULL;
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; kt_commands[i]; i++)
        if (!strcmp(kt_commands[i]->name, name)) return kt_commands[i];
    return NULL;
}

static const cli_option *find_option(const cli_command *cmd, const char *name)
{
    for (const cli_option *o = cmd->options; o && o->name; o++)
        if (!strcmp(o->name, name)) return o;
    return NULL;
}

/* Each option through the command's own parser; a flag takes no value. */
static kt_status parse_options(const cli_command *cmd, void *state, const char *const *names,
                               const char *const *values, size_t nopts)
{
    for (size_t i = 0; i < nopts; i++) {
        const cli_option *o = find_option(cmd, names[i]);
        if (!o) {
            fprintf(stderr, "kineta %s: unknown option '%s'\n", cmd->name, names[i]);
            return KT_EUSAGE;
        }
        if (o->arg && !values[i]) {
            fprintf(stderr, "kineta %s: option '%s' needs a value (%s)\n", cmd->name, o->name, o->arg);
            return KT_EUSAGE;
        }
        int rc = cmd->parse(state, o->name, o->arg ? values[i] : NULL);
        if (rc > 0) return KT_EUSAGE;
    }
    return KT_OK;
}

kt_status kt_cli_run(const kt_trace *t, const kt_trace *test, const char *name, const char *const *names,
                     const char *const *values, size_t nopts, const int *ranks, size_t nranks, const char *out_path,
                     int verbose, int hta_compat, kt_tables **out)
{
    *out = NULL;
    const cli_command *cmd = find_command(name);
    if (!cmd) return KT_EUSAGE;
    if (!cmd->run_pair != !test) {
        fprintf(stderr, "kineta %s: %s\n", name, test ? "takes one trace" : "compares two traces (CONTROL TEST)");
        return KT_EUSAGE;
    }
    if (cmd->output_dir && !cmd->output_dir_optional && !out_path) {
        fprintf(stderr, "kineta %s: an output directory is required\n", name);
        return KT_EUSAGE;
    }
    void *state = calloc(1, cmd->state_size + 1);
    if (!state) return KT_ENOMEM;
    if (cmd->init) cmd->init(state);
    cli_ctx ctx = { .format = FMT_CSV, .format_given = true, .out_path = out_path,
                    .sel = { .ranks = ranks, .nranks = nranks }, .hta_compat = hta_compat < 0 ? kt_trace_hta_compat(t) : hta_compat != 0,
                    .quiet = true, .verbose = verbose != 0 };
    kt_status s = parse_options(cmd, state, names, values, nopts);
    if (s == KT_OK) s = test ? cmd->run_pair(&ctx, t, test, state, out) : cmd->run(&ctx, t, state, out);
    free(state);
    return s;
}
