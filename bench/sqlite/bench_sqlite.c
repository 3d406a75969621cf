/*
 * bench_sqlite.c — `kineta export --sqlite` on a loaded trace: the whole
 * export, the export without the events table, and from their difference
 * the events table's rate (rows per second, its indexes included).
 *   usage: bench_sqlite OUT_DIR TRACE   (medians of KINETA_BENCH_RUNS, 3)
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

/* The export runs on one thread: its CPU time is this process's after
 * loading, and it does not grow when other jobs share the machine.      */
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall and CPU seconds of an export. */
static void median_export(const kt_trace *t, const char *path, int no_events, int runs, double *wall, double *cpus)
{
    double w[16], c[16];
    for (int i = 0; i < runs; i++) {
        kt_sqlite_options o = { .size = sizeof o, .path = path, .no_events = no_events };
        kt_tables *ts = NULL;
        double t0 = now(), c0 = cpu();
        if (kt_export_sqlite(t, NULL, &o, &ts, NULL) != KT_OK) { fprintf(stderr, "export failed\n"); exit(1); }
        w[i] = now() - t0;
        c[i] = cpu() - c0;
        kt_tables_free(ts);
    }
    qsort(w, (size_t)runs, sizeof w[0], by_value);
    qsort(c, (size_t)runs, sizeof c[0], by_value);
    *wall = w[runs / 2];
    *cpus = c[runs / 2];
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: bench_sqlite OUT_DIR TRACE\n"); return 2; }
    const char *env = getenv("KINETA_BENCH_RUNS");
    int runs = env ? atoi(env) : 3;
    if (runs < 1 || runs > 16) runs = 3;
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    const char *path = argv[2];
    double t0 = now();
    if (kt_load(&path, 1, NULL, &t, &fail) != KT_OK) { fprintf(stderr, "cannot load %s\n", path); return 3; }
    double load = now() - t0;
    size_t events = 0;
    for (size_t i = 0; i < kt_trace_nranks(t); i++) events += kt_trace_nevents(t, i);
    char db[4096];
    snprintf(db, sizeof db, "%s/bench.db", argv[1]);
    double all, all_cpu, rest, rest_cpu;
    median_export(t, db, 0, runs, &all, &all_cpu);
    median_export(t, db, 1, runs, &rest, &rest_cpu);
    printf("load %.3f s, %zu events\n", load, events);
    printf("export --sqlite             %.3f s wall, %.3f s CPU (%.2fx load)\n", all, all_cpu, all / load);
    printf("export --sqlite --no-events %.3f s wall, %.3f s CPU\n", rest, rest_cpu);
    printf("events table                %.3f s wall = %.2f M events/s; %.3f s CPU = %.2f M events/s\n", all - rest,
           (double)events / (all - rest) / 1e6, all_cpu - rest_cpu, (double)events / (all_cpu - rest_cpu) / 1e6);
    remove(db);
    kt_trace_free(t);
    return 0;
}
