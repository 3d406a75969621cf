/*
 * report_svg.h — the charts of `kineta report` as inline SVG: pie, stacked
 * bars, bars with min/max whiskers, histogram (log or linear bins),
 * line/step series and log-log scatter.
 *
 * Each chart is a <figure class="chart" data-n="N"> holding one titled,
 * labelled <svg>; N is the number of data points drawn and every drawn
 * datum is an element of class "mark" with a hover <title> (full names,
 * values with units) — the page's self-check and the browser test count
 * them.  Long series are reduced to a bounded number of points here, so
 * the page size does not grow with the trace.
 */
#ifndef KT_REPORT_SVG_H
#define KT_REPORT_SVG_H

#include "output/report_html.h"

#include <stddef.h>

/* The next chart's hover title, when it should say more than its title
 * (a kernel's full name over its short one; through rp_name_ref); used
 * once.                                                                    */
void rp_next_chart_tip(rp_html *h, const char *tip);

/* Pie of values[0..n) (≤ 0 left out), legend with labels cut for room;
 * hover shows full[i] (NULL: the labels; through rp_name_ref, so full[i]
 * must live until the page ends).                                         */
void rp_pie(rp_html *h, const char *title, const char *const *labels, const char *const *full,
            const double *values, size_t n, rp_unit unit);

/* Vertical stacked bars: nbars bars (bar_labels) of nsegs segments
 * (seg_labels); values[b * nsegs + s].                                      */
void rp_stacked_bars(rp_html *h, const char *title, const char *x_label, const char *const *bar_labels,
                     size_t nbars, const char *const *seg_labels, size_t nsegs, const double *values,
                     rp_unit unit);

/* Bars of value[i] with a whisker from lo[i] to hi[i] (lo/hi NULL: plain
 * bars); NaN values are left out.                                           */
void rp_whisker_bars(rp_html *h, const char *title, const char *x_label, const char *const *labels,
                     const double *value, const double *lo, const double *hi, size_t n, rp_unit unit);

/* Histogram: counts[i] of [edges[i], edges[i+1]); log_x places the edges
 * on a log scale (they must then be > 0).                                   */
void rp_histogram(rp_html *h, const char *title, const char *x_label, const double *edges,
                  const double *counts, size_t n, int log_x, rp_unit x_unit);

/* One line (or step function when step) per series, on shared axes. */
typedef struct rp_series {
    const char *label;
    const double *x, *y;
    size_t n;
    bool x_sorted; /* x ascending, no NaN (the x range is read at its ends) */
} rp_series;
void rp_lines(rp_html *h, const char *title, const char *x_label, rp_unit x_unit, const char *y_label,
              rp_unit y_unit, const rp_series *s, size_t ns, int step, size_t max_points);

/* Scatter on log-log axes: one colour per group, a point per (x[i], y[i])
 * with names[i] and both values on hover; points not > 0 on both axes
 * cannot be placed and are left out (not counted in data-n).             */
typedef struct rp_points {
    const char *label;
    const double *x, *y;
    const char *const *names;
    size_t n;
} rp_points;
void rp_scatter(rp_html *h, const char *title, const char *x_label, const char *y_label, const rp_points *g,
                size_t ng);

/* Min/max decimation of (x, y)[0..n) sorted by x into at most max points
 * (each bucket keeps its lowest and highest point, in x order); writes the
 * kept indexes into keep and returns their count (n when n <= max).        */
size_t rp_decimate(const double *x, const double *y, size_t n, size_t max, size_t *keep);

#endif
