/*
 * test_stream_mpi.c — `mpirun -n 1..4 kineta-mpi` prints byte for byte what
 * the single-process `kineta` prints, for streamed and non-streamed
 * commands, and a damaged file on one process fails the job the same way
 * instead of hanging it.  SKIP when mpirun or build/kineta-mpi is missing.
 */
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* stdout of a shell command (malloc'd) and its exit code. */
static char *capture(const char *cmd, int *rc)
{
    FILE *p = popen(cmd, "r");
    size_t n = 0, cap = 1 << 16;
    char *out = malloc(cap);
    for (size_t got; p && out && (got = fread(out + n, 1, cap - n - 1, p)) > 0;) {
        n += got;
        if (n + 1 == cap) out = realloc(out, cap *= 2);
    }
    if (out) out[n] = '\0';
    int st = p ? pclose(p) : -1;
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

static bool have_mpi(const char **cli, const char **mpi, const char **synth)
{
    *cli = getenv("KINETA_CLI");
    *mpi = getenv("KINETA_MPI");
    *synth = getenv("KINETA_SYNTH");
    if (system("command -v mpirun > /dev/null 2>&1") != 0) {
        kt_test_skip("mpirun not installed");
        return false;
    }
    if (!*cli || !*mpi || !*synth || access(*mpi, X_OK) || access(*cli, X_OK) || access(*synth, X_OK)) {
        kt_test_skip("build/kineta-mpi not built (make mpi)");
        return false;
    }
    return true;
}

/* mpirun -n np kineta-mpi ARGS == kineta ARGS (stdout and exit code). */
static void check_np(const char *cli, const char *mpi, int np, const char *args, int want_rc)
{
    char a[2048], b[2048];
    snprintf(a, sizeof a, "%s %s 2>/dev/null", cli, args);
    snprintf(b, sizeof b, "mpirun --allow-run-as-root --oversubscribe -n %d %s %s 2>/dev/null", np, mpi, args);
    int ra, rb;
    char *oa = capture(a, &ra), *ob = capture(b, &rb);
    CHECK(oa && ob && (strlen(oa) > 0) == (want_rc == 0));
    if (oa && ob && strcmp(oa, ob)) kt_test_fail(__FILE__, __LINE__, "mpirun -n %d differs: %s", np, args);
    CHECK_INT(ra, want_rc);
    CHECK_INT(rb != 0, want_rc != 0); /* mpirun reports a failed job, code its own */
    free(oa);
    free(ob);
}

TEST(mpi_output_equals_single_process)
{
    const char *cli, *mpi, *synth;
    if (!have_mpi(&cli, &mpi, &synth)) return;
    char dir[] = "/tmp/kineta-test-mpi-XXXXXX", cmd[1024], args[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s --ranks 6 --size 200K --ns --gzip --seed 9 -o %s/job > /dev/null", synth, dir);
    CHECK_INT(system(cmd), 0);
    static const char *const cmds[] = { "info", "temporal", "idle", "queue", "annotations --hta-compat",
                                        "kernels", "kernels --by launcher --hta-compat", "categories",
                                        "breakdown --hta-compat", "gaps",
                                        "stragglers" /* not streamed: process 0 alone */ };
    for (int np = 1; np <= 4; np++)
        for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
            snprintf(args, sizeof args, "%s -q --format json %s/job", cmds[i], dir);
            check_np(cli, mpi, np, args, 0);
        }
    /* every other command that prints without writing files: process 0
     * alone or streamed, the same bytes at 2 processes                    */
    static const char *const rest[] = { "overlap", "launch", "memcpy-bw", "ops", "cupti", "memory",
                                        "critical-path --no-overlay", "collectives", "perf" };
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) {
        snprintf(args, sizeof args, "%s -q --format json %s/job", rest[i], dir);
        check_np(cli, mpi, 2, args, 0);
    }
    /* no --format: CSV, as the single process writing into a pipe */
    snprintf(args, sizeof args, "idle -q %s/job", dir);
    check_np(cli, mpi, 3, args, 0);
    /* a damaged file (a broken gzip) on one process: the job fails as the
     * single process does, and completes */
    snprintf(cmd, sizeof cmd, "printf '\\037\\213\\010garbage' > %s/job/rank-2.json.gz", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(args, sizeof args, "temporal -q --format json %s/job", dir);
    for (int np = 2; np <= 3; np++) check_np(cli, mpi, np, args, 3);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

/* Other profilers' files spread over processes as Kineto files are: a job
 * of an Nsight Systems export, an XLA profile and a rocprofv3 JSON file. */
TEST(mpi_other_formats_equal_single_process)
{
    const char *cli, *mpi, *synth;
    if (!have_mpi(&cli, &mpi, &synth)) return;
    char dir[] = "/tmp/kineta-test-mpi-XXXXXX", cmd[1024], args[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd,
             "cp fuzz/seeds/nsys_small.sqlite %s/rank0.sqlite && cp fuzz/seeds/small.xplane.pb %s/rank1.xplane.pb && "
             "cp fuzz/seeds/rocprof_results.json %s/rank2_results.json",
             dir, dir, dir);
    CHECK_INT(system(cmd), 0);
    static const char *const cmds[] = { "kernels", "temporal", "idle", "launch" };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        snprintf(args, sizeof args, "%s -q --format json %s", cmds[i], dir);
        check_np(cli, mpi, 2, args, 0);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}
