/*
 * report_sec_collectives.c — the report's collectives / stragglers
 * section, from kt_collectives and kt_stragglers with the CLI's defaults
 * (clocks aligned on the collectives): communication kernel time per rank
 * by collective kind, the start skew of each matched collective, the wait
 * per rank, the stragglers verdict and the clock offsets.  Only traces
 * with communication kernels on two or more ranks have it.
 */
#include "report/report_sections.h"

#include <stdlib.h>

#define MAX_INSTANCES 40 /* collectives in the skew chart */
#define LABEL 48

bool rp_has_collectives(rp_ctx *c)
{
    if (c->nranks < 2) return false; /* two ranks with collective kernels at least */
    const kt_table *r = rp_table(c, RP_COLLECTIVES, "ranks");
    size_t n = 0;
    for (size_t i = 0; r && i < kt_table_nrows(r); i++) n += rp_num(r, i, rp_col(r, "comm_kernels")) > 0;
    return n >= 2;
}

/* Start skew of the first MAX_INSTANCES matched collectives: the
 * implicit-sync ones (all-reduce, all-gather, ...), then the others.    */
static kt_status skew_chart(rp_ctx *c)
{
    const kt_table *tabs[2] = { rp_table(c, RP_COLLECTIVES, "implicit_sync"), rp_table(c, RP_COLLECTIVES, "other") };
    char *text = malloc(MAX_INSTANCES * LABEL);
    const char **labels = malloc(MAX_INSTANCES * sizeof *labels);
    double *v = malloc(MAX_INSTANCES * sizeof *v);
    size_t n = 0, total = 0;
    for (size_t k = 0; text && labels && v && k < 2; k++)
        for (size_t i = 0; tabs[k] && i < kt_table_nrows(tabs[k]); i++, total++) {
            if (n == MAX_INSTANCES) continue;
            const kt_table *t = tabs[k];
            snprintf(text + n * LABEL, LABEL, "%s %s", rp_str(t, i, rp_col(t, "Collective name")),
                     rp_str(t, i, rp_col(t, "collective_id")));
            labels[n] = text + n * LABEL;
            v[n++] = rp_num(t, i, rp_col(t, "skew in start time"));
        }
    kt_status st = text && labels && v ? KT_OK : KT_ENOMEM;
    if (st == KT_OK && n)
        rp_whisker_bars(c->h, "Skew in start time per collective (latest − earliest rank)", "collective", labels, v,
                        NULL, NULL, n, RP_US);
    free(text), free(labels), free(v);
    if (st == KT_OK && total > n) {
        char b[128];
        snprintf(b, sizeof b, "The first %zu of %zu collectives are drawn.", n, total);
        rp_note(c->h, b);
    }
    return st;
}

/* Wait per rank over the matched implicit-sync collectives (stragglers'
 * arrivals), when there are some.                                        */
static kt_status wait_chart(rp_ctx *c)
{
    const kt_table *a = rp_table(c, RP_STRAGGLERS, "arrivals");
    size_t n = a ? kt_table_nrows(a) : 0, any = 0;
    for (size_t i = 0; i < n; i++) any += rp_num(a, i, rp_col(a, "collectives")) > 0;
    if (!any) return KT_OK;
    static const char *const seg[] = { "total wait" };
    return rp_pivot_bars(c->h, "Time waiting for the other ranks, per rank", "rank", a, NULL, 0, rp_col(a, "rank"),
                         "rank ", -1, seg, 1, rp_col(a, "total_wait_time_us"), RP_US);
}

static void straggler_tables(rp_ctx *c)
{
    static const rp_column verdict[] = { { "rank", "rank", RP_PLAIN },
                                         { "verdict", "verdict", RP_PLAIN },
                                         { "evidence", "evidence", RP_PLAIN } };
    static const rp_column arrivals[] = { { "rank", "rank", RP_PLAIN },
                                          { "collectives", "collectives", RP_COUNT },
                                          { "times arrived last", "times_arrived_last", RP_COUNT },
                                          { "% arrived last", "pct_arrived_last", RP_PCT },
                                          { "total wait", "total_wait_time_us", RP_US },
                                          { "mean wait", "mean_wait_time_us", RP_US } };
    static const rp_column hta[] = { { "rank", "rank", RP_PLAIN }, { "steps flagged", "count", RP_COUNT } };
    const kt_table *v = rp_table(c, RP_STRAGGLERS, "verdict"), *a = rp_table(c, RP_STRAGGLERS, "arrivals");
    const kt_table *h = rp_table(c, RP_STRAGGLERS, "stragglers");
    if (v) rp_table_cols(c, "Stragglers (kineta stragglers, table verdict)", v, NULL, 0, verdict, 3);
    for (size_t i = 0; v && i < kt_table_nnotes(v); i++) rp_note(c->h, kt_table_note(v, i));
    if (a) rp_table_cols(c, "Arrivals at the collectives (kineta stragglers, table arrivals)", a, NULL, 0, arrivals, 6);
    if (h) rp_table_cols(c, "Potential stragglers (HTA, kineta stragglers, table stragglers)", h, NULL, 0, hta, 2);
    if (!v && !a && !h) rp_missing(c, RP_STRAGGLERS, "stragglers");
}

/* The clock offsets, when some rank's rests on a collective. */
static void offsets_table(rp_ctx *c)
{
    static const rp_column cols[] = { { "rank", "rank", RP_PLAIN },         { "offset", "offset_us", RP_US },
                                      { "spread", "spread_us", RP_US },     { "collectives", "collectives", RP_COUNT },
                                      { "measured against", "via", RP_PLAIN }, { "applied", "applied", RP_PLAIN } };
    const kt_table *o = rp_table(c, RP_COLLECTIVES, "clock_offsets");
    size_t any = 0;
    for (size_t i = 0; o && i < kt_table_nrows(o); i++) any += rp_num(o, i, rp_col(o, "collectives")) > 0;
    if (any) rp_table_cols(c, "Clock offsets (kineta collectives, table clock_offsets)", o, NULL, 0, cols, 6);
}

kt_status rp_sec_collectives(rp_ctx *c)
{
    const kt_table *k = rp_table(c, RP_COLLECTIVES, "kernels");
    if (!k) {
        rp_missing(c, RP_COLLECTIVES, "collectives");
        return KT_OK;
    }
    rp_raw(c->h, "<div class=\"charts\">");
    kt_status st = rp_pivot_bars(c->h, "Communication kernel time per rank", "rank", k, NULL, 0, rp_col(k, "rank"),
                                 "rank ", rp_col(k, "kind"), NULL, 0, rp_col(k, "dur"), RP_US);
    if (st == KT_OK) st = skew_chart(c);
    if (st == KT_OK) st = wait_chart(c);
    rp_raw(c->h, "</div>\n");
    if (st != KT_OK) return st;
    straggler_tables(c);
    offsets_table(c);
    return KT_OK;
}
