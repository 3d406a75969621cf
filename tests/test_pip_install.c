/* test_pip_install.c — the Python package installed the way the README
 * says, with pip from a fresh clone into a venv (tests/pip_install_check.sh).
 * It compiles the library once more, so it needs Debian's python3-venv,
 * python3-pip, python3-setuptools and python3-pandas, and a git checkout. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *python(void)
{
    const char *p = getenv("KINETA_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

TEST(pip_install_from_a_clone)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -c 'import setuptools, venv, ensurepip, pandas' >/dev/null 2>&1 && "
             "%s -m pip --version >/dev/null 2>&1 && "
             "git rev-parse --git-dir >/dev/null 2>&1",
             python(), python());
    if (system(cmd) != 0) {
        kt_test_skip("needs a git checkout and python3 with venv, pip, setuptools, pandas "
                     "(apt-get install python3-venv python3-pip python3-setuptools python3-pandas)");
        return;
    }
    FILE *p = popen("sh tests/pip_install_check.sh 2>&1", "r");
    CHECK(p != NULL);
    if (!p) return;
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) fprintf(stderr, "pip_install_check.sh: %s\n", out);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strstr(out, "ok") != NULL);
}
