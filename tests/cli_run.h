/*
 * cli_run.h — running the built `kineta` binary from a test: the CLI tests
 * of every command need the same two steps (find $KINETA_BIN, run it and
 * capture stdout), so they are written once.
 */
#ifndef KT_CLI_RUN_H
#define KT_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* $KINETA_BIN (set by `make test`) when it is an executable, else NULL. */
const char *kt_cli_bin(void);
/* Run `$KINETA_BIN ARGS` (stderr dropped), stdout into out (cap bytes,
 * NUL-terminated); returns the exit code, -1 when it did not exit.       */
int kt_cli_run_out(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with its stderr captured and its stdout dropped. */
int kt_cli_run_err(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The interpreter with Debian's packages (pandas, openpyxl):
 * $KINETA_PYTHON, else /usr/bin/python3 (a python3 earlier on PATH, e.g.
 * pyenv's, often lacks them), else python3.                              */
const char *kt_test_python(void);
/* Whether that python imports openpyxl; when not, the test is skipped
 * with the package to install.                                           */
bool kt_test_openpyxl(void);
/* Runs `sh tests/SCRIPT` and CHECKs that it exits 0 and prints "ok"; its
 * output goes to stderr when it does not.                                */
void kt_test_check_script(const char *script);

#endif
