/*
 * stragglers.c — `kineta stragglers`: which rank holds the others back.
 *
 * Under --hta-compat, HTA's answer (hta_stragglers.c).  By default the same
 * metric with current NCCL names, plus two kinds of direct evidence, each
 * a verdict only above a minimum effect and sample (else "inconclusive"):
 *   - arrivals: over matched implicit-sync collectives (aligned clocks), a
 *     rank that arrives last at most of them and so waits least is what
 *     every other rank waits for;
 *   - compute: a rank whose computation-kernel time per ProfilerStep is an
 *     outlier across ranks (robust z-score: 0.6745·(x − median)/MAD) is
 *     slow by itself, whatever the collectives show.
 */
#include "analysis/collectives/collectives_tables.h"
#include "analysis/collectives/hta_stragglers.h"
#include "analysis/common/kernel_type.h"
#include "model/index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kt_stragglers_options_init(kt_stragglers_options *o, size_t size)
{
    const kt_stragglers_options d = { .candidates = 2, .align = KT_ALIGN_COLLECTIVES, .z_threshold = 3.5,
                                      .min_steps = 3, .min_collectives = 10, .min_effect_pct = 10 };
    kt_options_init(o, size, &d, sizeof d);
}

typedef struct compute_row {
    int rank;
    size_t steps;
    double per_step_us, z;
} compute_row;

static bool step_wanted(const kt_stragglers_options *o, int64_t s)
{
    if (s < 0) return false;
    for (size_t i = 0; o->steps && i < o->nsteps; i++)
        if (o->steps[i] == s) return true;
    return !o->steps;
}

/* Computation-kernel time per selected step of one rank. */
static kt_status rank_compute(const kt_trace *t, const kt_rank *r, const kt_stragglers_options *o, compute_row *row)
{
    kt_type_cache *tc = kt_type_cache_new(t->strs, t->hta_compat);
    if (!tc) return KT_ENOMEM;
    size_t steps = 0;
    for (size_t k = 0; k < r->idx->ncpu_steps; k++) steps += step_wanted(o, r->idx->cpu_steps[k].num);
    double total = 0;
    for (size_t s = 0; s < r->idx->nstreams; s++)
        for (size_t i = 0; i < r->idx->streams[s].n; i++) {
            uint32_t ev = r->idx->streams[s].ev[i];
            if (r->ev.kind[ev] != KT_K_KERNEL || kt_event_kernel_type(tc, r, ev) != KT_TYPE_COMPUTATION) continue;
            if (step_wanted(o, kt_event_step(r, ev))) total += r->ev.dur[ev] / 1e3;
        }
    kt_type_cache_free(tc);
    *row = (compute_row){ .rank = r->rank, .steps = steps, .per_step_us = steps ? total / steps : NAN };
    return KT_OK;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Robust z of every rank's compute time per step. */
static kt_status robust_z(compute_row *rows, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return KT_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(rows[i].per_step_us)) v[m++] = rows[i].per_step_us;
    double med = m ? median_of(v, m) : NAN;
    for (size_t i = 0; i < m; i++) v[i] = fabs(v[i] - med);
    double mad = m ? median_of(v, m) : NAN;
    for (size_t i = 0; i < n; i++) {
        double d = rows[i].per_step_us - med;
        rows[i].z = m < 3 ? NAN : mad > 0 ? 0.6745 * d / mad : d == 0 ? 0 : copysign(INFINITY, d);
    }
    free(v);
    return KT_OK;
}

static kt_table *compute_table(const compute_row *rows, size_t n)
{
    kt_table *tb = kt_table_new("compute");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "steps", KT_COL_INT, 0);
    kt_table_add_col(tb, "compute_us_per_step", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "robust_z", KT_COL_FLOAT, 3);
    for (size_t i = 0; i < n; i++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, rows[i].rank);
        kt_table_set_int(tb, 1, (int64_t)rows[i].steps);
        kt_table_set_float(tb, 2, rows[i].per_step_us);
        if (!isinf(rows[i].z)) kt_table_set_float(tb, 3, rows[i].z);
        else kt_table_set_float(tb, 3, rows[i].z > 0 ? 1e308 : -1e308);
    }
    return tb;
}

