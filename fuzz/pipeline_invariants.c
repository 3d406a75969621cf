/*
 * pipeline_invariants.c — what must hold of any analysis's tables, however
 * damaged the trace (issue 17's list), so the fuzzers find wrong-but-silent
 * answers and not only crashes.
 *
 * Rules go by column name, because every analysis names its columns after
 * what they hold: "…pctg"/"percent"/"% …" is a percentage, "…_ratio" a
 * fraction, "count"/"…_count" a count, describe() columns (min ≤ 25% ≤ 50%
 * ≤ 75% ≤ max, min ≤ mean ≤ max) are ordered, and the time parts of a span
 * (temporal, device idle) do not add up to more than it.  Differences
 * ("diff_…", "delta_…") may be negative and are left out.
 */
#include "pipeline.h"
#include "../programs/cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rounding slack: printed values are rounded, sums of doubles drift. */
#define REL_TOL 1e-9
#define ABS_TOL 1e-6

static int fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return 1;
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }
static bool ends(const char *s, const char *e)
{
    size_t n = strlen(s), m = strlen(e);
    return n >= m && !strcmp(s + n - m, e);
}

static bool is_difference(const char *c) { return starts(c, "diff_") || starts(c, "delta_"); }
/* A share of wall time: concurrent streams push it over 100 (kernels.md:
 * % GPU wall time; attribution.md: an annotation's summed kernel time
 * against its steps' duration, pct_of_step; perf.md: short kernels' summed
 * time against the GPU span, pct_of_gpu_span).                           */
static bool is_share_of_wall_time(const char *c)
{
    const char *run = strstr(c, "::"); /* perf --compare's "<run>::" columns */
    if (run) c = run + 2;
    return !strcmp(c, "Percent of total time (%)") || !strcmp(c, "% GPU wall time") || !strcmp(c, "pct_of_step") || !strcmp(c, "pct_of_gpu_span") ||
           !strcmp(c, "Short Kernel duration (µs) percent of total time"); /* TraceLens's name for it */
}
static bool is_percentage(const char *c)
{
    return !is_difference(c) && !is_share_of_wall_time(c) &&
           (strstr(c, "pct") || strstr(c, "percent") || starts(c, "% "));
}
static bool is_ratio(const char *c) { return ends(c, "_ratio") || starts(c, "relative_"); }
static bool is_count(const char *c)
{
    static const char *const names[] = { "launches", "events", "events_loaded", "kernels", "memcpy", "memset",
                                         "sync", "calls", "gpu_events", "idle_intervals", "gaps",
                                         "counter_events", "uncompressed_bytes", "rows", "warnings",
                                         "ranks", NULL };
    if (is_difference(c)) return false;
    if (ends(c, "count") || ends(c, "counts") || ends(c, "_count")) return true;
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(c, names[i])) return true;
    return false;
}

/* Queue lengths (queue's series, summary and weighted statistics) are
 * never negative: a GPU event the trace puts before its launch call leaves
 * the queue with the call (docs/timeline-queue.md).                      */
static bool is_queue_length(const char *c)
{
    return (starts(c, "queue_length") || starts(c, "time_weighted_")) && !is_count(c);
}

/* Columns HTA's rules (hta_compat) take out of range on purpose: its idle
 * time measures overlapping kernels' gaps unclamped, its temporal sweep
 * adds µs-rounded durations of -1 [QUIRK], its queue length goes below 0
 * for a GPU event that starts before its launch call [QUIRK].            */
static bool hta_signed(const char *c)
{
    static const char *const names[] = { "idle_time", "idle_time_ratio", "idle_time_pctg", "compute_time_pctg",
                                         "non_compute_time_pctg", NULL };
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(c, names[i])) return true;
    return is_queue_length(c);
}

static bool numeric(const kt_table *t, size_t c) { return kt_table_col_type(t, c) != KT_COL_STR; }
static double num(const kt_table *t, size_t r, size_t c)
{
    return kt_table_col_type(t, c) == KT_COL_INT ? (double)kt_table_int(t, r, c) : kt_table_float(t, r, c);
}
/* a <= b, allowing for rounding. */
static bool le(double a, double b) { return a <= b + ABS_TOL + REL_TOL * fmax(fabs(a), fabs(b)); }

