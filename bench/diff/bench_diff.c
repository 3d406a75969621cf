/*
 * bench_diff.c — kt_diff on two loaded traces, against the two loads.
 *
 * The budget for `kineta diff` is 2x the two loads; this loads
 * CONTROL and TEST one after the other (as the CLI does), timing each,
 * then times kt_diff of the first steps with our rules and with HTA's
 * (--hta-compat) and of the whole traces, and prints the ratio of load +
 * diff to the loads alone.  Built by
 * `make build/bench_diff`, run by bench/diff.sh.
 *
 * usage: bench_diff CONTROL TEST
 */
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static kt_trace *load(const char *path, double *secs)
{
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_diff: cannot load %s\n", path);
        kt_diags_free(fail);
        return NULL;
    }
    *secs = now() - t0;
    return t;
}

static double time_diff(const kt_trace *c, const kt_trace *t, int hta_compat, int64_t iteration, size_t *tree_rows)
{
    kt_diff_options o = kt_diff_defaults();
    o.hta_compat = hta_compat;
    o.control_iteration = o.test_iteration = iteration;
    kt_tables *ts = NULL;
    double t0 = now();
    kt_status st = kt_diff(c, t, &o, &ts, NULL);
    double secs = now() - t0;
    *tree_rows = st == KT_OK ? kt_table_nrows(kt_tables_find(ts, "tree")) : 0;
    if (st != KT_OK) fprintf(stderr, "bench_diff: kt_diff: %s\n", kt_status_str(st));
    kt_tables_free(ts);
    return secs;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_diff CONTROL TEST\n");
        return 2;
    }
    double lc = 0, lt = 0;
    kt_trace *c = load(argv[1], &lc), *t = c ? load(argv[2], &lt) : NULL;
    if (!c || !t) {
        kt_trace_free(c);
        return 1;
    }
    size_t rows = 0, whole_rows = 0;
    double d = time_diff(c, t, 0, KT_DIFF_FIRST_STEP, &rows), dh = time_diff(c, t, 1, KT_DIFF_FIRST_STEP, &rows);
    double dw = time_diff(c, t, 0, KT_DIFF_WHOLE, &whole_rows);
    printf("load control %.2f s, load test %.2f s, loads %.2f s\n", lc, lt, lc + lt);
    printf("diff first step: ours %.2f s (tree %zu nodes), --hta-compat %.2f s\n", d, rows, dh);
    printf("diff whole traces: ours %.2f s (tree %zu nodes)\n", dw, whole_rows);
    printf("loads + diff = %.2fx the loads (first step), %.2fx (whole traces)\n", (lc + lt + d) / (lc + lt),
           (lc + lt + dw) / (lc + lt));
    kt_trace_free(t);
    kt_trace_free(c);
    return 0;
}
