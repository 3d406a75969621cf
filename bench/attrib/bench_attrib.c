/*
 * bench_attrib.c — annotations, ops, cupti and memory on a loaded trace.
 *
 * Loads once and times each analysis on the loaded trace (the CLI would
 * reload per command), printing the load time beside them.  The call tree
 * is built by the first analysis that needs it (ops, cupti, memory), so
 * name one analysis to time it alone, as the CLI runs it.  Built by
 * `make build/bench_attrib`, run by bench/attrib.sh.
 *
 * usage: bench_attrib PATH [annotations|ops|cupti|memory]
 */
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static kt_status annotations(const kt_trace *t, kt_tables **ts) { return kt_annotations(t, NULL, NULL, ts); }
static kt_status ops(const kt_trace *t, kt_tables **ts) { return kt_ops(t, NULL, ts); }
static kt_status cupti(const kt_trace *t, kt_tables **ts) { return kt_cupti(t, NULL, NULL, ts); }
static kt_status memory(const kt_trace *t, kt_tables **ts) { return kt_memory(t, NULL, NULL, ts, NULL); }

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: bench_attrib PATH [annotations|ops|cupti|memory]\n");
        return 2;
    }
    const char *path = argv[1];
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_attrib: cannot load %s\n", path);
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0;
    printf("%-12s %8.3f s\n", "load", load);
    static const struct { const char *name; kt_status (*fn)(const kt_trace *, kt_tables **); } runs[] = {
        { "annotations", annotations }, { "ops", ops }, { "cupti", cupti }, { "memory", memory },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        if (argc == 3 && strcmp(argv[2], runs[i].name)) continue;
        kt_tables *ts = NULL;
        double s = now();
        if (runs[i].fn(t, &ts) != KT_OK) {
            fprintf(stderr, "bench_attrib: %s failed\n", runs[i].name);
            return 1;
        }
        s = now() - s;
        printf("%-12s %8.3f s  (%.2fx the load)\n", runs[i].name, s, s / load);
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    return 0;
}