/* Ranges of single cells: percentages, ratios, counts, ranks. */
static int check_cells(const kt_table *t, const int *ranks, size_t nranks, int hta_compat, char *why,
                       size_t whylen)
{
    for (size_t c = 0; c < kt_table_ncols(t); c++) {
        const char *name = kt_table_col_name(t, c);
        if (!numeric(t, c)) continue;
        double hi = is_percentage(name) ? 100 : is_ratio(name) ? 1 : INFINITY;
        bool lower = (hi < INFINITY || is_count(name) || is_share_of_wall_time(name) || is_queue_length(name)) &&
                     !(hta_compat && hta_signed(name));
        bool rank = !strcmp(name, "rank") && kt_table_col_type(t, c) == KT_COL_INT;
        for (size_t r = 0; r < kt_table_nrows(t); r++) {
            if (kt_table_is_null(t, r, c)) continue;
            double v = num(t, r, c);
            if (lower && !(le(0, v) && le(v, hi)))
                return fail(why, whylen, "%s row %zu: %s = %.17g out of [0, %g]", kt_table_name(t), r, name, v, hi);
            bool loaded = false;
            for (size_t k = 0; rank && k < nranks; k++) loaded |= ranks[k] == kt_table_int(t, r, c);
            if (rank && !loaded)
                return fail(why, whylen, "%s row %zu: rank %lld was not selected", kt_table_name(t), r,
                            (long long)kt_table_int(t, r, c));
        }
    }
    return 0;
}

/* Columns named prefix+chain[i]+suffix, when all exist, never decrease
 * along the chain (null cells skipped).                                    */
static int check_chain(const kt_table *t, const char *prefix, const char *const *chain, const char *suffix,
                       char *why, size_t whylen)
{
    long col[8];
    size_t n = 0;
    for (; chain[n]; n++) {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, chain[n], suffix);
        col[n] = kt_table_col_index(t, name);
        if (col[n] < 0 || !numeric(t, (size_t)col[n])) return 0;
    }
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        double prev = -INFINITY;
        const char *prev_name = NULL;
        for (size_t i = 0; i < n; i++) {
            if (kt_table_is_null(t, r, (size_t)col[i])) continue;
            double v = num(t, r, (size_t)col[i]);
            if (prev_name && !le(prev, v))
                return fail(why, whylen, "%s row %zu: %s%s%s = %.17g above %s%s%s = %.17g", kt_table_name(t), r,
                            prefix, prev_name, suffix, prev, prefix, chain[i], suffix, v);
            prev = v;
            prev_name = chain[i];
        }
    }
    return 0;
}

/* describe() and min/avg/max columns, under every prefix a "…min" column
 * has ("", "cpu_duration_", "queue_length_", "min (us)", "min_gap_us").  */
static int check_orders(const kt_table *t, char *why, size_t whylen)
{
    static const char *const quartiles[] = { "min", "25%", "50%", "75%", "max", NULL };
    static const char *const mean[] = { "min", "mean", "max", NULL };
    static const char *const avg[] = { "min", "avg", "max", NULL };
    static const char *const median[] = { "min", "median", "max", NULL };
    static const char *const gap[] = { "min_gap_us", "avg_gap_us", "max_gap_us", NULL };
    static const char *const *const chains[] = { quartiles, mean, avg, median };
    int bad = check_chain(t, "", gap, "", why, whylen);
    for (size_t c = 0; !bad && c < kt_table_ncols(t); c++) {
        const char *name = kt_table_col_name(t, c);
        const char *m = strstr(name, "min");
        if (!m || (m != name && m[-1] != '_')) continue;
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(m - name), name);
        for (size_t k = 0; !bad && k < sizeof chains / sizeof *chains; k++)
            bad = check_chain(t, prefix, chains[k], m + 3, why, whylen);
    }
    return bad;
}

/* Parts of a span: each >= 0 and together not above it (the column whole,
 * or the constant limit when whole is NULL).                              */
