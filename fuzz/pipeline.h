/*
 * pipeline.h — the whole kineta pipeline run on one input, for the fuzzers
 * (fuzz/fuzz_pipeline.c, fuzz/fuzz_generated.c) and the regression tests
 * that replay their findings (tests/test_fuzz_regress.c).
 *
 * A loader fuzzer cannot reach what happens after a trace parses; this runs
 * load (default and HTA options) → every analysis of lib/kineta.h (defaults
 * and one non-default option set) → every table as text, CSV and JSON →
 * every file output, and checks invariants on what came out.  A broken
 * invariant is reported as data (why), so the fuzzers abort on it and the
 * tests fail on it.
 */
#ifndef KT_FUZZ_PIPELINE_H
#define KT_FUZZ_PIPELINE_H

#include "kineta.h"

#include <stddef.h>
#include <stdint.h>

/* What an analysis of the dispatch table is run with. */
typedef struct fz_env {
    const kt_trace *trace;   /* the loaded input                              */
    const kt_trace *other;   /* the same input loaded with the other options
                                (diff's second run); never NULL             */
    const kt_rank_sel *sel;  /* variant 0: every rank; variant 1: the first  */
    const char *scratch;     /* directory for file outputs, emptied after    */
} fz_env;

/* One analysis: variant 0 runs its defaults, variant 1 one non-default
 * option set.  cli names the `kineta` command whose printer renders its
 * tables (NULL: the generic printer only).                                 */
typedef struct fz_analysis {
    const char *name; /* kt_<name> in lib/kineta.h                           */
    const char *cli;
    kt_status (*run)(const fz_env *env, int variant, kt_tables **out);
} fz_analysis;

/* The dispatch table (fuzz/pipeline_analyses.c), ended by a NULL name. */
extern const fz_analysis fz_analyses[];

/* Invariants over one analysis's tables (fuzz/pipeline_invariants.c):
 * percentages in [0, 100], ratios in [0, 1], counts >= 0, time parts not
 * above the span they partition, ranks among those selected, CSV and JSON
 * renderings with the table's row count; hta_compat: the trace was loaded
 * with HTA's rules, whose documented quirks are allowed.  0, or 1 + why. */
int fz_check_tables(const kt_tables *ts, const int *ranks, size_t nranks, int hta_compat, char *why,
                    size_t whylen);
/* Rows of a CSV / JSON rendering as print_tables.c writes them. */
size_t fz_csv_rows(const char *csv, size_t len);
size_t fz_json_rows(const char *json, size_t len);

/* Run everything on data (written to scratch/ as a rank file first).
 * Returns 0, or 1 with why filled when an invariant broke.  Crashes,
 * leaks and undefined behaviour are the sanitizers' to report.            */
int fz_pipeline(const uint8_t *data, size_t size, const char *scratch, char *why, size_t whylen);

/* A fresh scratch directory under $TMPDIR (or /tmp) into dir; 0 or -1. */
int fz_make_scratch(char *dir, size_t n);
/* Remove it again (it is empty between inputs). */
void fz_remove_scratch(const char *dir);

#endif