static kt_table *arrivals_table(const kt_rank_arrivals *a, size_t n)
{
    kt_table *tb = kt_table_new("arrivals");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "collectives", KT_COL_INT, 0);
    kt_table_add_col(tb, "times_arrived_last", KT_COL_INT, 0);
    kt_table_add_col(tb, "pct_arrived_last", KT_COL_FLOAT, 2);
    kt_table_add_col(tb, "total_wait_time_us", KT_COL_FLOAT, 3);
    kt_table_add_col(tb, "mean_wait_time_us", KT_COL_FLOAT, 3);
    for (size_t i = 0; i < n; i++) {
        kt_table_add_row(tb);
        kt_table_set_int(tb, 0, a[i].rank);
        kt_table_set_int(tb, 1, a[i].collectives);
        kt_table_set_int(tb, 2, a[i].last);
        kt_table_set_float(tb, 3, a[i].collectives ? 100.0 * a[i].last / a[i].collectives : NAN);
        kt_table_set_float(tb, 4, a[i].total_wait_us);
        kt_table_set_float(tb, 5, a[i].collectives ? a[i].total_wait_us / a[i].collectives : NAN);
    }
    return tb;
}

/* What the verdict table is made from: every rank's arrivals and compute,
 * and HTA's flagged ranks (its "hta_stragglers" table, NULL or without a
 * "count" column when HTA has no answer).                                */
typedef struct evidence {
    const kt_stragglers_options *o;
    const kt_rank_arrivals *a;
    size_t na;
    const compute_row *c;
    size_t nc;
    const kt_table *hta;
    size_t conclusive;     /* rows that name a straggler */
} evidence;

static void verdict_row(kt_table *tb, int rank, const char *verdict, const char *source, const char *ev)
{
    kt_table_add_row(tb);
    if (rank >= 0) kt_table_set_int(tb, 0, rank);
    kt_table_set_str(tb, 1, verdict);
    kt_table_set_str(tb, 2, ev);
    kt_table_set_str(tb, 3, source);
}

/* The late arriver: most "arrived last", more than half of its collectives,
 * and the least total wait of all ranks; a verdict from at least
 * min_collectives collectives, else inconclusive.                         */
static void late_arriver_verdict(kt_table *tb, evidence *e)
{
    const kt_rank_arrivals *a = e->a;
    size_t n = e->na, best = 0, least_wait = 0;
    for (size_t i = 1; i < n; i++) {
        if (a[i].last > a[best].last) best = i;
        if (a[i].total_wait_us < a[least_wait].total_wait_us) least_wait = i;
    }
    if (n < 2 || a[best].collectives == 0 || 2 * a[best].last <= a[best].collectives || best != least_wait) return;
    bool enough = a[best].collectives >= e->o->min_collectives;
    char ev[384];
    snprintf(ev, sizeof ev, "arrived last at %u of %u collectives (%.1f%%); waited %.3f us in total, the least of %zu ranks%s",
             a[best].last, a[best].collectives, 100.0 * a[best].last / a[best].collectives, a[best].total_wait_us, n,
             enough ? "" : "; fewer collectives than the minimum (min_collectives)");
    verdict_row(tb, a[best].rank, enough ? "arrives last" : "inconclusive", "arrivals", ev);
    e->conclusive += enough;
}

static double median_compute(const compute_row *rows, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; v && i < n; i++)
        if (!isnan(rows[i].per_step_us)) v[m++] = rows[i].per_step_us;
    double med = v && m ? median_of(v, m) : NAN;
    free(v);
    return med;
}

/* An outlier (robust z above the threshold) is slow compute when its
 * excess over the median is at least min_effect_pct and it rests on at
 * least min_steps steps; below either, inconclusive.                      */
