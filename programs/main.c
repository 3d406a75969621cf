/*
 * main.c — `kineta <command> [options] PATH...`: dispatch to a command.
 */
#include "cli.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "kineta %s — fast analysis of PyTorch profiler (Kineto) traces\n\n"
               "usage: kineta <command> [options] PATH...\n"
               "       kineta <command> --help\n\n"
               "PATH is a trace file (.json or .json.gz, one per rank) or a directory of them.\n\n"
               "commands:\n",
            KINETA_VERSION);
    for (size_t i = 0; kt_commands[i]; i++)
        fprintf(f, "  %-12s %s\n", kt_commands[i]->name, kt_commands[i]->summary);
    fprintf(f, "\nexit codes: 0 ok, 1 analysis error, 2 usage error, 3 input unreadable\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("kineta %s\n", KINETA_VERSION);
        return 0;
    }
    for (size_t i = 0; kt_commands[i]; i++)
        if (!strcmp(argv[1], kt_commands[i]->name))
            return cli_run_command(kt_commands[i], argc - 2, argv + 2);
    fprintf(stderr, "kineta: unknown command '%s' (see kineta --help)\n", argv[1]);
    return 2;
}
