/*
 * bench_queue.c — launch, queue, memcpy-bw and counters on a loaded trace.
 *
 * Loads once and times each analysis on the loaded trace (the CLI would
 * reload per command); for counters it also reports the writing speed in
 * MB/s of JSON written.  Built by `make build/bench_queue` (one program
 * per bench/<name>/ folder), run by bench/queue.sh.
 *
 * usage: bench_queue OUT_DIR PATH
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

static const char *out_dir;

static kt_status launch(const kt_trace *t, kt_tables **ts) { return kt_launch(t, NULL, NULL, ts); }
static kt_status queue(const kt_trace *t, kt_tables **ts) { return kt_queue(t, NULL, NULL, ts); }
static kt_status memcpy_bw(const kt_trace *t, kt_tables **ts) { return kt_memcpy_bw(t, NULL, ts); }
static kt_status counters(const kt_trace *t, kt_tables **ts)
{
    kt_counters_options o = { .size = sizeof o, .out_dir = out_dir };
    return kt_counters(t, NULL, &o, ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_queue OUT_DIR PATH\n");
        return 2;
    }
    out_dir = argv[1];
    const char *path = argv[2];
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_queue: cannot load %s\n", path);
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0;
    printf("%-12s %8.3f s\n", "load", load);
    static const struct { const char *name; kt_status (*fn)(const kt_trace *, kt_tables **); } runs[] = {
        { "launch", launch }, { "queue", queue }, { "memcpy-bw", memcpy_bw }, { "counters", counters },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        kt_tables *ts = NULL;
        double s = now();
        if (runs[i].fn(t, &ts) != KT_OK) {
            fprintf(stderr, "bench_queue: %s failed\n", runs[i].name);
            return 1;
        }
        s = now() - s;
        printf("%-12s %8.3f s", runs[i].name, s);
        const kt_table *f = kt_tables_find(ts, "files");
        if (f) {
            double mb = (double)kt_table_int(f, 0, 4) / 1e6;
            printf("  %.0f MB JSON written, %.0f MB/s, %lld counter events", mb, mb / s,
                   (long long)kt_table_int(f, 0, 3));
        }
        printf("\n");
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    return 0;
}
