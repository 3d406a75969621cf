/*
 * bench_kernels.c — issue 3's analyses (kernels, breakdown, categories)
 * against the load they follow.
 *
 * The goal is "each command adds under 10% to the load time", so this loads
 * once and times each analysis on the loaded trace (best of three runs, to
 * see through other load on the machine); the CLI reloads per command.
 * Built by `make build/bench_kernels` (one program per bench/<name>/ folder),
 * run by bench/bench_kernels.sh.
 *
 * usage: bench_kernels PATH...
 */
#include "kineta.h"

#include <stdio.h>
#include <time.h>

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef kt_status (*analysis_fn)(const kt_trace *t);

/* One analysis with fixed options, its tables dropped. */
#define ANALYSIS(id, opts, call)                                              \
    static kt_status id(const kt_trace *t)                                    \
    {                                                                         \
        opts;                                                                 \
        kt_tables *ts = NULL;                                                 \
        kt_status s = call;                                                   \
        kt_tables_free(ts);                                                   \
        return s;                                                             \
    }

ANALYSIS(kernels, kt_kernels_options o = kt_kernels_defaults(), kt_kernels(t, NULL, &o, &ts))
ANALYSIS(kernels_all, kt_kernels_options o = kt_kernels_defaults(); o.top = 0; o.memory = 1,
         kt_kernels(t, NULL, &o, &ts))
ANALYSIS(kernels_short, kt_kernels_options o = kt_kernels_defaults(); o.by = KT_KBY_SHORT,
         kt_kernels(t, NULL, &o, &ts))
ANALYSIS(kernels_launcher, kt_kernels_options o = kt_kernels_defaults(); o.by = KT_KBY_LAUNCHER,
         kt_kernels(t, NULL, &o, &ts))
ANALYSIS(kernels_pstep, kt_kernels_options o = kt_kernels_defaults(); o.pstep = 1, kt_kernels(t, NULL, &o, &ts))
ANALYSIS(breakdown, (void)0, kt_breakdown(t, NULL, NULL, &ts))
ANALYSIS(categories, (void)0, kt_categories(t, NULL, NULL, &ts))

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_kernels PATH...\n");
        return 2;
    }
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load((const char *const *)argv + 1, (size_t)argc - 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_kernels: cannot load the trace\n");
        kt_diags_free(fail);
        return 1;
    }
    double load = now(CLOCK_MONOTONIC) - w0, load_cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("%-26s %8.3f s wall %8.3f s cpu\n", "load", load, load_cpu);
    static const struct { const char *name; analysis_fn fn; } runs[] = {
        { "kernels", kernels }, { "kernels --top 0 --memory", kernels_all }, { "kernels --by short", kernels_short },
        { "kernels --by launcher", kernels_launcher }, { "kernels --pstep 1", kernels_pstep },
        { "breakdown", breakdown }, { "categories", categories },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        double best = 1e30, best_cpu = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
            if (runs[i].fn(t) != KT_OK) {
                fprintf(stderr, "bench_kernels: %s failed\n", runs[i].name);
                return 1;
            }
            w = now(CLOCK_MONOTONIC) - w;
            c = now(CLOCK_PROCESS_CPUTIME_ID) - c;
            if (w < best) best = w;
            if (c < best_cpu) best_cpu = c;
        }
        printf("%-26s %8.3f s wall %8.3f s cpu  (%5.1f%% of load)\n", runs[i].name, best, best_cpu,
               100 * best / load);
    }
    kt_trace_free(t);
    return 0;
}