static int check_parts(const kt_table *t, const char *const *parts, const char *whole, double limit, char *why,
                       size_t whylen)
{
    long w = whole ? kt_table_col_index(t, whole) : -1;
    if (whole && w < 0) return 0;
    for (size_t r = 0; r < kt_table_nrows(t); r++) {
        if (whole && kt_table_is_null(t, r, (size_t)w)) continue;
        double sum = 0, span = whole ? num(t, r, (size_t)w) : limit;
        for (size_t i = 0; parts[i]; i++) {
            long c = kt_table_col_index(t, parts[i]);
            if (c < 0 || kt_table_is_null(t, r, (size_t)c)) continue;
            double v = num(t, r, (size_t)c);
            if (!le(0, v)) return fail(why, whylen, "%s row %zu: %s = %.17g < 0", kt_table_name(t), r, parts[i], v);
            sum += v;
        }
        if (!le(sum, span))
            return fail(why, whylen, "%s row %zu: parts sum to %.17g, above %s = %.17g", kt_table_name(t), r, sum,
                        whole ? whole : "the limit", span);
    }
    return 0;
}

/* Under hta_compat, temporal reproduces HTA's sweep over µs-rounded times,
 * where a -1 µs duration makes a part negative [QUIRK]: not checked.     */
static int check_spans(const kt_table *t, int hta_compat, char *why, size_t whylen)
{
    static const char *const temporal[] = { "idle_time(us)", "compute_time(us)", "non_compute_time(us)", NULL };
    static const char *const temporal_pct[] = { "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg",
                                                NULL };
    static const char *const device_idle[] = { "idle_us", "busy_us", NULL };
    static const char *const max_idle[] = { "max_idle_us", NULL };
    static const char *const gap_mean[] = { "gap_mean_us", NULL };
    static const char *const gaps[] = { "gaps", NULL };
    bool temporal_checked = !hta_compat || strcmp(kt_table_name(t), "temporal_breakdown");
    return (temporal_checked && check_parts(t, temporal, "kernel_time(us)", 0, why, whylen)) ||
           (temporal_checked && check_parts(t, temporal_pct, NULL, 100 + 3 * 0.005, why, whylen)) || /* 0.01 rounding */
           check_parts(t, device_idle, "span_us", 0, why, whylen) ||
           check_parts(t, max_idle, "idle_us", 0, why, whylen) ||
           check_parts(t, gap_mean, "gap_max_us", 0, why, whylen) ||
           check_parts(t, gaps, "events", 0, why, whylen);
}

size_t fz_csv_rows(const char *csv, size_t len)
{
    size_t lines = 0;
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (csv[i] == '"') quoted = !quoted;
        else if (csv[i] == '\n' && !quoted) lines++;
    }
    return lines ? lines - 1 : 0; /* the header line */
}

/* print_table_json_keys starts each row object on a line of its own, and
 * escapes newlines inside strings, so rows are the "\n  {" at line starts. */
size_t fz_json_rows(const char *json, size_t len)
{
    size_t rows = 0;
    for (size_t i = 0; i + 3 < len; i++) rows += !memcmp(json + i, "\n  {", 4);
    return rows;
}

typedef void (*printer)(const kt_table *, FILE *);

static size_t rendered_rows(const kt_table *t, printer print, size_t (*count)(const char *, size_t))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return kt_table_nrows(t); /* out of memory: nothing to compare */
    print(t, f);
    fclose(f);
    size_t rows = count(buf, len);
    free(buf);
    return rows;
}

static int check_renderings(const kt_table *t, char *why, size_t whylen)
{
    size_t n = kt_table_nrows(t), csv = rendered_rows(t, print_table_csv, fz_csv_rows);
    size_t json = rendered_rows(t, print_table_json, fz_json_rows);
    size_t text = rendered_rows(t, print_table_text, fz_csv_rows); /* rendered for the sanitizers only */
    (void)text;
    if (csv != n || json != n)
        return fail(why, whylen, "%s: %zu rows, CSV shows %zu, JSON %zu", kt_table_name(t), n, csv, json);
    return 0;
}

int fz_check_tables(const kt_tables *ts, const int *ranks, size_t nranks, int hta_compat, char *why,
                    size_t whylen)
{
    int bad = 0;
    for (size_t i = 0; !bad && i < kt_tables_count(ts); i++) {
        const kt_table *t = kt_tables_get(ts, i);
        if (!t || !kt_table_name(t)) return fail(why, whylen, "table %zu is missing or unnamed", i);
        bad = check_cells(t, ranks, nranks, hta_compat, why, whylen) || check_orders(t, why, whylen) ||
              check_spans(t, hta_compat, why, whylen) || check_renderings(t, why, whylen);
    }
    return bad;
}
