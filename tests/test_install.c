/* test_install.c — `make install` / `make uninstall` into a scratch prefix,
 * used the way users use it (tests/install_check.sh): a C program built
 * with pkg-config, the CLI, man page, completion, the Python package.     */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

TEST(install_and_uninstall)
{
    if (system("command -v pkg-config >/dev/null 2>&1") != 0) {
        kt_test_skip("pkg-config not installed (apt-get install pkg-config)");
        return;
    }
    FILE *p = popen("sh tests/install_check.sh 2>&1", "r");
    CHECK(p != NULL);
    if (!p) return;
    char out[4096] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) fprintf(stderr, "install_check.sh: %s\n", out);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strstr(out, "ok") != NULL);
}
