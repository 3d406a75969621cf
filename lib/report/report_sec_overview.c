/*
 * report_sec_overview.c — the report's first section: what was loaded
 * (files, ranks, devices, streams, steps, span, warnings), from kt_info's
 * tables and the loader's diagnostics.
 */
#include "report/report_sections.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WARNINGS 50

static void fact(rp_html *h, const char *name, const char *value)
{
    rp_raw(h, "<dt>");
    rp_text(h, name);
    rp_raw(h, "</dt><dd>");
    rp_text(h, value);
    rp_raw(h, "</dd>");
}

/* Distinct values of a string column, comma-separated. */
static void distinct_strings(const kt_table *t, long col, char *b, size_t cap)
{
    b[0] = 0;
    for (size_t i = 0; t && i < kt_table_nrows(t); i++) {
        const char *s = rp_str(t, i, col);
        if (!*s || strstr(b, s)) continue;
        size_t len = strlen(b);
        snprintf(b + len, cap - len, "%s%s", len ? ", " : "", s);
    }
    if (!b[0]) snprintf(b, cap, "unknown");
}

static void facts(rp_ctx *c, const kt_table *ranks, const kt_table *streams, const kt_table *steps)
{
    char b[512], v[64];
    double first = INFINITY, last = -INFINITY, events = 0, warnings = 0;
    for (size_t i = 0; i < kt_table_nrows(ranks); i++) {
        first = fmin(first, rp_num(ranks, i, rp_col(ranks, "first_ts_ns")));
        last = fmax(last, rp_num(ranks, i, rp_col(ranks, "last_end_ns")));
        events += rp_num(ranks, i, rp_col(ranks, "events"));
        warnings += rp_num(ranks, i, rp_col(ranks, "warnings"));
    }
    rp_raw(c->h, "<dl class=\"facts\">");
    snprintf(b, sizeof b, "%zu", c->nranks);
    fact(c->h, "ranks (files)", b);
    distinct_strings(ranks, rp_col(ranks, "device_type"), b, sizeof b);
    fact(c->h, "device type", b);
    fact(c->h, "events", rp_fmt(v, sizeof v, events, RP_COUNT));
    fact(c->h, "time span", rp_fmt(v, sizeof v, (last - first) / 1e3, RP_US));
    fact(c->h, "GPU streams", rp_fmt(v, sizeof v, streams ? (double)kt_table_nrows(streams) : 0, RP_COUNT));
    size_t cpu_steps = 0;
    for (size_t i = 0; steps && i < kt_table_nrows(steps); i++)
        cpu_steps += !strcmp(rp_str(steps, i, rp_col(steps, "side")), "cpu");
    fact(c->h, "profiler steps (all ranks)", rp_fmt(v, sizeof v, (double)cpu_steps, RP_COUNT));
    fact(c->h, "loader warnings", rp_fmt(v, sizeof v, warnings, RP_COUNT));
    rp_raw(c->h, "</dl>\n");
}

/* GPU events per rank by kind, summed over its streams. */
static kt_status events_chart(rp_ctx *c, const kt_table *streams)
{
    static const char *const kinds[] = { "kernels", "memcpy", "memset", "sync" };
    enum { NK = 4 };
    double *v = calloc(c->nranks * NK + 1, sizeof *v);
    if (!v) return KT_ENOMEM;
    long rc = rp_col(streams, "rank");
    for (size_t r = 0; r < c->nranks; r++)
        for (size_t i = 0; i < kt_table_nrows(streams); i++) {
            if (rp_num(streams, i, rc) != c->ranks[r]) continue;
            for (int k = 0; k < NK; k++) v[r * NK + (size_t)k] += rp_num(streams, i, rp_col(streams, kinds[k]));
        }
    rp_raw(c->h, "<div class=\"charts\">");
    rp_stacked_bars(c->h, "GPU events per rank", "rank", c->rank_labels, c->nranks, kinds, NK, v, RP_COUNT);
    rp_raw(c->h, "</div>\n");
    free(v);
    return KT_OK;
}

