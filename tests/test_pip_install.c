/* test_pip_install.c — the Python package installed the way the README
 * says, with pip from a fresh clone into a venv (tests/pip_install_check.sh).
 * It compiles the library once more, so it needs Debian's python3-venv,
 * python3-pip, python3-setuptools and python3-pandas, and a git checkout. */
#include "cli_run.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

TEST(pip_install_from_a_clone)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -c 'import setuptools, venv, ensurepip, pandas' >/dev/null 2>&1 && "
             "%s -m pip --version >/dev/null 2>&1 && "
             "git rev-parse --git-dir >/dev/null 2>&1",
             kt_test_python(), kt_test_python());
    if (system(cmd) != 0) {
        kt_test_skip("needs a git checkout and python3 with venv, pip, setuptools, pandas "
                     "(apt-get install python3-venv python3-pip python3-setuptools python3-pandas)");
        return;
    }
    kt_test_check_script("pip_install_check.sh");
}
