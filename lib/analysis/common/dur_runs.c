/*
 * dur_runs.c — see dur_runs.h.
 */
#include "analysis/common/dur_runs.h"
#include "analysis/common/value_counts.h"

#include "model/radix.h"

#include <stdlib.h>

/* Below this many values the sort alone is cheap. */
#define FEW 64

/* The runs of d[0..n) by counting its distinct values, when they are few
 * (then sorting them alone is cheaper than sorting d); false otherwise. */
static bool counted_runs(const int64_t *d, size_t n, kt_dur_run *runs, size_t *nruns)
{
    kt_value_counts c;
    bool ok = kt_value_counts_init(&c, n / KT_VALUE_COUNTS_SHARE);
    for (size_t i = 0; ok && i < n; i++) ok = kt_value_counts_add(&c, d[i]);
    ok = ok && kt_sort_i64(c.seen, c.nseen);
    for (size_t k = 0; ok && k < c.nseen; k++) runs[k] = (kt_dur_run){ c.seen[k], kt_value_counts_of(&c, c.seen[k]) };
    if (ok) *nruns = c.nseen;
    kt_value_counts_free(&c);
    return ok;
}

bool kt_dur_runs(int64_t *d, size_t n, kt_dur_run **runs, size_t *nruns)
{
    *nruns = 0;
    *runs = malloc((n ? n : 1) * sizeof **runs);
    if (!*runs) return false;
    if (n >= FEW && counted_runs(d, n, *runs, nruns)) return true;
    if (!kt_sort_i64(d, n)) {
        free(*runs);
        *runs = NULL;
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (*nruns && (*runs)[*nruns - 1].dur == d[i]) (*runs)[*nruns - 1].n++;
        else (*runs)[(*nruns)++] = (kt_dur_run){ d[i], 1 };
    }
    return true;
}

static int by_dur(const void *a, const void *b)
{
    const kt_dur_run *x = a, *y = b;
    return (x->dur > y->dur) - (x->dur < y->dur);
}

void kt_dur_runs_sort(kt_dur_run *runs, size_t *n)
{
    if (*n < 2) return;
    qsort(runs, *n, sizeof *runs, by_dur);
    size_t w = 0;
    for (size_t r = 1; r < *n; r++) {
        if (runs[r].dur == runs[w].dur) runs[w].n += runs[r].n;
        else runs[++w] = runs[r];
    }
    *n = w + 1;
}
