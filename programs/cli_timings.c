/*
 * cli_timings.c — see cli_timings.h.  CPU time is the process's (user +
 * system, every thread), so a phase run on worker threads shows what it
 * cost, not only how long it took.
 */
#include "cli_timings.h"

#include <sys/resource.h>
#include <time.h>

double cli_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double cli_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void cli_timings_start(cli_timings *t)
{
    t->n = 0;
    t->wall0 = cli_wall_seconds();
    t->cpu0 = cli_cpu_seconds();
}

void cli_timings_mark(cli_timings *t, const char *name)
{
    double wall = cli_wall_seconds(), cpu = cli_cpu_seconds();
    if (t->n < CLI_TIMINGS_PHASES) {
        t->phase[t->n].name = name;
        t->phase[t->n].wall = wall - t->wall0;
        t->phase[t->n++].cpu = cpu - t->cpu0;
    }
    t->wall0 = wall;
    t->cpu0 = cpu;
}

void cli_timings_print(const cli_timings *t, FILE *f)
{
    fprintf(f, "kineta: timings:");
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s %s %.3f s (CPU %.3f s)", i ? "," : "", t->phase[i].name, t->phase[i].wall, t->phase[i].cpu);
    fprintf(f, "\n");
}
