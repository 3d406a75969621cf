/*
 * cli_fail.c — failures a command explains itself.
 *
 * A command that knows why it failed ("--sqlite x.db: not a regular file")
 * says so; the driver's generic status line after it would only repeat it,
 * or mislead: an output that cannot be written returns KT_EINPUT (exit 3),
 * whose generic text is "input unreadable".  Whether the command explained
 * its failure is kept per thread (the Python package runs commands in its
 * own threads) until the driver asks.
 */
#include "cli.h"

#include <stdarg.h>

static _Thread_local bool explained;

void cli_fail(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (command) fprintf(stderr, "kineta %s: ", command);
    else fputs("kineta: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    explained = true;
}

void cli_fail_diags(const char *command, const char *prefix, kt_diags *d)
{
    for (size_t i = 0; i < kt_diags_count(d); i++)
        cli_fail(command, "%s%s", prefix ? prefix : "", kt_diags_get(d, i)->message);
    kt_diags_free(d);
}

bool cli_failure_explained(void)
{
    bool was = explained;
    explained = false;
    return was;
}

void cli_say_status(const char *command, kt_status st)
{
    if (st != KT_OK && !cli_failure_explained()) fprintf(stderr, "kineta %s: %s\n", command, kt_status_str(st));
}
