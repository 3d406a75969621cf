/*
 * bench_perf.c — `kineta perf` timed on a loaded trace, beside the load.
 *
 * Loads once, then runs the perf analysis (our own tables, with the trace's
 * device spec) and the --tracelens variant, best of RUNS each (wall and the
 * calling thread's CPU time; the very first run also builds the call tree
 * the loader leaves to first use, as `kineta perf` does), and prints what
 * was modelled so the figure can be checked to have done the work.
 * Built by `make build/bench_perf`, run by bench/perf.sh.
 *
 * usage: bench_perf PATH [RUNS]
 */
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* perf runs on the calling thread: its CPU time is the figure least
 * disturbed by other work on a shared machine. */
static double cpu(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static size_t rows(const kt_tables *ts, const char *name)
{
    const kt_table *t = kt_tables_find(ts, name);
    return t ? kt_table_nrows(t) : 0;
}

/* Calls summed over a table's calls/count column. */
static long long calls(const kt_tables *ts, const char *name, const char *col)
{
    const kt_table *t = kt_tables_find(ts, name);
    long c = t ? kt_table_col_index(t, col) : -1;
    long long n = 0;
    for (size_t i = 0; c >= 0 && i < kt_table_nrows(t); i++) n += kt_table_int(t, i, (size_t)c);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_perf PATH [RUNS]\n");
        return 2;
    }
    const char *path = argv[1];
    int runs = argc == 3 ? atoi(argv[2]) : 3;
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_perf: cannot load %s\n", path);
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0;
    printf("%-16s %8.3f s\n", "load", load);
    for (int tl = 0; tl < 2; tl++) {
        double best = 1e30, best_cpu = 1e30, first = 0;
        kt_tables *ts = NULL;
        for (int i = 0; i < runs; i++) {
            kt_tables_free(ts);
            ts = NULL;
            kt_perf_options o = kt_perf_defaults();
            o.tracelens = tl;
            double s = now(), c = cpu();
            if (kt_perf(t, NULL, &o, &ts, NULL) != KT_OK) {
                fprintf(stderr, "bench_perf: perf failed\n");
                return 1;
            }
            s = now() - s;
            c = cpu() - c;
            if (i == 0) first = s;
            best = s < best ? s : best;
            best_cpu = c < best_cpu ? c : best_cpu;
        }
        printf("%-16s %8.3f s  (%.2fx load; CPU %.3f s; first run %.3f s)  %lld op calls in ops_summary, "
               "%lld GEMM calls, %zu unified rows, %zu headroom rows\n",
               tl ? "perf --tracelens" : "perf", best, best / load, best_cpu, first,
               calls(ts, "ops_summary", tl ? "Count" : "calls"),
               calls(ts, "GEMM", tl ? "name_count" : "calls"), rows(ts, "unified_perf_summary"), rows(ts, "headroom"));
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    return 0;
}
