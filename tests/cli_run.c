/*
 * cli_run.c — running the built `kineta` binary from a test (cli_run.h).
 */
#include "cli_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

const char *kt_cli_bin(void)
{
    const char *b = getenv("KINETA_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

int kt_cli_run_out(char *out, size_t cap, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", kt_cli_bin(), args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