static void ranks_table(rp_ctx *c, const kt_table *ranks)
{
    static const char *const head[] = { "rank", "file", "device type", "world size", "events", "time span", "warnings" };
    rp_table_begin(c->h, "Files and ranks", head, 7);
    for (size_t i = 0; i < kt_table_nrows(ranks); i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, ranks, i, rp_col(ranks, "rank"), RP_PLAIN);
        rp_cell_name(c->h, rp_str(ranks, i, rp_col(ranks, "file")), 60);
        rp_cell_text(c->h, rp_str(ranks, i, rp_col(ranks, "device_type")));
        rp_cell_from(c->h, ranks, i, rp_col(ranks, "world_size"), RP_PLAIN);
        rp_cell_from(c->h, ranks, i, rp_col(ranks, "events"), RP_COUNT);
        double span = rp_num(ranks, i, rp_col(ranks, "last_end_ns")) - rp_num(ranks, i, rp_col(ranks, "first_ts_ns"));
        rp_cell_num(c->h, span / 1e3, RP_US);
        rp_cell_from(c->h, ranks, i, rp_col(ranks, "warnings"), RP_COUNT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

/* Per rank: CPU-side ProfilerStep count, first and last step, mean time. */
static void steps_table(rp_ctx *c, const kt_table *steps)
{
    static const char *const head[] = { "rank", "steps", "first step", "last step", "mean step time" };
    rp_table_begin(c->h, "Profiler steps (CPU side)", head, 5);
    long rc = rp_col(steps, "rank"), sc = rp_col(steps, "step"), dc = rp_col(steps, "dur_ns");
    for (size_t r = 0; r < c->nranks; r++) {
        double n = 0, first = INFINITY, last = -INFINITY, dur = 0;
        for (size_t i = 0; steps && i < kt_table_nrows(steps); i++) {
            if (rp_num(steps, i, rc) != c->ranks[r] || strcmp(rp_str(steps, i, rp_col(steps, "side")), "cpu")) continue;
            n++, dur += rp_num(steps, i, dc);
            first = fmin(first, rp_num(steps, i, sc)), last = fmax(last, rp_num(steps, i, sc));
        }
        rp_row_begin(c->h);
        rp_cell_num(c->h, c->ranks[r], RP_PLAIN);
        rp_cell_num(c->h, n, RP_COUNT);
        rp_cell_num(c->h, n ? first : NAN, RP_PLAIN);
        rp_cell_num(c->h, n ? last : NAN, RP_PLAIN);
        rp_cell_num(c->h, n ? dur / n / 1e3 : NAN, RP_US);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

static void warnings_list(rp_ctx *c)
{
    const kt_diags *d = kt_trace_diags(c->t);
    size_t n = kt_diags_count(d);
    if (!n) return;
    rp_printf(c->h, "<h3>Loader diagnostics (%zu)</h3><ul>", n);
    for (size_t i = 0; i < n && i < MAX_WARNINGS; i++) {
        const kt_diag *g = kt_diags_get(d, i);
        rp_raw(c->h, "<li>");
        rp_text(c->h, g->level == KT_DIAG_ERROR ? "error: " : g->level == KT_DIAG_WARNING ? "warning: " : "note: ");
        if (g->file) {
            rp_text(c->h, g->file);
            rp_raw(c->h, ": ");
        }
        rp_text(c->h, g->message);
        rp_raw(c->h, "</li>");
    }
    if (n > MAX_WARNINGS) rp_printf(c->h, "<li>… and %zu more</li>", n - MAX_WARNINGS);
    rp_raw(c->h, "</ul>\n");
}

kt_status rp_sec_overview(rp_ctx *c)
{
    const kt_table *ranks = rp_table(c, RP_INFO, "ranks"), *streams = rp_table(c, RP_INFO, "streams");
    const kt_table *steps = rp_table(c, RP_INFO, "steps");
    if (!ranks) {
        rp_missing(c, RP_INFO, "ranks");
        return KT_OK;
    }
    facts(c, ranks, streams, steps);
    if (streams) {
        kt_status st = events_chart(c, streams);
        if (st != KT_OK) return st;
    }
    ranks_table(c, ranks);
    steps_table(c, steps);
    warnings_list(c);
    return KT_OK;
}
