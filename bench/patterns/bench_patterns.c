/*
 * bench_patterns.c — `kineta patterns` on a loaded trace: the tables alone
 * (ops picked, as with no --op; min_len 1), the tables with the overlay
 * copy, and
 * --mine; load time printed first to compare against.  Built by
 * `make build/bench_patterns`, run by bench/patterns.sh.
 *
 * usage: bench_patterns OUT_DIR PATH
 */
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of every thread: the box is shared, wall time alone misleads. */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static const char *out_dir;

/* min_len 1: the synthetic ops launch one kernel each, and every root
 * should go through the gathering. */
static kt_status tables(const kt_trace *t, kt_tables **ts)
{
    kt_patterns_options o = kt_patterns_defaults();
    o.min_len = 1;
    return kt_patterns(t, NULL, &o, ts, NULL);
}
static kt_status overlay(const kt_trace *t, kt_tables **ts)
{
    kt_patterns_options o = kt_patterns_defaults();
    o.min_len = 1;
    o.out_dir = out_dir;
    return kt_patterns(t, NULL, &o, ts, NULL);
}
static kt_status mine(const kt_trace *t, kt_tables **ts) { return kt_mine_sequences(t, NULL, NULL, ts); }

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_patterns OUT_DIR PATH\n");
        return 2;
    }
    out_dir = argv[1];
    const char *path = argv[2];
    double t0 = now(), c0 = cpu();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_patterns: cannot load %s\n", path);
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0, load_cpu = cpu() - c0;
    printf("%-18s %8.3f s  cpu %.3f s\n", "load", load, load_cpu);
    static const struct { const char *name; kt_status (*fn)(const kt_trace *, kt_tables **); } runs[] = {
        { "patterns", tables }, { "patterns+overlay", overlay }, { "mine", mine },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        kt_tables *ts = NULL;
        double s = now(), c = cpu();
        if (runs[i].fn(t, &ts) != KT_OK) {
            fprintf(stderr, "bench_patterns: %s failed\n", runs[i].name);
            return 1;
        }
        s = now() - s;
        c = cpu() - c;
        printf("%-18s %8.3f s  cpu %.3f s  (%.2fx load, cpu %.2fx)", runs[i].name, s, c, s / load, c / load_cpu);
        const kt_table *p = kt_tables_find(ts, "patterns");
        if (p) printf("  %zu patterns", kt_table_nrows(p));
        const kt_table *f = kt_tables_find(ts, "files");
        if (f) printf("  %.0f MB JSON written", (double)kt_table_int(f, 0, 6) / 1e6);
        printf("\n");
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    return 0;
}
