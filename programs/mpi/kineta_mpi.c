/*
 * kineta_mpi.c — `mpirun -n P kineta-mpi <command> [options] PATH...`: the
 * CLI with its ranks spread over MPI processes (`make mpi`).
 *
 * A job of a thousand 1 GB ranks fits no single machine; every process lists
 * the same files, maps the ones assigned to it (balanced by size), and only
 * the partial tables travel, to process 0, which reduces and prints exactly
 * what the single-process run prints (programs/cli_stream.c).  Commands that
 * do not stream run on process 0 alone, as the plain CLI would.  Kept out of the
 * plain sources (programs/ itself) so that plain builds stay MPI-free.
 */
#include "cli.h"
#include "cli_stream.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int mpi_gather(const unsigned char *mine, size_t len, unsigned char **all, size_t *lens)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long n = len, *ns = rank == 0 ? calloc((size_t)size, sizeof *ns) : NULL;
    if (rank == 0 && !ns) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(&n, 1, MPI_UNSIGNED_LONG_LONG, ns, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int *counts = NULL, *displs = NULL, bad = len > INT_MAX;
    unsigned long long total = 0;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
        for (int p = 0; p < size; p++) {
            bad |= ns[p] > INT_MAX || total + ns[p] > INT_MAX; /* MPI counts are int */
            lens[p] = (size_t)ns[p];
            if (counts && displs && !bad) {
                counts[p] = (int)ns[p];
                displs[p] = (int)total;
            }
            total += ns[p];
        }
        *all = malloc(total ? total : 1);
        if (!counts || !displs || !*all) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!bad)
        MPI_Gatherv(mine, (int)len, MPI_UNSIGNED_CHAR, rank == 0 ? *all : NULL, counts, displs, MPI_UNSIGNED_CHAR,
                    0, MPI_COMM_WORLD);
    else if (rank == 0)
        fprintf(stderr, "kineta: partial results over 2 GiB cannot be gathered in one message\n");
    free(ns);
    free(counts);
    free(displs);
    return bad;
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; kt_commands[i]; i++)
        if (!strcmp(name, kt_commands[i]->name)) return kt_commands[i];
    return NULL;
}

/* Open MPI gives processes a pseudo-terminal for stdout, which would make
 * the default format the terminal's table; under MPI streamed commands
 * default to CSV, as `kineta ... > file` (--format still chooses).  Not the
 * others: kernels and gaps read "no --format" as "-o writes a report".    */
static bool format_given(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strncmp(argv[i], "--format", 8)) return true;
    return false;
}

/* cmd with argv[2..argc), CSV by default when it streams. */
static int run_command(const cli_command *cmd, int argc, char **argv)
{
    char **args = calloc((size_t)argc + 1, sizeof *args);
    char csv[] = "--format=csv";
    int n = 0;
    if (!args) return 1;
    if (cli_streams(cmd) && !format_given(argc, argv)) args[n++] = csv;
    for (int i = 2; i < argc; i++) args[n++] = argv[i];
    int rc = cli_run_command(cmd, n, args);
    free(args);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    stream_group g = { .gather = mpi_gather };
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    cli_stream_set_group(&g);
    const cli_command *cmd = argc >= 2 ? find_command(argv[1]) : NULL;
    int rc = 2;
    if (!cmd && g.rank == 0)
        fprintf(stderr, "usage: mpirun -n P kineta-mpi <command> [options] PATH... (commands: kineta --help)\n");
    if (cmd && g.rank != 0 && !freopen("/dev/null", "w", stdout)) rc = 1; /* process 0 prints */
    else if (cmd && (cli_streams(cmd) || g.rank == 0)) rc = run_command(cmd, argc, argv);
    else if (cmd) rc = 0; /* a command that does not stream runs on process 0 */
    MPI_Finalize();
    return rc;
}
