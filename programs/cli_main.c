/*
 * cli_main.c — `kineta <command> [options] PATH...`: dispatch to a command.
 *
 * Outside main.c so that the Python package's library has the whole CLI
 * too: `python3 -m kineta ARGS` is this function, with no second binary to
 * build or install beside the library.
 */
#include "cli.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "kineta %s — fast analysis of PyTorch profiler (Kineto) traces\n\n"
               "usage: kineta <command> [options] PATH...\n"
               "       kineta help <command>\n\n"
               "PATH is a trace file (.json or .json.gz, one per rank) or a directory of them.\n\n"
               "commands:\n",
            KINETA_VERSION);
    for (size_t i = 0; kt_commands[i]; i++)
        fprintf(f, "  %-12s %s\n", kt_commands[i]->name, kt_commands[i]->summary);
    fprintf(f, "\noptions of every command:\n");
    cli_print_common_options(f);
    fprintf(f, "\nexit codes: 0 ok, 1 analysis error (or nothing selected), 2 usage error,\n"
               "3 input unreadable (or output not writable)\n");
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; kt_commands[i]; i++)
        if (!strcmp(name, kt_commands[i]->name)) return kt_commands[i];
    return NULL;
}

int kt_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        const cli_command *cmd = argc > 2 ? find_command(argv[2]) : NULL;
        char help[] = "--help", *args[] = { help, NULL };
        if (cmd) return cli_run_command(cmd, 1, args);
        if (argc > 2) {
            fprintf(stderr, "kineta: unknown command '%s' (see kineta --help)\n", argv[2]);
            return 2;
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("kineta %s\n", KINETA_VERSION);
        return 0;
    }
    const cli_command *cmd = find_command(argv[1]);
    if (cmd) return cli_run_command(cmd, argc - 2, argv + 2);
    fprintf(stderr, "kineta: unknown command '%s' (see kineta --help)\n", argv[1]);
    return 2;
}