static void compute_verdicts(kt_table *tb, evidence *e)
{
    double med = median_compute(e->c, e->nc);
    for (size_t i = 0; i < e->nc; i++) {
        const compute_row *r = &e->c[i];
        if (isnan(r->z) || r->z <= e->o->z_threshold) continue;
        double excess = r->per_step_us - med, pct = med > 0 ? 100.0 * excess / med : INFINITY;
        bool few = r->steps < e->o->min_steps, small = pct < e->o->min_effect_pct;
        char ev[384];
        snprintf(ev, sizeof ev,
                 "computation kernels take %.3f us per step over %zu steps, %.3f us (%.1f%%) above the median of %zu "
                 "ranks; robust z %.2f > %.2f%s%s",
                 r->per_step_us, r->steps, excess, pct, e->nc, r->z, e->o->z_threshold,
                 few ? "; fewer steps than the minimum (min_steps)" : "",
                 small ? "; excess below the minimum effect (min_effect_pct)" : "");
        verdict_row(tb, r->rank, few || small ? "inconclusive" : "slow compute", "compute", ev);
        e->conclusive += !few && !small;
    }
}

/* HTA's flagged ranks as "1, 6" (empty when it has no answer). */
static void hta_ranks(const kt_table *hta, char *buf, size_t cap)
{
    buf[0] = '\0';
    long c = hta ? kt_table_col_index(hta, "rank") : -1;
    for (size_t i = 0, len = 0; c >= 0 && i < kt_table_nrows(hta) && len + 24 < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)kt_table_int(hta, i, (size_t)c));
}

/* No row names a straggler: one row saying whether the evidence sufficed. */
static void overall_verdict(kt_table *tb, const evidence *e)
{
    size_t steps = 0, colls = 0;
    for (size_t i = 0; i < e->nc; i++) steps = e->c[i].steps > steps ? e->c[i].steps : steps;
    for (size_t i = 0; i < e->na; i++) colls = e->a[i].collectives > colls ? e->a[i].collectives : colls;
    bool enough = steps >= e->o->min_steps || colls >= e->o->min_collectives;
    char ev[384];
    snprintf(ev, sizeof ev, "%s: %zu steps (minimum %zu), %zu collectives per rank (minimum %zu)",
             enough ? "no rank arrives last at most collectives or has outlying compute time"
                    : "too little evidence to name or clear a rank",
             steps, e->o->min_steps, colls, e->o->min_collectives);
    verdict_row(tb, -1, enough ? "no straggler" : "inconclusive", "arrivals, compute", ev);
}

/* Footnotes: what each table measures, what it says here, and why they
 * can name different ranks.                                               */
static void verdict_notes(kt_table *tb, const evidence *e)
{
    const kt_stragglers_options *o = e->o;
    kt_table_add_note(tb, "thresholds: robust z > %.2f, excess over the median >= %.1f%%, >= %zu steps (compute); "
                      "> 50%% arrived last, least wait, >= %zu collectives (arrivals); below them: inconclusive",
                      o->z_threshold, o->min_effect_pct, o->min_steps, o->min_collectives);
    size_t la = 0, hc = 0;
    for (size_t i = 1; i < e->na; i++) la = e->a[i].last > e->a[la].last ? i : la;
    for (size_t i = 1; i < e->nc; i++) hc = e->c[i].per_step_us > e->c[hc].per_step_us ? i : hc;
    if (e->na && e->a[la].collectives)
        kt_table_add_note(tb, "arrivals: who reaches the matched collectives last, and so waits least (clocks "
                          "aligned); here rank %d most often, %u of %u", e->a[la].rank, e->a[la].last,
                          e->a[la].collectives);
    else
        kt_table_add_note(tb, "arrivals: who reaches the matched collectives last; here no matched collective");
    double med = median_compute(e->c, e->nc);
    if (e->nc && !isnan(e->c[hc].per_step_us) && med > 0)
        kt_table_add_note(tb, "compute: computation-kernel time per ProfilerStep across ranks; here rank %d most, "
                          "%.1f%% above the median over %zu steps; slow by itself, it holds the others back only "
                          "where that work comes before a collective",
                          e->c[hc].rank, 100.0 * (e->c[hc].per_step_us - med) / med, e->c[hc].steps);
    else
        kt_table_add_note(tb, "compute: computation-kernel time per ProfilerStep across ranks; here no step");
    char flagged[256];
    hta_ranks(e->hta, flagged, sizeof flagged);
    if (*flagged)
        kt_table_add_note(tb, "hta_stragglers (ranks %s): HTA flags the %d latest starts of one communication kernel "
                          "in every step, so it names %d ranks whatever the spread; a late start there is often a "
                          "wait caused by another rank, which is why it can disagree with arrivals and compute",
                          flagged, o->candidates, o->candidates);
    else
        kt_table_add_note(tb, "hta_stragglers: HTA's method has no answer on this trace (its table says why)");
}

