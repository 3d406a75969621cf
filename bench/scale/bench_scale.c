/*
 * bench_scale.c — the numbers docs/scaling.md predicts from: one rank's map
 * time and partial size per analysis, and the reduce's cost (decode +
 * concatenate the partials, as process 0 does under MPI; kernels,
 * categories, breakdown, gaps: decode + their own reduce) for 16 → 1,024
 * ranks (up to MAX_RANKS, 0 = none: a large rank's partials times 1,024
 * do not fit in memory).  The partials are the trace's, decoded N times.
 *   usage: bench_scale TRACE MAX_RANKS
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

typedef kt_status (*analysis_fn)(const kt_trace *t, kt_tables **out);
static kt_status run_temporal(const kt_trace *t, kt_tables **o) { return kt_temporal(t, NULL, NULL, o); }
static kt_status run_idle(const kt_trace *t, kt_tables **o) { return kt_idle(t, NULL, NULL, o); }
static kt_status run_launch(const kt_trace *t, kt_tables **o) { return kt_launch(t, NULL, NULL, o); }
static kt_status run_queue(const kt_trace *t, kt_tables **o) { return kt_queue(t, NULL, NULL, o); }

static void bench(const kt_trace *t, const char *name, analysis_fn fn, size_t max_ranks)
{
    kt_tables *ts = NULL;
    double t0 = now();
    if (fn(t, &ts) != KT_OK) { fprintf(stderr, "%s failed\n", name); return; }
    double map = now() - t0;
    unsigned char *buf = NULL;
    size_t len = 0;
    if (kt_tables_serialize(ts, &buf, &len) != KT_OK) return;
    printf("%-10s map %.3f s  partial %zu bytes\n", name, map, len);
    for (size_t n = 16; n <= max_ranks; n *= 4) {
        kt_tables *acc = NULL, *part = NULL;
        double r0 = now();
        for (size_t i = 0; i < n; i++)
            if (kt_tables_deserialize(buf, len, &part) != KT_OK || kt_tables_append(&acc, part) != KT_OK) break;
        printf("%-10s reduce %5zu ranks %.3f s\n", name, n, now() - r0);
        kt_tables_free(acc);
    }
    free(buf);
    kt_tables_free(ts);
}

typedef kt_status (*reduce_fn)(const kt_tables *const *parts, size_t n, kt_tables **out);
static kt_status map_kernels(const kt_trace *t, kt_tables **o) { return kt_kernels_map(t, NULL, NULL, o); }
static kt_status map_categories(const kt_trace *t, kt_tables **o) { return kt_categories_map(t, NULL, NULL, o); }
static kt_status map_breakdown(const kt_trace *t, kt_tables **o) { return kt_breakdown_map(t, NULL, NULL, o); }
static kt_status map_gaps(const kt_trace *t, kt_tables **o) { return kt_gaps_map(t, NULL, NULL, o); }
static kt_status reduce_breakdown(const kt_tables *const *p, size_t n, kt_tables **o)
{
    return kt_breakdown_reduce(p, n, NULL, 0, o);
}
static kt_status reduce_gaps(const kt_tables *const *p, size_t n, kt_tables **o)
{
    return kt_gaps_reduce(p, n, NULL, o);
}
static kt_status reduce_kernels(const kt_tables *const *p, size_t n, kt_tables **o)
{
    return kt_kernels_reduce(p, n, NULL, o);
}
static kt_status reduce_categories(const kt_tables *const *p, size_t n, kt_tables **o)
{
    return kt_categories_reduce(p, n, NULL, o);
}

/* Analyses whose reduce merges partials (kernels, categories, breakdown, gaps). */
static void bench_merged(const kt_trace *t, const char *name, analysis_fn map_fn, reduce_fn reduce_fn_,
                         size_t max_ranks)
{
    kt_tables *ts = NULL;
    double t0 = now();
    if (map_fn(t, &ts) != KT_OK) { fprintf(stderr, "%s failed\n", name); return; }
    double map = now() - t0;
    unsigned char *buf = NULL;
    size_t len = 0;
    if (kt_tables_serialize(ts, &buf, &len) != KT_OK) return;
    printf("%-10s map %.3f s  partial %zu bytes\n", name, map, len);
    kt_tables **parts = calloc(max_ranks ? max_ranks : 1, sizeof *parts);
    for (size_t n = 16; parts && n <= max_ranks; n *= 4) {
        kt_tables *out = NULL;
        double r0 = now();
        size_t got = 0;
        while (got < n && kt_tables_deserialize(buf, len, &parts[got]) == KT_OK) got++;
        if (reduce_fn_((const kt_tables *const *)parts, got, &out) == KT_OK)
            printf("%-10s reduce %5zu ranks %.3f s\n", name, n, now() - r0);
        for (size_t i = 0; i < got; i++) kt_tables_free(parts[i]);
        kt_tables_free(out);
    }
    free(parts);
    free(buf);
    kt_tables_free(ts);
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: bench_scale TRACE MAX_RANKS\n"); return 2; }
    size_t max_ranks = (size_t)strtoul(argv[2], NULL, 10);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    double t0 = now();
    if (kt_load((const char *const *)&argv[1], 1, NULL, &t, &fail) != KT_OK) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        kt_diags_free(fail);
        return 3;
    }
    printf("load %.3f s\n", now() - t0);
    bench(t, "temporal", run_temporal, max_ranks);
    bench(t, "idle", run_idle, max_ranks);
    bench(t, "queue", run_queue, max_ranks);
    bench(t, "launch", run_launch, max_ranks);
    bench_merged(t, "kernels", map_kernels, reduce_kernels, max_ranks);
    bench_merged(t, "categories", map_categories, reduce_categories, max_ranks);
    bench_merged(t, "breakdown", map_breakdown, reduce_breakdown, max_ranks);
    bench_merged(t, "gaps", map_gaps, reduce_gaps, max_ranks);
    kt_trace_free(t);
    return 0;
}
