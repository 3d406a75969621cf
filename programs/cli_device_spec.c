/*
 * cli_device_spec.c — the file a --device-spec option names (perf, replay),
 * read whole for the library, which parses it (kt_perf_options and
 * kt_replay_options take the text, not a path).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cli_read_device_spec(const char *command, const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        cli_fail(command, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            char *p = cap <= (64u << 20) ? realloc(buf, cap) : NULL;
            if (!p) {
                cli_fail(command, "%s is too large for a device spec", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096) break;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}
