/*
 * read_check.c — helpers of the readers' tests (read_check.h).
 */
#include "read_check.h"

#include <stdio.h>

kt_trace *rd_load_path(const char *path, kt_status *st, kt_diags **fail)
{
    kt_trace *t = NULL;
    kt_diags *own = NULL;
    const char *paths[] = { path };
    *st = kt_load(paths, 1, NULL, &t, fail ? fail : &own);
    kt_diags_free(own);
    return t;
}

size_t rd_count_kind(const kt_rank *r, uint8_t k, int64_t *total)
{
    size_t n = 0;
    *total = 0;
    for (uint32_t i = 0; i < r->ev.n; i++)
        if (r->ev.kind[i] == k) n++, *total += r->ev.dur[i];
    return n;
}

bool rd_command_ints(const char *cmd, long long *v, int n)
{
    FILE *f = popen(cmd, "r");
    if (!f) return false;
    int got = 0;
    while (got < n && fscanf(f, "%lld", &v[got]) == 1) got++;
    return pclose(f) == 0 && got == n;
}
