/*
 * report_sec_memory.c — the report's device-memory section, from
 * kt_memory: allocated and reserved bytes over time per device (from the
 * events it keeps for the report, not its series table), the peak per
 * device, and the ops holding memory at the peak.  Only traces taken
 * with profile_memory=True have the [memory] events it draws; on others
 * the section is left out of the page (rp_has_memory).
 */
#include "report/report_sections.h"

#include <stdlib.h>

#define MAX_LINES 10 /* series per chart: one colour each */

bool rp_has_memory(rp_ctx *c)
{
    const kt_table *d = rp_table(c, RP_MEMORY, "devices");
    long col = d ? rp_col(d, "allocations") : -1;
    for (size_t i = 0; d && i < kt_table_nrows(d); i++)
        if (rp_num(d, i, col) > 0) return true;
    return false;
}

/* Allocated and reserved per device of one rank, as one chart. */
static void rank_chart(rp_ctx *c, int rank, const rp_groups *alloc, const rp_groups *resv, rp_series *buf)
{
    size_t n = 0;
    for (size_t i = 0; i < alloc->n && n < MAX_LINES; i++)
        if (alloc->rank[i] == rank) buf[n++] = alloc->s[i];
    for (size_t i = 0; i < resv->n && n < MAX_LINES; i++)
        if (resv->rank[i] == rank) buf[n++] = resv->s[i];
    if (n) rp_lines(c->h, "Device memory over time", "time since trace start", RP_US, "bytes", RP_BYTES, buf, n, 1,
                    c->opt->max_points);
    else rp_note(c->h, "No [memory] events on this rank.");
}

static kt_status charts(rp_ctx *c)
{
    enum { ALLOC, RESV };
    rp_groups g[2];
    kt_status st = rp_group_memory(c->t, c->memory_ranks, c->nmemory_ranks, g);
    if (st != KT_OK) return st;
    rp_series *buf = malloc(MAX_LINES * sizeof *buf);
    if (!buf) st = KT_ENOMEM;
    for (size_t r = 0; buf && r < c->nranks; r++) {
        rp_rank_panel_begin(c->h, c->ranks[r]);
        rank_chart(c, c->ranks[r], &g[ALLOC], &g[RESV], buf);
        rp_rank_panel_end(c->h);
    }
    free(buf);
    rp_groups_free(&g[ALLOC]);
    rp_groups_free(&g[RESV]);
    return st;
}

static void devices_table(rp_ctx *c, const kt_table *d)
{
    static const char *const head[] = { "rank", "device", "allocations", "peak allocated", "at", "peak reserved",
                                        "allocated at the end" };
    static const char *const cols[] = { "rank", "device", "allocations", "peak_allocated", "peak_ts",
                                        "peak_reserved", "final_allocated" };
    static const rp_unit units[] = { RP_PLAIN, RP_PLAIN, RP_COUNT, RP_BYTES, RP_US, RP_BYTES, RP_BYTES };
    rp_table_begin(c->h, "Peak per device (kineta memory, table devices)", head, 7);
    for (size_t i = 0; i < kt_table_nrows(d) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, d, i, rp_col(d, cols[0]), RP_PLAIN);
        rp_cell_text(c->h, rp_str(d, i, rp_col(d, cols[1])));
        for (size_t k = 2; k < 7; k++) rp_cell_from(c->h, d, i, rp_col(d, cols[k]), units[k]);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

static void peak_ops_table(rp_ctx *c, const kt_table *p)
{
    static const char *const head[] = { "rank", "device", "op", "bytes held at the peak", "allocations",
                                        "% of peak" };
    rp_table_begin(c->h, "Ops holding memory at the peak (kineta memory, table peak_ops)", head, 6);
    for (size_t i = 0; i < kt_table_nrows(p) && i < c->opt->max_rows; i++) {
        rp_row_begin(c->h);
        rp_cell_from(c->h, p, i, rp_col(p, "rank"), RP_PLAIN);
        rp_cell_text(c->h, rp_str(p, i, rp_col(p, "device")));
        rp_cell_name(c->h, rp_str(p, i, rp_col(p, "op")), 60);
        rp_cell_from(c->h, p, i, rp_col(p, "bytes_held"), RP_BYTES);
        rp_cell_from(c->h, p, i, rp_col(p, "allocations"), RP_COUNT);
        rp_cell_from(c->h, p, i, rp_col(p, "pct_of_peak"), RP_PCT);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

kt_status rp_sec_memory(rp_ctx *c)
{
    if (!rp_tables(c, RP_MEMORY)) {
        rp_missing(c, RP_MEMORY, "device memory");
        return KT_OK;
    }
    kt_status st = charts(c);
    const kt_table *d = rp_table(c, RP_MEMORY, "devices"), *p = rp_table(c, RP_MEMORY, "peak_ops");
    if (st == KT_OK && d) devices_table(c, d);
    if (st == KT_OK && p) peak_ops_table(c, p);
    return st;
}
