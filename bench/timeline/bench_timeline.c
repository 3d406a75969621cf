/*
 * bench_timeline.c — issue 4's analyses against the load they follow.
 *
 * The goal ("all of issue 4's commands together in under 2x the load
 * time") is about analysis cost relative to parsing, so this loads once and
 * times each analysis on the loaded trace; the CLI would reload per command.
 * (counters is left out: it rewrites the trace files, a cost of writing.)
 * Built by `make build/bench_timeline` (one program per bench/<name>/ folder),
 * run by bench/timeline.sh.
 *
 * usage: bench_timeline PATH...
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

typedef kt_status (*analysis_fn)(const kt_trace *t);

/* One analysis with fixed options, its tables dropped. */
#define ANALYSIS(id, call)                                                    \
    static kt_status id(const kt_trace *t)                                    \
    {                                                                         \
        kt_tables *ts = NULL;                                                 \
        kt_status s = call;                                                   \
        kt_tables_free(ts);                                                   \
        return s;                                                             \
    }

static const kt_temporal_options by_step = { .size = sizeof by_step, .by_step = 1, .by_device = 1 }, tracelens = { .size = sizeof tracelens, .tracelens = 1 };
static const kt_gaps_options all_pairs = { .size = sizeof all_pairs, .bins = 20, .sort = KT_GAP_SORT_TOTAL, .step = -1, .short_names = 1 };

ANALYSIS(temporal, kt_temporal(t, NULL, NULL, &ts))
ANALYSIS(temporal_by_step, kt_temporal(t, NULL, &by_step, &ts))
ANALYSIS(temporal_tracelens, kt_temporal(t, NULL, &tracelens, &ts))
ANALYSIS(idle, kt_idle(t, NULL, NULL, &ts))
ANALYSIS(overlap, kt_overlap(t, NULL, NULL, &ts))
ANALYSIS(gaps, kt_gaps(t, NULL, &all_pairs, &ts))
ANALYSIS(launch, kt_launch(t, NULL, NULL, &ts))
ANALYSIS(queue, kt_queue(t, NULL, NULL, &ts))
ANALYSIS(memcpy_bw, kt_memcpy_bw(t, NULL, &ts))

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_timeline PATH...\n");
        return 2;
    }
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load((const char *const *)argv + 1, (size_t)argc - 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_timeline: cannot load the trace\n");
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0, total = 0;
    printf("%-22s %8.3f s\n", "load", load);
    static const struct { const char *name; analysis_fn fn; } runs[] = {
        { "temporal", temporal }, { "temporal --by-step", temporal_by_step },
        { "temporal --tracelens", temporal_tracelens }, { "idle", idle }, { "overlap", overlap },
        { "gaps (all pairs)", gaps }, { "launch", launch }, { "queue", queue }, { "memcpy-bw", memcpy_bw },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        double s = now();
        if (runs[i].fn(t) != KT_OK) {
            fprintf(stderr, "bench_timeline: %s failed\n", runs[i].name);
            return 1;
        }
        s = now() - s;
        total += s;
        printf("%-22s %8.3f s\n", runs[i].name, s);
    }
    printf("%-22s %8.3f s  (%.2fx load; load + all = %.2fx load)\n", "all analyses", total, total / load,
           (load + total) / load);
    kt_trace_free(t);
    return 0;
}
