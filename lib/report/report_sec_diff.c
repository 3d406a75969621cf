/*
 * report_sec_diff.c — the report's diff section (`kineta report TEST
 * --baseline CONTROL`), from kt_diff with the CLI's defaults and --by op:
 * the largest increases and decreases of GPU time by kernel and by
 * launching op (table side_by_side, already ordered by |delta|), and how
 * many op names were added, deleted, got more or fewer calls (ops_diff).
 * Only pages given a baseline have it.
 */
#include "analysis/common/kernel_names.h"
#include "report/report_sections.h"

#include <stdlib.h>
#include <string.h>

#define TOP 12       /* bars per chart */
#define TABLE_ROWS 30

static const char *const changes[] = { "added", "deleted", "increased", "decreased", "unchanged" };
#define NCHANGES (sizeof changes / sizeof *changes)

bool rp_has_baseline(rp_ctx *c)
{
    return c->opt->baseline != NULL;
}

/* The first TOP rows of side_by_side whose delta has the sign wanted (in
 * |delta| order), drawn as bars of the size of the change.               */
static void delta_bars(rp_ctx *c, const kt_table *s, const char *title, int sign, const char *const *shown)
{
    const char *labels[TOP];
    double v[TOP];
    size_t n = 0;
    long d = rp_col(s, "delta_time_us");
    for (size_t i = 0; i < kt_table_nrows(s) && n < TOP; i++) {
        double x = rp_num(s, i, d) * sign;
        if (!(x > 0)) continue;
        labels[n] = shown[i];
        v[n++] = x;
    }
    if (n) rp_whisker_bars(c->h, title, NULL, labels, v, NULL, NULL, n, RP_US);
    else rp_note(c->h, sign > 0 ? "No key takes more GPU time." : "No key takes less GPU time.");
}

static void side_table(rp_ctx *c, const kt_table *s, const char *caption, const char *key)
{
    const char *head[] = { key, "baseline GPU time", "GPU time", "change", "change %", "baseline calls", "calls" };
    static const char *const cols[] = { "Control_time_us", "Test_time_us", "delta_time_us", "delta_pct",
                                        "Control_count", "Test_count" };
    static const rp_unit units[] = { RP_US, RP_US, RP_US, RP_PCT, RP_COUNT, RP_COUNT };
    rp_table_begin(c->h, caption, head, 7);
    for (size_t i = 0; i < kt_table_nrows(s) && i < TABLE_ROWS; i++) {
        rp_row_begin(c->h);
        rp_cell_name(c->h, rp_str(s, i, 0), 80);
        for (size_t k = 0; k < 6; k++) rp_cell_from(c->h, s, i, rp_col(s, cols[k]), units[k]);
        rp_row_end(c->h);
    }
    rp_table_end(c->h);
}

/* Charts and table of one side_by_side (by kernel: short kernel names). */
static kt_status side_by_side(rp_ctx *c, rp_analysis a, const char *what, bool kernels)
{
    const kt_table *s = rp_table(c, a, "side_by_side");
    if (!s) {
        rp_missing(c, a, what);
        return KT_OK;
    }
    size_t n = kt_table_nrows(s);
    const char **full = malloc((n + 1) * sizeof *full), **shown = malloc((n + 1) * sizeof *shown);
    char **owned = calloc(n + 1, sizeof *owned);
    kt_status st = full && shown && owned ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) full[i] = rp_str(s, i, 0);
    if (st == KT_OK && kernels && !kt_kernel_display_names(full, n, owned)) st = KT_ENOMEM;
    for (size_t i = 0; st == KT_OK && i < n; i++) shown[i] = kernels ? owned[i] : full[i];
    char title[96], caption[128];
    rp_raw(c->h, "<div class=\"charts\">");
    snprintf(title, sizeof title, "More GPU time than the baseline, by %s", what);
    if (st == KT_OK) delta_bars(c, s, title, 1, shown);
    snprintf(title, sizeof title, "Less GPU time than the baseline, by %s", what);
    if (st == KT_OK) delta_bars(c, s, title, -1, shown);
    rp_raw(c->h, "</div>\n");
    snprintf(caption, sizeof caption, "GPU time by %s against the baseline (kineta diff%s, table side_by_side)", what,
             kernels ? "" : " --by op");
    if (st == KT_OK) side_table(c, s, caption, what);
    for (size_t i = 0; owned && i < n; i++) free(owned[i]);
    free(full), free(shown), free(owned);
    return st;
}

/* How many op names changed in each way (ops_diff rows by change). */
static void ops_diff_chart(rp_ctx *c)
{
    const kt_table *o = rp_table(c, RP_DIFF, "ops_diff");
    if (!o) return;
    double v[NCHANGES] = { 0 };
    for (size_t i = 0; i < kt_table_nrows(o); i++)
        for (size_t k = 0; k < NCHANGES; k++)
            if (!strcmp(rp_str(o, i, rp_col(o, "change")), changes[k])) v[k]++;
    rp_whisker_bars(c->h, "Op names by change in calls (kineta diff, table ops_diff)", "change", changes, v, NULL,
                    NULL, NCHANGES, RP_COUNT);
}

kt_status rp_sec_diff(rp_ctx *c)
{
    ops_diff_chart(c);
    kt_status st = side_by_side(c, RP_DIFF, "kernel", true);
    if (st == KT_OK) st = side_by_side(c, RP_DIFF_BY_OP, "op", false);
    return st;
}
