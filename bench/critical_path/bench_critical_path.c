/*
 * bench_critical_path.c — critical-path on a loaded trace: the whole
 * command (default window: ProfilerStep instance 0, and the whole trace),
 * then its map phases on the whole trace (graph, longest path) with the
 * graph's memory in bytes per event of the rank.
 *
 * usage: bench_critical_path PATH
 */
#include "analysis/structure/critical_path_longest.h"
#include "kineta.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall time, and this thread's CPU time: the analysis is single-threaded,
 * and on a shared machine its CPU time is the steadier figure.            */
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static int whole_command(const kt_trace *t, const char *annotation, const char *label)
{
    kt_critical_path_options o = kt_critical_path_defaults();
    o.annotation = annotation;
    kt_tables *ts = NULL;
    kt_diags *why = NULL;
    double s = now(), c = cpu();
    if (kt_critical_path(t, NULL, &o, &ts, &why) != KT_OK) {
        for (size_t i = 0; i < kt_diags_count(why); i++)
            fprintf(stderr, "bench_critical_path: %s\n", kt_diags_get(why, i)->message);
        kt_diags_free(why);
        return 1;
    }
    s = now() - s, c = cpu() - c;
    const kt_table *e = kt_tables_find(ts, "edges");
    printf("%-28s %8.3f s wall %8.3f s cpu  (%zu path edges)\n", label, s, c, kt_table_nrows(e));
    kt_tables_free(ts);
    return 0;
}

/* Heap bytes in use (glibc: small chunks + mmap'ed ones). */
static double heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (double)mi.uordblks + (double)mi.hblkhd;
}

/* What the longest-path pass allocates on top of the graph, by its code:
 * per node appearance order, flags, in-degree, order, predecessor,
 * distance, done, queued; per node and edge two CSR adjacency lists.      */
static double path_scratch_bytes(const cp_graph *g)
{
    return (double)g->n * (4 + 1 + 4 + 4 + 4 + 8 + 1 + 1) + 2.0 * (4.0 * (double)(g->n + 1) + 4.0 * (double)g->m) +
           (double)g->m; /* edge classes */
}

static int map_phases(const kt_trace *t)
{
    const kt_rank *r = t->ranks[0];
    cp_config cfg = { .annotation = "", .hta = false };
    cp_graph g;
    char err[256];
    double h0 = heap_bytes();
    double s = now(), cs = cpu();
    if (cp_graph_build(r, t->strs, &cfg, &g, err, sizeof err) != KT_OK) return 1;
    double built = now(), cbuilt = cpu();
    double graph = heap_bytes() - h0;
    uint8_t *cls = cp_edge_classes(r, t->strs, &g);
    cp_path p;
    if (!cls || cp_longest_path(&g, cls, NULL, &p) != KT_OK) return 1;
    double done = now(), cdone = cpu();
    printf("%-28s %8.3f s wall %8.3f s cpu  (%zu nodes, %zu edges)\n", "  graph build", built - s, cbuilt - cs, g.n,
           g.m);
    printf("%-28s %8.3f s wall %8.3f s cpu  (%zu path nodes)\n", "  classes + longest path", done - built,
           cdone - cbuilt, p.nn);
    double b = graph + path_scratch_bytes(&g), nev = (double)r->ev.n;
    printf("%-28s %8.1f MB  %.1f bytes/event (%zu events)\n", "  graph (heap, measured)", graph / 1e6, graph / nev,
           r->ev.n);
    printf("%-28s %8.1f MB  %.1f bytes/event\n", "  graph + longest path peak", b / 1e6, b / nev);
    cp_path_free(&p);
    free(cls);
    cp_graph_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_critical_path PATH\n");
        return 2;
    }
    const char *path = argv[1];
    double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load(&path, 1, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_critical_path: cannot load %s\n", path);
        kt_diags_free(fail);
        return 1;
    }
    printf("%-28s %8.3f s wall %8.3f s cpu (all threads)\n", "load", now() - t0,
           clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
    int rc = whole_command(t, NULL, "critical-path (1 step)");
    rc = rc ? rc : whole_command(t, "", "critical-path (whole trace)");
    rc = rc ? rc : map_phases(t);
    kt_trace_free(t);
    return rc;
}
