/*
 * cli_run.c — running the built `kineta` binary from a test (cli_run.h).
 */
#include "cli_run.h"
#include "test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *kt_cli_bin(void)
{
    const char *b = getenv("KINETA_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

/* Run `$KINETA_BIN ARGS REDIRECT`, what it writes to the pipe into out. */
__attribute__((format(printf, 4, 0))) static int run_captured(char *out, size_t cap, const char *redirect,
                                                               const char *fmt, va_list ap)
{
    char args[2048], cmd[4096];
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(cmd, sizeof cmd, "%s %s %s", kt_cli_bin(), args, redirect);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int kt_cli_run_out(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run_captured(out, cap, "2>/dev/null", fmt, ap);
    va_end(ap);
    return rc;
}

int kt_cli_run_err(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run_captured(out, cap, "2>&1 >/dev/null", fmt, ap);
    va_end(ap);
    return rc;
}

const char *kt_test_python(void)
{
    const char *p = getenv("KINETA_PYTHON");
    if (p && *p) return p;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

bool kt_test_openpyxl(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c 'import openpyxl' >/dev/null 2>&1", kt_test_python());
    if (system(cmd) == 0) return true;
    kt_test_skip("python3 with openpyxl not found (apt-get install python3-openpyxl)");
    return false;
}

void kt_test_check_script(const char *script)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh tests/%s 2>&1", script);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p) return;
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) fprintf(stderr, "%s: %s\n", script, out);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(strstr(out, "ok") != NULL);
}
