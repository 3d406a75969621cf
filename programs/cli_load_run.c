/*
 * cli_load_run.c — a second run given by an option (report --baseline,
 * perf --compare), loaded with its failure said in the command's name.
 */
#include "cli.h"

kt_status cli_load_run(const char *command, const char *option, const char *path, kt_trace **out)
{
    kt_diags *failure = NULL;
    kt_status st = kt_load(&path, 1, NULL, out, &failure);
    if (st != KT_OK) {
        for (size_t i = 0; i < kt_diags_count(failure); i++)
            cli_fail(command, "--%s %s: %s", option, path, kt_diags_get(failure, i)->message);
        if (!kt_diags_count(failure)) cli_fail(command, "--%s %s: %s", option, path, kt_status_str(st));
    }
    kt_diags_free(failure);
    return st;
}
