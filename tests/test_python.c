/* test_python.c — the Python package's own tests (bindings/python/tests),
 * run as one test of the suite so that the README's one test command runs
 * them: frames equal the CLI's tables, the HTA façade equals HTA's outputs,
 * the SQLite export round-trips.  They need Debian's python3-pandas; a
 * machine without it reports SKIP with the reason.                        */
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


static bool has_pandas(const char *py)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c 'import pandas, numpy' >/dev/null 2>&1", py);
    return system(cmd) == 0;
}

/* Runs cmd, its output on stderr; CHECKs exit 0.  A line "SKIP: why"
 * makes the test a skip with that reason.                                 */
static void run_logged(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p) return;
    char line[4096], skip[4096] = "";
    while (fgets(line, sizeof line, p)) {
        fputs(line, stderr);
        if (!strncmp(line, "SKIP: ", 6)) snprintf(skip, sizeof skip, "%s", line + 6);
    }
    int st = pclose(p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (*skip) {
        skip[strcspn(skip, "\n")] = '\0';
        kt_test_skip(skip);
    }
}

TEST(python_package)
{
    const char *py = kt_test_python();
    if (!has_pandas(py)) {
        kt_test_skip("python3 with pandas not found (apt-get install python3-pandas)");
        return;
    }
    const char *lib = getenv("KINETA_PYLIB");
    if (!lib || access(lib, R_OK) != 0) {
        kt_test_skip("KINETA_PYLIB not built (run make test)");
        return;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "KINETA_LIBRARY=%s %s -m unittest discover -s bindings/python/tests -t bindings/python/tests 2>&1",
             lib, py);
    run_logged(cmd);
}

/* docs/notebooks/ run end to end in a Jupyter kernel (tests/notebooks_check.py;
 * SKIP naming the Debian packages when nbclient, ipykernel ... are missing). */
TEST(python_notebooks)
{
    const char *py = kt_test_python();
    const char *lib = getenv("KINETA_PYLIB");
    if (!lib || access(lib, R_OK) != 0) {
        kt_test_skip("KINETA_PYLIB not built (run make test)");
        return;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "KINETA_LIBRARY=%s %s tests/notebooks_check.py 2>&1", lib, py);
    run_logged(cmd);
}
