/*
 * dur_runs.c — see dur_runs.h.
 */
#include "analysis/common/dur_runs.h"

#include "model/radix.h"

#include <stdlib.h>
#include <string.h>

/* Counting pays while at most one duration in this many is new (kernels
 * of one name, gaps between the same kernels, take a few times apiece). */
#define SHARE 8
/* Below this many values the sort alone is cheap. */
#define FEW 64

/* Distinct durations and their counts, in an open-addressing table. */
typedef struct dur_counts {
    int64_t *dur;   /* a slot's value                  */
    uint64_t *n;    /* its count; 0: the slot is empty */
    int64_t *seen;  /* the distinct values, in order found */
    size_t mask, nseen;
} dur_counts;

/* Fibonacci hashing: round durations differ in their high bits only. */
static size_t slot_of(const dur_counts *c, int64_t d)
{
    size_t at = (size_t)(((uint64_t)d * 0x9E3779B97F4A7C15u) >> (64 - __builtin_popcountll(c->mask)));
    while (c->n[at] && c->dur[at] != d) at = (at + 1) & c->mask;
    return at;
}

/* Counts d[0..n) into c; false past limit distinct values. */
static bool count_durs(dur_counts *c, const int64_t *d, size_t n, size_t limit)
{
    for (size_t i = 0; i < n; i++) {
        size_t at = slot_of(c, d[i]);
        if (!c->n[at]) {
            if (c->nseen == limit) return false;
            c->dur[at] = d[i];
            c->seen[c->nseen++] = d[i];
        }
        c->n[at]++;
    }
    return true;
}

/* The runs from c's distinct values, sorted; false on OOM. */
static bool runs_of_counts(dur_counts *c, kt_dur_run *runs)
{
    if (!kt_sort_i64(c->seen, c->nseen)) return false;
    for (size_t k = 0; k < c->nseen; k++) runs[k] = (kt_dur_run){ c->seen[k], c->n[slot_of(c, c->seen[k])] };
    return true;
}

/* The runs of d[0..n) by counting its distinct values, when they are few
 * (then sorting them alone is cheaper than sorting d); false otherwise. */
static bool counted_runs(const int64_t *d, size_t n, kt_dur_run *runs, size_t *nruns)
{
    size_t limit = n / SHARE, slots = 2;
    while (slots < 2 * limit) slots *= 2;
    dur_counts c = { malloc(slots * sizeof *c.dur), calloc(slots, sizeof *c.n), malloc(limit * sizeof *c.seen),
                     slots - 1, 0 };
    bool ok = c.dur && c.n && c.seen && count_durs(&c, d, n, limit) && runs_of_counts(&c, runs);
    if (ok) *nruns = c.nseen;
    free(c.dur);
    free(c.n);
    free(c.seen);
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
