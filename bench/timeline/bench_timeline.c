/*
 * bench_timeline.c — issue 4's analyses against the load they follow.
 *
 * The goal ("all of issue 4's commands together in under 2x the load
 * time") is about analysis cost relative to parsing, so this loads once and
 * times each analysis on the loaded trace; the CLI would reload per command.
 * Built and run by bench/timeline.sh (kept out of bench/*.c, which the
 * Makefile links into one kineta-bench program).
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

static kt_status temporal(const kt_trace *t)
{
    kt_tables *ts;
    kt_status s = kt_temporal(t, NULL, NULL, &ts);
    kt_tables_free(ts);
    return s;
}

static kt_status temporal_by_step(const kt_trace *t)
{
    kt_temporal_options o = { .by_step = 1, .by_device = 1 };
    kt_tables *ts;
    kt_status s = kt_temporal(t, NULL, &o, &ts);
    kt_tables_free(ts);
    return s;
}

static kt_status tracelens(const kt_trace *t)
{
    kt_temporal_options o = { .tracelens = 1 };
    kt_tables *ts;
    kt_status s = kt_temporal(t, NULL, &o, &ts);
    kt_tables_free(ts);
    return s;
}

static kt_status idle(const kt_trace *t)
{
    kt_tables *ts;
    kt_status s = kt_idle(t, NULL, NULL, &ts);
    kt_tables_free(ts);
    return s;
}

static kt_status overlap(const kt_trace *t)
{
    kt_tables *ts;
    kt_status s = kt_overlap(t, NULL, NULL, &ts);
    kt_tables_free(ts);
    return s;
}

static kt_status gaps(const kt_trace *t)
{
    kt_gaps_options o = kt_gaps_defaults();
    o.top = 0;
    o.short_names = 1;
    kt_tables *ts;
    kt_status s = kt_gaps(t, NULL, &o, &ts);
    kt_tables_free(ts);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_timeline PATH...\n");
        return 2;
    }
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { 0 };
    if (kt_load((const char *const *)argv + 1, (size_t)argc - 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_timeline: cannot load the trace\n");
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0, total = 0;
    printf("%-22s %8.3f s\n", "load", load);
    static const struct { const char *name; analysis_fn fn; } runs[] = {
        { "temporal", temporal }, { "temporal --by-step", temporal_by_step },
        { "temporal --tracelens", tracelens }, { "idle", idle }, { "overlap", overlap },
        { "gaps (all pairs)", gaps },
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
