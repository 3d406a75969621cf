/* test_install.c — `make install` / `make uninstall` into a scratch prefix,
 * used the way users use it (tests/install_check.sh): a C program built
 * with pkg-config, the CLI, man page, completion, the Python package.     */
#include "cli_run.h"
#include "test.h"

#include <stdlib.h>

TEST(install_and_uninstall)
{
    if (system("command -v pkg-config >/dev/null 2>&1") != 0) {
        kt_test_skip("pkg-config not installed (apt-get install pkg-config)");
        return;
    }
    kt_test_check_script("install_check.sh");
}
