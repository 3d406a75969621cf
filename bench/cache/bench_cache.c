/*
 * bench_cache.c — what the columnar cache saves inside kt_load: one file
 * loaded by parsing, by parsing and writing its cache file, and by mapping
 * the cache file, beside the time to read the cache file's bytes (what
 * `cat` costs).  Medians of a few runs.
 *   usage: bench_cache CACHE_DIR TRACE [RUNS]
 */
#include "kineta.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    return v[n / 2];
}

static double timed_load(const char *path, const char *cache_dir)
{
    kt_load_options o = { .size = sizeof o, .cache_dir = cache_dir };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    double t0 = now();
    kt_status st = kt_load(&path, 1, &o, &t, &fail);
    double dt = now() - t0;
    if (st != KT_OK) {
        fprintf(stderr, "bench_cache: %s: %s\n", path, kt_status_str(st));
        exit(1);
    }
    kt_trace_free(t);
    kt_diags_free(fail);
    return dt;
}

/* Read every byte of the cache directory's one file, as cat does. */
static double timed_read(const char *dir, long long *bytes)
{
    char path[4096] = "";
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".ktc")) snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (d) closedir(d);
    static char buf[128 << 10];
    double t0 = now();
    int fd = open(path, O_RDONLY);
    *bytes = 0;
    for (ssize_t k; fd >= 0 && (k = read(fd, buf, sizeof buf)) > 0;) *bytes += k;
    if (fd >= 0) close(fd);
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_cache CACHE_DIR TRACE [RUNS]\n");
        return 2;
    }
    const char *dir = argv[1], *trace = argv[2];
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    if (runs < 1 || runs > 50) runs = 3;
    double parse[50], write[50], map[50], cat[50];
    long long bytes = 0;
    char cmd[4200];
    for (int i = 0; i < runs; i++) {
        parse[i] = timed_load(trace, NULL);
        snprintf(cmd, sizeof cmd, "rm -f '%s'/*.ktc", dir);
        if (system(cmd) != 0) return 1;
        write[i] = timed_load(trace, dir);
        map[i] = timed_load(trace, dir);
        cat[i] = timed_read(dir, &bytes);
    }
    double p = median(parse, runs), w = median(write, runs), m = median(map, runs), c = median(cat, runs);
    printf("%s: cache file %.1f MB\n", trace, (double)bytes / 1e6);
    printf("  kt_load parse          %.3f s\n", p);
    printf("  kt_load parse + write  %.3f s (+%.3f s)\n", w, w - p);
    printf("  kt_load mapped         %.3f s (%.1fx faster than parsing)\n", m, p / m);
    printf("  read the cache file    %.3f s (mapped = %.2fx this)\n", c, m / c);
    return 0;
}
