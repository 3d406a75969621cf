/*
 * bench_sort.c — the sorts every analysis and the index build lean on
 * (model/radix.h), on the key shapes traces give them: timestamps in
 * random order (durations, gaps), a few interleaved sorted streams (GPU
 * events gathered stream by stream), sorted keys, doubles (statistics),
 * records by two keys.  Prints the best of 5 runs in ns per key.
 * Built by `make build/bench_sort`, run by bench/sort.sh.
 *
 * usage: bench_sort [N]   (default 1000000 keys)
 */
#include "model/radix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* One result line: the best run's time per key. */
static void print_best(const char *sort, const char *keys, size_t n, double best)
{
    printf("%-22s %-34s %9zu keys  %6.2f ns/key\n", sort, keys, n, best * 1e9 / (double)n);
}

typedef enum { RANDOM_TS, FOUR_STREAMS, SORTED_TS, TILED, MANY_STREAMS } key_shape;
static const char *const shape_name[] = { "random ns timestamps (2 s)", "4 sorted streams, concatenated",
                                          "sorted timestamps", "22 tiles of 3 streams each",
                                          "64 sorted streams, concatenated" };

/* Keys as kt_radix_key_i64 of absolute ns timestamps of the given shape. */
static void make_keys(uint64_t *k, size_t n, key_shape shape)
{
    const int64_t base = 1700000000000000000ll;
    for (size_t i = 0; i < n; i++) {
        int64_t ts = base + (int64_t)(next_random() % 2000000000ull);
        if (shape == FOUR_STREAMS) ts = base + (int64_t)(i % (n / 4 + 1)) * 400 + (int64_t)(i / (n / 4 + 1));
        if (shape == SORTED_TS) ts = base + (int64_t)i * 400;
        if (shape == MANY_STREAMS) ts = base + (int64_t)(i % (n / 64 + 1)) * 400 + (int64_t)(i / (n / 64 + 1));
        if (shape == TILED) { /* a trace tiled by tools: each part's few runs, the parts in sequence */
            size_t tile = n / 22 + 1, in = i % tile, run = in / (tile / 3 + 1), pos = in % (tile / 3 + 1);
            ts = base + (int64_t)(i / tile) * 1000000000ll + (int64_t)pos * 1200 + (int64_t)run * 400;
        }
        k[i] = kt_radix_key_i64(ts);
    }
}

static void bench_keys(size_t n, key_shape shape)
{
    uint64_t *src = malloc(n * sizeof *src), *k = malloc(n * sizeof *k);
    uint32_t *ids = malloc(n * sizeof *ids);
    if (!src || !k || !ids) exit(1);
    make_keys(src, n, shape);
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        memcpy(k, src, n * sizeof *k);
        for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
        double t0 = now();
        if (!kt_radix_sort(k, ids, n)) exit(1);
        double t = now() - t0;
        if (t < best) best = t;
    }
    print_best("kt_radix_sort", shape_name[shape], n, best);
    free(src), free(k), free(ids);
}

/* Ids by a column (the call tree's sort of a thread's events by ts). */
static void bench_ids(size_t n, key_shape shape)
{
    uint64_t *k = malloc(n * sizeof *k);
    int64_t *col = malloc(n * sizeof *col);
    uint32_t *ids = malloc(n * sizeof *ids);
    if (!k || !col || !ids) exit(1);
    make_keys(k, n, shape);
    for (size_t i = 0; i < n; i++) col[i] = (int64_t)(k[i] ^ ((uint64_t)1 << 63));
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
        double t0 = now();
        if (!kt_sort_ids_by_i64(ids, n, col)) exit(1);
        double t = now() - t0;
        if (t < best) best = t;
    }
    print_best("kt_sort_ids_by_i64", shape_name[shape], n, best);
    free(k), free(col), free(ids);
}

static void bench_doubles(size_t n)
{
    double *src = malloc(n * sizeof *src), *v = malloc(n * sizeof *v);
    if (!src || !v) exit(1);
    for (size_t i = 0; i < n; i++) src[i] = (double)(next_random() % 100000000ull) / 1e3; /* µs, 3 decimals */
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        memcpy(v, src, n * sizeof *v);
        double t0 = now();
        kt_sort_doubles(v, n);
        double t = now() - t0;
        if (t < best) best = t;
    }
    print_best("kt_sort_doubles", "random durations (us, 3 decimals)", n, best);
    free(src), free(v);
}

typedef struct rec {
    int64_t ts, delta;
    uint32_t ev;
} rec;

/* Records by (ts, delta): in random order, or as four sorted streams. */
static void bench_records(size_t n, key_shape shape)
{
    rec *src = malloc(n * sizeof *src), *r = malloc(n * sizeof *r);
    uint64_t *major = malloc(n * sizeof *major), *minor = malloc(n * sizeof *minor);
    if (!src || !r || !major || !minor) exit(1);
    make_keys(major, n, shape);
    for (size_t i = 0; i < n; i++)
        src[i] = (rec){ (int64_t)(major[i] ^ ((uint64_t)1 << 63)), i % 2 ? -1 : 1, (uint32_t)i };
    double best = 1e30;
    for (int k = 0; k < RUNS; k++) {
        memcpy(r, src, n * sizeof *r);
        for (size_t i = 0; i < n; i++) major[i] = kt_radix_key_i64(r[i].ts), minor[i] = kt_radix_key_i64(r[i].delta);
        double t0 = now();
        if (!kt_radix_sort_records(r, sizeof *r, n, major, minor)) exit(1);
        double t = now() - t0;
        if (t < best) best = t;
    }
    print_best("kt_radix_sort_records", shape_name[shape], n, best);
    free(src), free(r), free(major), free(minor);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    if (n < 8) n = 8;
    for (key_shape s = RANDOM_TS; s <= MANY_STREAMS; s++) bench_keys(n, s);
    for (key_shape s = FOUR_STREAMS; s <= MANY_STREAMS; s++) bench_ids(n, s);
    bench_keys(n / 20, RANDOM_TS); /* an analysis' per-rank sizes */
    bench_doubles(n);
    bench_doubles(n / 20);
    bench_records(n, RANDOM_TS);
    bench_records(n, FOUR_STREAMS);
    return 0;
}
