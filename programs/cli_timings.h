/*
 * cli_timings.h — `--timings`: where a command's time went, phase by
 * phase (loading, the analysis, writing the output, freeing the model),
 * wall and CPU (every thread's), on stderr when it ends.
 */
#ifndef CLI_TIMINGS_H
#define CLI_TIMINGS_H

#include <stdio.h>

#define CLI_TIMINGS_PHASES 6

typedef struct cli_timings {
    double wall0, cpu0; /* at the start, or the end of the last phase */
    struct {
        const char *name;
        double wall, cpu;
    } phase[CLI_TIMINGS_PHASES];
    int n;
} cli_timings;

/* Seconds since an arbitrary start (monotonic), and of CPU so far. */
double cli_wall_seconds(void);
double cli_cpu_seconds(void);
/* Start the clocks. */
void cli_timings_start(cli_timings *t);
/* The phase named name ends now (name must outlive t). */
void cli_timings_mark(cli_timings *t, const char *name);
/* "kineta: timings: load 0.951 s (CPU 1.742 s), report ...". */
void cli_timings_print(const cli_timings *t, FILE *f);

#endif
