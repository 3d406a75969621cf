/*
 * bench_collectives.c — collectives and stragglers on a loaded multi-rank
 * trace, against the cost of loading it.
 *
 * Loads once, then times kt_info, kt_collectives and kt_stragglers on the
 * loaded trace (the CLI reloads per command: there the load dominates) and
 * prints how many communication records the map produced, so the memory
 * per collective per rank can be read off.  Built by `make
 * build/bench_collectives`, run by bench/collectives.sh.
 *
 * usage: bench_collectives PATH...
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

static kt_status info(const kt_trace *t, kt_tables **ts) { return kt_info(t, NULL, ts); }
static kt_status collectives(const kt_trace *t, kt_tables **ts) { return kt_collectives(t, NULL, NULL, ts); }
static kt_status stragglers(const kt_trace *t, kt_tables **ts) { return kt_stragglers(t, NULL, NULL, ts); }

static long long comm_records(const kt_tables *ts)
{
    const kt_table *r = kt_tables_find(ts, "ranks");
    long long n = 0;
    for (size_t i = 0; r && i < kt_table_nrows(r); i++) n += kt_table_int(r, i, 1);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_collectives PATH...\n");
        return 2;
    }
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load((const char *const *)argv + 1, (size_t)argc - 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_collectives: cannot load\n");
        kt_diags_free(fail);
        return 1;
    }
    printf("%-12s %8.3f s\n", "load", now() - t0);
    static const struct { const char *name; kt_status (*fn)(const kt_trace *, kt_tables **); } runs[] = {
        { "info", info }, { "collectives", collectives }, { "stragglers", stragglers },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        kt_tables *ts = NULL;
        double s = now();
        if (runs[i].fn(t, &ts) != KT_OK) {
            fprintf(stderr, "bench_collectives: %s failed\n", runs[i].name);
            return 1;
        }
        printf("%-12s %8.3f s", runs[i].name, now() - s);
        if (i == 1) {
            const kt_table *sync = kt_tables_find(ts, "implicit_sync");
            printf("  %lld communication records, %zu implicit-sync instances", comm_records(ts),
                   sync ? kt_table_nrows(sync) : 0);
        }
        printf("\n");
        kt_tables_free(ts);
    }
    kt_trace_free(t);
    return 0;
}
