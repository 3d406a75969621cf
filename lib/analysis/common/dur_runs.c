/*
 * dur_runs.c — see dur_runs.h.
 */
#include "analysis/common/dur_runs.h"

#include "model/radix.h"

#include <stdlib.h>

bool kt_dur_runs(int64_t *d, size_t n, kt_dur_run **runs, size_t *nruns)
{
    *nruns = 0;
    *runs = kt_sort_i64(d, n) ? malloc((n ? n : 1) * sizeof **runs) : NULL;
    if (!*runs) return false;
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
