/*
 * bench_report.c — `kineta report` timed against loading: loads the traces
 * once, runs the analyses once (indexes built on first use are then warm),
 * then takes the best of REPEAT runs of the whole report (kt_report: the
 * analyses it shows plus writing the page) and of the same analyses alone;
 * the page-writing cost is the difference.  Prints the page size.  Built
 * by `make build/bench_report`, run by bench/report.sh.
 *
 * usage: bench_report OUT.html PATH...
 */
#include "analysis/launch/queue.h"
#include "analysis/perf/perf.h"
#include "analysis/timeline/temporal_overlap.h"
#include "kineta.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPEAT 3

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The analyses behind the sections only some traces have (they may
 * fail: their sections are then left out), with the report's options. */
static void run_optional(const kt_trace *t, kt_tables **ts)
{
    kt_memory_options mem = kt_memory_defaults();
    kt_critical_path_options cp = kt_critical_path_defaults();
    cp.no_edges = 1;
    cp.longest_edges = 15;
    kt_mine_options mine = kt_mine_defaults();
    kt_collectives_options coll = kt_collectives_defaults();
    kt_stragglers_options strag = kt_stragglers_defaults();
    kt_perf_options perf = kt_perf_defaults();
    kt_memory(t, NULL, &mem, &ts[0], NULL);
    kt_critical_path(t, NULL, &cp, &ts[1], NULL);
    kt_mine_sequences(t, NULL, &mine, &ts[2]);
    kt_collectives(t, NULL, &coll, &ts[3]);
    kt_stragglers(t, NULL, &strag, &ts[4]);
    kt_perf_overview(t, NULL, &perf, &ts[5]); /* the drawn tables only, as the report */
}

/* The analyses kt_report runs, with the options it uses (temporal and
 * overlap as one build, queue's and perf's drawn tables only:
 * report_analyses.c).                                                    */
static int run_analyses(const kt_trace *t)
{
    kt_breakdown_options bd = kt_breakdown_defaults();
    kt_categories_options cat = kt_categories_defaults();
    kt_gaps_options gaps = kt_gaps_defaults();
    kt_launch_options launch = { .size = sizeof launch, .runtime_cutoff_us = 50, .launch_delay_cutoff_us = 100 };
    kt_tables *ts[18] = { 0 };
    int bad = 0;
    bad |= kt_info(t, NULL, &ts[0]) != KT_OK;
    bad |= kt_breakdown(t, NULL, &bd, &ts[1]) != KT_OK;
    bad |= kt_categories(t, NULL, &cat, &ts[2]) != KT_OK;
    bad |= kt_idle(t, NULL, NULL, &ts[3]) != KT_OK;
    bad |= kt_gaps(t, NULL, &gaps, &ts[4]) != KT_OK;
    bad |= kt_launch(t, NULL, &launch, &ts[5]) != KT_OK;
    bad |= kt_queue_tables(t, NULL, NULL, KT_QUEUE_SERIES | KT_QUEUE_WEIGHTED, &ts[6]) != KT_OK;
    bad |= kt_memcpy_bw(t, NULL, &ts[7]) != KT_OK;
    bad |= kt_temporal_overlap(t, NULL, &ts[8]) != KT_OK; /* ts[8..11] */
    run_optional(t, &ts[12]);                             /* ts[12..17] */
    for (int i = 0; i < 18; i++) kt_tables_free(ts[i]);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_report OUT.html PATH...\n");
        return 2;
    }
    double t0 = now();
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    kt_load_options lo = { .size = sizeof lo };
    if (kt_load((const char *const *)argv + 2, (size_t)argc - 2, &lo, &t, &fail) != KT_OK) {
        fprintf(stderr, "bench_report: cannot load\n");
        kt_diags_free(fail);
        return 1;
    }
    double load = now() - t0;
    if (run_analyses(t)) {
        fprintf(stderr, "bench_report: an analysis failed\n");
        return 1;
    }
    double analyses = 1e9, report = 1e9;
    kt_tables *ts = NULL;
    for (int i = 0; i < REPEAT; i++) {
        double a0 = now();
        run_analyses(t);
        double a = now() - a0;
        kt_tables_free(ts);
        ts = NULL;
        double r0 = now();
        if (kt_report(t, NULL, NULL, argv[1], &ts, NULL) != KT_OK) {
            fprintf(stderr, "bench_report: report failed\n");
            return 1;
        }
        double r = now() - r0;
        if (a < analyses) analyses = a;
        if (r < report) report = r;
    }
    double mb = (double)kt_table_int(kt_tables_find(ts, "report"), 0, 1) / 1e6;
    printf("load %.3f s | report %.3f s (%.1f%% of load) = analyses %.3f s + page %.3f s (%.1f%% of load) | "
           "%.2f MB\n",
           load, report, 100 * report / load, analyses, report - analyses, 100 * (report - analyses) / load, mb);
    kt_tables_free(ts);
    kt_trace_free(t);
    return 0;
}
