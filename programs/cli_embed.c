/*
 * cli_embed.c — the CLI's commands run on a trace that is already loaded,
 * for bindings.
 *
 * The Python package loads a trace once and runs many analyses on it.  It
 * calls each command exactly as the CLI does — the same option names,
 * parsers and defaults, the same tables — so a DataFrame always equals
 * what `kineta CMD --format csv` prints, and a command added to the CLI is
 * in Python the moment it is registered, with nothing to keep in sync.
 * The checks the CLI makes around a command (its output path, the ranks and
 * step asked for) are made here too, and what a command says on stderr
 * when it fails becomes the caller's message: a notebook shows the
 * exception, not the kernel's stderr.
 */
#include "cli.h"
#include "cli_checks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

const char *kt_cli_command_description(size_t i)
{
    return i < kt_cli_ncommands() ? kt_commands[i]->description : NULL;
}

const char *kt_cli_command_option(size_t i, size_t j, const char **arg, const char **help)
{
    if (i >= kt_cli_ncommands()) return NULL;
    const cli_option *o = kt_commands[i]->options;
    for (size_t k = 0; o && o->name && k < j; k++) o++;
    if (!o || !o->name) return NULL;
    *arg = o->arg;
    *help = o->help;
    return o->name;
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

/* stderr (fd 2) goes to a temporary file while a command runs: what the
 * command prints is its failure's explanation.  fd 2 is the process's, so
 * one command at a time is captured (commands run from several threads
 * take turns here).                                                        */
typedef struct capture {
    FILE *tmp;
    int saved;
} capture;

static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

static void capture_begin(capture *c)
{
    pthread_mutex_lock(&capture_lock);
    fflush(stderr);
    c->tmp = tmpfile();
    c->saved = c->tmp ? dup(STDERR_FILENO) : -1;
    if (c->saved >= 0 && dup2(fileno(c->tmp), STDERR_FILENO) >= 0) return;
    if (c->saved >= 0) close(c->saved);
    if (c->tmp) fclose(c->tmp);
    c->tmp = NULL; /* not captured: messages stay on stderr */
}

/* Restores stderr; the captured text goes to message (cap bytes, the start
 * of it when longer) on failure, back to stderr otherwise.                */
static void capture_end(capture *c, bool failed, char *message, size_t cap)
{
    if (c->tmp) {
        fflush(stderr);
        dup2(c->saved, STDERR_FILENO);
        close(c->saved);
        rewind(c->tmp);
        char buf[4096];
        size_t n, kept = 0;
        while ((n = fread(buf, 1, sizeof buf, c->tmp)) > 0) {
            if (!failed) fwrite(buf, 1, n, stderr);
            for (size_t k = 0; failed && k < n && kept + 1 < cap; k++) message[kept++] = buf[k];
        }
        if (cap) message[kept] = '\0';
        fclose(c->tmp);
    }
    pthread_mutex_unlock(&capture_lock);
}

/* The CLI's checks (cli_checks.h) and then the command: 0 or an exit code. */
static kt_status run_checked(const cli_command *cmd, const cli_ctx *ctx, const kt_trace *t, const kt_trace *test,
                             void *state, kt_tables **out)
{
    if (!cmd->run_pair != !test) {
        fprintf(stderr, "kineta %s: %s\n", cmd->name, test ? "takes one trace" : "compares two traces (CONTROL TEST)");
        return KT_EUSAGE;
    }
    if (cmd->output_dir && !cmd->output_dir_optional && !ctx->out_path) {
        fprintf(stderr, "kineta %s: an output directory is required\n", cmd->name);
        return KT_EUSAGE;
    }
    int rc = cli_check_output(cmd, ctx->out_path);
    if (!rc && !test) rc = cli_check_selection(cmd, ctx, t, state);
    if (rc) return (kt_status)rc;
    return test ? cmd->run_pair(ctx, t, test, state, out) : cmd->run(ctx, t, state, out);
}

kt_status kt_cli_run(const kt_trace *t, const kt_trace *test, const char *name, const char *const *names,
                     const char *const *values, size_t nopts, const int *ranks, size_t nranks, const char *out_path,
                     int verbose, int hta_compat, kt_tables **out, char *message, size_t cap)
{
    *out = NULL;
    if (cap) message[0] = '\0';
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        snprintf(message, cap, "kineta: no command '%s'", name);
        return KT_EUSAGE;
    }
    void *state = calloc(1, cmd->state_size + 1);
    if (!state) return KT_ENOMEM;
    if (cmd->init) cmd->init(state);
    cli_ctx ctx = { .format = FMT_CSV, .format_given = true, .out_path = out_path,
                    .sel = { .ranks = ranks, .nranks = nranks }, .hta_compat = hta_compat < 0 ? kt_trace_hta_compat(t) : hta_compat != 0,
                    .quiet = true, .verbose = verbose != 0 };
    capture c;
    capture_begin(&c);
    kt_status s = parse_options(cmd, state, names, values, nopts);
    if (s == KT_OK) s = run_checked(cmd, &ctx, t, test, state, out);
    if (s != KT_OK) cli_say_status(cmd->name, s);
    capture_end(&c, s != KT_OK, message, cap);
    free(state);
    return s;
}
