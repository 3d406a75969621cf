/*
 * read_check.c — helpers of the readers' tests (read_check.h).
 */
#include "read_check.h"
#include "fixture.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

void rd_same_tables(const kt_tables *a, const kt_tables *b)
{
    CHECK(a && b);
    if (!a || !b) return;
    for (size_t i = 0; kt_tables_get(a, i) || kt_tables_get(b, i); i++) {
        const kt_table *x = kt_tables_get(a, i), *y = kt_tables_get(b, i);
        CHECK(x && y);
        if (x && y) fx_check_same_table(x, y);
    }
}

void rd_same_answers(const kt_trace *a, const kt_trace *b)
{
    kt_tables *x = NULL, *y = NULL;
    kt_kernels_options ko = kt_kernels_defaults();
    ko.top = 0;
    CHECK_INT(kt_kernels(a, NULL, &ko, &x), KT_OK);
    CHECK_INT(kt_kernels(b, NULL, &ko, &y), KT_OK);
    rd_same_tables(x, y);
    kt_tables_free(x), kt_tables_free(y);
    kt_temporal_options to = kt_temporal_defaults();
    CHECK_INT(kt_temporal(a, NULL, &to, &x), KT_OK);
    CHECK_INT(kt_temporal(b, NULL, &to, &y), KT_OK);
    rd_same_tables(x, y);
    kt_tables_free(x), kt_tables_free(y);
    kt_idle_options io = { .size = sizeof io, .consecutive_kernel_delay_us = 30 };
    CHECK_INT(kt_idle(a, NULL, &io, &x), KT_OK);
    CHECK_INT(kt_idle(b, NULL, &io, &y), KT_OK);
    rd_same_tables(x, y);
    kt_tables_free(x), kt_tables_free(y);
    kt_launch_options lo = kt_launch_defaults();
    CHECK_INT(kt_launch(a, NULL, &lo, &x), KT_OK);
    CHECK_INT(kt_launch(b, NULL, &lo, &y), KT_OK);
    rd_same_tables(x, y);
    kt_tables_free(x), kt_tables_free(y);
}

bool rd_xplane_as_trace_json(const char *rel, char *pb, size_t pb_cap, char *json, size_t cap)
{
    const char *p = kt_test_shared_path(rel);
    if (!p) {
        kt_test_skip("../shared/traces/other/jax absent");
        return false;
    }
    snprintf(pb, pb_cap, "%s", p);
    snprintf(json, cap, "/tmp/kt_xla_trace_XXXXXX");
    int fd = mkstemp(json);
    if (fd < 0) return false;
    close(fd);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 tests/xplane_to_trace_json.py '%s' %s", pb, json);
    if (system(cmd) == 0) return true;
    kt_test_skip("python3 could not write the trace");
    unlink(json);
    return false;
}