static kt_table *verdict_table(evidence *e)
{
    kt_table *tb = kt_table_new("verdict");
    if (!tb) return NULL;
    kt_table_add_col(tb, "rank", KT_COL_INT, 0);
    kt_table_add_col(tb, "verdict", KT_COL_STR, 0);
    kt_table_add_col(tb, "evidence", KT_COL_STR, 0);
    kt_table_add_col(tb, "source", KT_COL_STR, 0);
    late_arriver_verdict(tb, e);
    compute_verdicts(tb, e);
    if (!e->conclusive && kt_table_nrows(tb) == 0) overall_verdict(tb, e);
    verdict_notes(tb, e);
    return tb;
}

static kt_status own_evidence(const kt_trace *t, const kt_rank_sel *sel, const kt_stragglers_options *o,
                              const kt_table *hta, kt_table **tb)
{
    kt_comm_world w;
    kt_status s = kt_comm_world_build(t, sel, o->align, false, &w);
    if (s != KT_OK) return s;
    kt_rank_arrivals *a = kt_rank_arrivals_of(&w);
    compute_row *rows = calloc(t->nranks ? t->nranks : 1, sizeof *rows);
    size_t n = 0;
    s = a && rows ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; s == KT_OK && i < t->nranks; i++)
        if (kt_rank_selected(sel, t->ranks[i]->rank)) s = rank_compute(t, t->ranks[i], o, &rows[n++]);
    if (s == KT_OK) s = robust_z(rows, n);
    if (s == KT_OK) {
        evidence e = { .o = o, .a = a, .na = w.nranks, .c = rows, .nc = n, .hta = hta };
        tb[0] = verdict_table(&e);
        tb[1] = arrivals_table(a, w.nranks);
        tb[2] = compute_table(rows, n);
    }
    free(a);
    free(rows);
    kt_comm_world_free(&w);
    return s;
}

/* HTA's metric has no answer (HTA raises): our evidence still stands; the
 * HTA tables say why they are empty.                                      */
static kt_status hta_unavailable(const char *why, kt_table **tb)
{
    tb[0] = kt_table_new("hta_stragglers");
    tb[1] = kt_table_new("hta_metric");
    if (!tb[0] || !tb[1]) return KT_ENOMEM;
    kt_table_add_col(tb[0], "why_empty", KT_COL_STR, 0);
    kt_table_add_row(tb[0]);
    kt_table_set_str(tb[0], 0, why);
    kt_table_add_col(tb[1], "rank", KT_COL_INT, 0);
    return KT_OK;
}

kt_status kt_stragglers(const kt_trace *t, const kt_rank_sel *sel, const kt_stragglers_options *opt,
                        kt_tables **out)
{
    kt_stragglers_options o = kt_stragglers_defaults();
    if (!kt_options_take(&o, sizeof o, opt)) return KT_EUSAGE;
    kt_hta_straggler_args a = { o.steps, o.nsteps, o.candidates, t->hta_compat,
                                { t->hta_compat ? "stragglers" : "hta_stragglers", t->hta_compat ? "metric" : "hta_metric" } };
    kt_table *tb[5] = { 0 };
    char err[256] = "";
    kt_status s = kt_hta_stragglers(t, sel, &a, &tb[0], &tb[1], err, sizeof err);
    if (t->hta_compat) return s == KT_OK ? kt_tables_from(tb, 2, out) : s;
    if (s == KT_EANALYSIS) s = hta_unavailable(err, tb);
    if (s != KT_OK) return s;
    s = own_evidence(t, sel, &o, tb[0], &tb[2]);
    if (s != KT_OK) {
        for (size_t i = 0; i < 5; i++) kt_table_free(tb[i]);
        return s;
    }
    /* order: verdict first; HTA's tables renamed so both kinds can be read */
    kt_table *ordered[5] = { tb[2], tb[3], tb[4], tb[0], tb[1] };
    return kt_tables_from(ordered, 5, out);
}
