/*
 * report_svg.c — inline SVG charts for `kineta report` (see report_svg.h).
 *
 * Hand-written SVG instead of a charting library: the page must work
 * offline with no third-party code, and a few hundred lines of geometry
 * cover the six chart kinds the report needs.  Axes start at zero for
 * bars (lengths compare honestly); ticks are "nice" 1/2/5 steps.
 */
#include "output/report_svg.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define W 560
#define H 300
#define ML 70  /* left margin: y tick labels */
#define MR 16
#define MT 34  /* top: title */
#define MB 46  /* bottom: x tick labels and axis label */
#define LEGEND_CHARS 32
#define KEY_CHARS 30   /* legend entries under a chart */
#define MAX_BAR 56     /* widest bar, px */

static const char *const palette[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                       "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d",
                                       "#8cd17d", "#ff9d9a", "#86bcb6", "#f1ce63", "#d4a6c8", "#fabfd2",
                                       "#d7b5a6", "#79706e" };
#define NPAL (sizeof palette / sizeof *palette)

static const char *color(size_t i)
{
    return palette[i % NPAL];
}

void rp_next_chart_tip(rp_html *h, const char *tip)
{
    h->next_tip = tip;
}

static void chart_begin(rp_html *h, const char *title, size_t n, int w, int hgt)
{
    rp_printf(h, "<figure class=\"chart\" data-n=\"%zu\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\"", n, w, hgt, w, hgt);
    if (h->next_tip) rp_name_attr(h, h->next_tip); /* the title then comes from the name list */
    rp_raw(h, "><title>");
    if (!h->next_tip) rp_text(h, title);
    h->next_tip = NULL;
    /* a long title (a kernel name) is squeezed up to 1.7x before it is cut */
    size_t fits = (size_t)w / 9, len = strlen(title);
    rp_printf(h, "</title><text class=\"title\" x=\"%d\" y=\"18\" text-anchor=\"middle\"", w / 2);
    if (len > fits) rp_printf(h, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", w - 24);
    rp_raw(h, ">");
    rp_text_cut(h, title, fits * 17 / 10);
    rp_raw(h, "</text>\n");
}

static void chart_end(rp_html *h)
{
    rp_raw(h, "</svg></figure>\n");
}

/* A hover title: "label: value". */
static void hover(rp_html *h, const char *label, double v, rp_unit u, const char *extra)
{
    char b[64];
    rp_raw(h, "<title>");
    rp_text(h, label);
    rp_raw(h, ": ");
    rp_raw(h, rp_fmt(b, sizeof b, v, u));
    if (extra) rp_text(h, extra);
    rp_raw(h, "</title>");
}

static double nice_step(double range, int ticks)
{
    if (!(range > 0)) return 1;
    double raw = range / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

/* Linear y axis from 0 to top (rounded up to a tick) with grid lines;
 * returns the rounded top.                                                 */
static double y_axis(rp_html *h, double max, rp_unit u, const char *label, int w)
{
    double step = nice_step(max, 5);
    if (u == RP_COUNT && step < 1) step = 1; /* counts have no fractions */
    double top = step * ceil(max / step);
    if (!(top > 0)) top = 1, step = 0.2;
    char b[64];
    for (double v = 0; v <= top * 1.0001; v += step) {
        double y = H - MB - v / top * (H - MB - MT);
        rp_printf(h, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  ML, w - MR, y, y, ML - 6, y + 4, rp_fmt(b, sizeof b, v, u));
    }
    rp_printf(h, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", ML, w - MR, H - MB, H - MB);
    if (label && (u == RP_PLAIN || u == RP_COUNT)) {
        rp_printf(h, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
                  (H - MB + MT) / 2, (H - MB + MT) / 2);
        rp_text(h, label);
        rp_raw(h, "</text>");
    }
    return top;
}

static void x_label_text(rp_html *h, const char *label, int w)
{
    if (!label) return;
    rp_printf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + w - MR) / 2, H - 6);
    rp_text(h, label);
    rp_raw(h, "</text>\n");
}

/* Category labels under bars, thinned so they do not overlap. */
static void x_categories(rp_html *h, const char *const *labels, size_t n, double x0, double bw)
{
    size_t every = (size_t)ceil(40.0 / (bw > 0 ? bw : 1));
    if (every < 1) every = 1;
    size_t chars = (size_t)(bw * (double)every / 6.5);
    for (size_t i = 0; i < n; i += every) {
        rp_printf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"><title>", x0 + bw * ((double)i + 0.5),
                  H - MB + 15);
        rp_text(h, labels[i]);
        rp_raw(h, "</title>");
        rp_text_cut(h, labels[i], chars < 8 ? 8 : chars > 24 ? 24 : chars);
        rp_raw(h, "</text>");
    }
    rp_raw(h, "\n");
}

/* Legend entries in rows under the chart, from y0; returns the rows used
 * (draw false: only measure).                                              */
static int legend(rp_html *h, const char *const *labels, size_t n, int w, double y0, bool draw)
{
    double x = ML;
    int row = 0;
    for (size_t i = 0; i < n; i++) {
        size_t chars = strlen(labels[i]) < KEY_CHARS ? strlen(labels[i]) : KEY_CHARS;
        double len = 14 + 7.0 * (double)chars;
        if (x + len > w - MR && x > ML) row++, x = ML;
        if (draw) {
            double y = y0 + 15 * row;
            rp_printf(h, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
                      x, y, color(i), x + 12, y + 8.5);
            rp_text_cut(h, labels[i], KEY_CHARS);
            rp_raw(h, "</text>");
        }
        x += len + 10;
    }
    if (draw) rp_raw(h, "\n");
    return n ? row + 1 : 0;
}

void rp_pie(rp_html *h, const char *title, const char *const *labels, const char *const *full,
            const double *values, size_t n, rp_unit unit)
{
    if (!full) full = labels;
    double total = 0;
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        if (values[i] > 0) total += values[i], shown++;
    int w = 560, hgt = 40 + 16 * (int)(shown > 14 ? shown : 14);
    chart_begin(h, title, shown, w, hgt);
    double cx = 130, cy = 28 + (hgt - 28) / 2.0, r = 110, a = -M_PI / 2;
    size_t k = 0;
    char b[64], pct[48];
    for (size_t i = 0; i < n; i++) {
        if (!(values[i] > 0)) continue;
        double frac = values[i] / total, a2 = a + frac * 2 * M_PI;
        snprintf(pct, sizeof pct, " (%s)", rp_fmt(b, sizeof b, 100 * frac, RP_PCT));
        if (shown == 1)
            rp_printf(h, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", cx, cy, r, color(k));
        else
            rp_printf(h, "<path class=\"mark\" d=\"M%.1f %.1fL%.2f %.2fA%.1f %.1f 0 %d 1 %.2f %.2fZ\" fill=\"%s\" "
                         "stroke=\"#fff\" stroke-width=\"1\"",
                      cx, cy, cx + r * cos(a), cy + r * sin(a), r, r, frac > 0.5, cx + r * cos(a2),
                      cy + r * sin(a2), color(k));
        rp_name_attr(h, full[i]);
        rp_raw(h, ">");
        hover(h, "", values[i], unit, pct); /* the name comes from the list */
        rp_raw(h, shown == 1 ? "</circle>\n" : "</path>\n");
        double ly = 40 + 16.0 * (double)k;
        rp_printf(h, "<rect x=\"262\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"278\" y=\"%.1f\">",
                  ly, color(k), ly + 9);
        rp_text_cut(h, labels[i], LEGEND_CHARS);
        rp_printf(h, " — %s</text>\n", pct + 1);
        a = a2;
        k++;
    }
    chart_end(h);
}

void rp_stacked_bars(rp_html *h, const char *title, const char *x_label, const char *const *bar_labels,
                     size_t nbars, const char *const *seg_labels, size_t nsegs, const double *values,
                     rp_unit unit)
{
    double max = 0;
    size_t marks = 0;
    for (size_t b = 0; b < nbars; b++) {
        double sum = 0;
        for (size_t s = 0; s < nsegs; s++)
            if (values[b * nsegs + s] > 0) sum += values[b * nsegs + s], marks++;
        if (sum > max) max = sum;
    }
    int rows = legend(h, seg_labels, nsegs, W, 0, false);
    chart_begin(h, title, marks, W, H + 15 * rows);
    legend(h, seg_labels, nsegs, W, H, true);
    double top = y_axis(h, max, unit, NULL, W);
    double plot_h = H - MB - MT, bw = (double)(W - ML - MR) / (double)(nbars ? nbars : 1);
    double gap = bw > 6 ? bw * 0.2 : 0;
    if (bw - gap > MAX_BAR) gap = bw - MAX_BAR;
    for (size_t b = 0; b < nbars; b++) {
        double y = H - MB;
        for (size_t s = 0; s < nsegs; s++) {
            double v = values[b * nsegs + s];
            if (!(v > 0)) continue;
            double bh = v / top * plot_h;
            y -= bh;
            rp_printf(h, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                      ML + bw * (double)b + gap / 2, y, bw - gap, bh, color(s));
            char extra[160];
            snprintf(extra, sizeof extra, " (%s)", bar_labels[b]);
            hover(h, seg_labels[s], v, unit, extra);
            rp_raw(h, "</rect>");
        }
        rp_raw(h, "\n");
    }
    x_categories(h, bar_labels, nbars, ML, bw);
    x_label_text(h, x_label, W);
    chart_end(h);
}

void rp_whisker_bars(rp_html *h, const char *title, const char *x_label, const char *const *labels,
                     const double *value, const double *lo, const double *hi, size_t n, rp_unit unit)
{
    double max = 0;
    size_t marks = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(value[i])) continue;
        marks++;
        double m = hi && hi[i] > value[i] ? hi[i] : value[i];
        if (m > max) max = m;
    }
    chart_begin(h, title, marks, W, H);
    double top = y_axis(h, max, unit, NULL, W);
    double plot_h = H - MB - MT, bw = (double)(W - ML - MR) / (double)(n ? n : 1), gap = bw > 6 ? bw * 0.25 : 0;
    if (bw - gap > MAX_BAR) gap = bw - MAX_BAR;
    char b1[64], b2[64], tip[200];
    for (size_t i = 0; i < n; i++) {
        if (isnan(value[i])) continue;
        double x = ML + bw * (double)i, bh = fmax(value[i], 0) / top * plot_h;
        rp_printf(h, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                  x + gap / 2, H - MB - bh, bw - gap, bh, color(0));
        tip[0] = 0;
        if (lo && hi)
            snprintf(tip, sizeof tip, " (min %s, max %s)", rp_fmt(b1, sizeof b1, lo[i], unit),
                     rp_fmt(b2, sizeof b2, hi[i], unit));
        hover(h, labels[i], value[i], unit, tip);
        rp_raw(h, "</rect>");
        if (lo && hi && !isnan(lo[i]) && !isnan(hi[i])) {
            double xc = x + bw / 2, y1 = H - MB - lo[i] / top * plot_h, y2 = H - MB - hi[i] / top * plot_h;
            double cap = fmin(bw / 4, 8);
            rp_printf(h, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh%.1fM%.1f %.1fh%.1f\" stroke=\"#323f4b\" "
                         "stroke-width=\"1.2\" fill=\"none\"/>",
                      xc, y1, y2, xc - cap, y1, 2 * cap, xc - cap, y2, 2 * cap);
        }
        rp_raw(h, "\n");
    }
    x_categories(h, labels, n, ML, bw);
    x_label_text(h, x_label, W);
    chart_end(h);
}

static double hist_pos(double v, double a, double b, int log_x)
{
    if (log_x) return (log10(v) - log10(a)) / (log10(b) - log10(a));
    return (v - a) / (b - a);
}

void rp_histogram(rp_html *h, const char *title, const char *x_label, const double *edges,
                  const double *counts, size_t n, int log_x, rp_unit x_unit)
{
    double max = 0;
    size_t marks = 0;
    for (size_t i = 0; i < n; i++) {
        if (counts[i] > 0) marks++;
        if (counts[i] > max) max = counts[i];
    }
    if (log_x && n && !(edges[0] > 0)) log_x = 0;
    chart_begin(h, title, marks, W, H);
    double top = y_axis(h, max, RP_COUNT, "count", W);
    double a = n ? edges[0] : 0, b = n ? edges[n] : 1, pw = W - ML - MR, plot_h = H - MB - MT;
    if (!(b > a)) b = a + 1;
    char b1[64], b2[64], lab[160];
    for (size_t i = 0; i < n; i++) {
        double x1 = ML + pw * hist_pos(edges[i], a, b, log_x), x2 = ML + pw * hist_pos(edges[i + 1], a, b, log_x);
        if (counts[i] > 0) {
            double bh = counts[i] / top * plot_h;
            rp_printf(h, "<rect class=\"mark\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">",
                      x1 + 0.5, H - MB - bh, fmax(x2 - x1 - 1, 0.5), bh, color(0));
            snprintf(lab, sizeof lab, "%s – %s", rp_fmt(b1, sizeof b1, edges[i], x_unit),
                     rp_fmt(b2, sizeof b2, edges[i + 1], x_unit));
            hover(h, lab, counts[i], RP_COUNT, NULL);
            rp_raw(h, "</rect>\n");
        }
    }
    size_t every = n > 8 ? (n + 7) / 8 : 1;
    for (size_t i = 0; n && i <= n; i += every)
        rp_printf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                  ML + pw * hist_pos(edges[i], a, b, log_x), H - MB + 15, rp_fmt(b1, sizeof b1, edges[i], x_unit));
    x_label_text(h, x_label, W);
    chart_end(h);
}

size_t rp_decimate(const double *x, const double *y, size_t n, size_t max, size_t *keep)
{
    if (n <= max || max < 4) {
        size_t m = n <= max ? n : max;
        for (size_t i = 0; i < m; i++) keep[i] = i * (n <= max ? 1 : n / m);
        return m;
    }
    size_t buckets = max / 2, k = 0, i = 0;
    double x0 = x[0], span = x[n - 1] - x[0];
    for (size_t bk = 0; bk < buckets && i < n; bk++) {
        double end = bk + 1 == buckets ? INFINITY : x0 + span * (double)(bk + 1) / (double)buckets;
        size_t first = i, lo = i, hi = i;
        for (; i < n && (x[i] < end || i == first); i++) {
            if (y[i] < y[lo]) lo = i;
            if (y[i] > y[hi]) hi = i;
        }
        if (lo == hi) keep[k++] = lo;
        else {
            keep[k++] = lo < hi ? lo : hi;
            keep[k++] = lo < hi ? hi : lo;
        }
    }
    return k;
}

/* The x range of a sorted series as a scan of every x finds it: its first
 * x, and the first of the last run of equal x.                          */
static void sorted_ends(const rp_series *s, double *x0, double *x1)
{
    size_t last = s->n - 1;
    while (last > 0 && s->x[last - 1] == s->x[s->n - 1]) last--;
    if (s->x[0] < *x0) *x0 = s->x[0];
    if (s->x[last] > *x1) *x1 = s->x[last];
}

/* Range of every series' x and y. */
static void series_range(const rp_series *s, size_t ns, double *x0, double *x1, double *ymax)
{
    *x0 = INFINITY, *x1 = -INFINITY, *ymax = 0;
    for (size_t k = 0; k < ns; k++) {
        if (s[k].x_sorted && s[k].n) sorted_ends(&s[k], x0, x1);
        for (size_t i = 0; !s[k].x_sorted && i < s[k].n; i++) {
            if (s[k].x[i] < *x0) *x0 = s[k].x[i];
            if (s[k].x[i] > *x1) *x1 = s[k].x[i];
        }
        for (size_t i = 0; i < s[k].n; i++)
            if (s[k].y[i] > *ymax) *ymax = s[k].y[i];
    }
    if (!(*x1 > *x0)) *x1 = *x0 + 1;
}

/* v with one decimal, by integer arithmetic: a path has thousands of
 * coordinates and printf's float formatting dominated the page time.     */
static char *fixed1(char *p, double v)
{
    long long t = llround(v * 10);
    if (t < 0) *p++ = '-', t = -t;
    char digits[24];
    int n = 0;
    do digits[n++] = (char)('0' + t % 10), t /= 10;
    while (t);
    if (n == 1) digits[n++] = '0';
    while (n > 1) *p++ = digits[--n];
    *p++ = '.';
    *p++ = digits[0];
    return p;
}

static void one_series(rp_html *h, const rp_series *s, size_t k, int step, size_t max_points, double x0,
                       double x1, double top, size_t *keep)
{
    size_t m = rp_decimate(s->x, s->y, s->n, max_points, keep);
    double pw = W - ML - MR, plot_h = H - MB - MT;
    rp_printf(h, "<path class=\"mark\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.4\" d=\"", color(k));
    char buf[4096], *p = buf; /* points written a buffer at a time, not one fwrite each */
    for (size_t j = 0; j < m; j++) {
        size_t i = keep[j];
        double px = ML + pw * (s->x[i] - x0) / (x1 - x0), py = H - MB - fmax(s->y[i], 0) / top * plot_h;
        *p++ = j == 0 ? 'M' : step ? 'H' : 'L';
        p = fixed1(p, px);
        *p++ = j == 0 || !step ? ' ' : 'V';
        p = fixed1(p, py);
        if (p - buf > (ptrdiff_t)sizeof buf - 64 || j + 1 == m) {
            if (fwrite(buf, 1, (size_t)(p - buf), h->f) != (size_t)(p - buf)) h->failed = true;
            p = buf;
        }
    }
    rp_raw(h, "\"><title>");
    rp_text(h, s->label);
    rp_printf(h, " (%zu points", s->n);
    if (m < s->n) rp_printf(h, ", drawn as %zu", m);
    rp_raw(h, ")</title></path>\n");
}

void rp_lines(rp_html *h, const char *title, const char *x_label, rp_unit x_unit, const char *y_label,
              rp_unit y_unit, const rp_series *s, size_t ns, int step, size_t max_points)
{
    size_t total = 0, longest = 0;
    for (size_t k = 0; k < ns; k++) {
        total += s[k].n;
        if (s[k].n > longest) longest = s[k].n;
    }
    size_t *keep = malloc((longest ? longest : 1) * sizeof *keep);
    if (!keep) {
        h->failed = true;
        return;
    }
    double x0, x1, ymax;
    series_range(s, ns, &x0, &x1, &ymax);
    const char *labels[NPAL] = { 0 };
    for (size_t k = 0; k < ns && k < NPAL; k++) labels[k] = s[k].label;
    size_t nl = ns < NPAL ? ns : NPAL;
    int rows = ns > 1 ? legend(h, labels, nl, W, 0, false) : 0;
    chart_begin(h, title, total, W, H + 15 * rows);
    if (ns > 1) legend(h, labels, nl, W, H, true);
    double top = y_axis(h, ymax, y_unit, y_label, W);
    for (size_t k = 0; k < ns; k++) one_series(h, &s[k], k, step, max_points, x0, x1, top, keep);
    char b[64];
    for (int t = 0; t <= 5; t++) {
        double v = x0 + (x1 - x0) * t / 5;
        rp_printf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                  ML + (W - ML - MR) * t / 5.0, H - MB + 15, rp_fmt(b, sizeof b, v, x_unit));
    }
    x_label_text(h, x_label, W);
    chart_end(h);
    free(keep);
}

/* Decades [lo, hi] (powers of ten) holding every placeable value of one
 * axis of the groups; a single decade when there is none.                */
static void log_range(const rp_points *g, size_t ng, int axis, double *lo, double *hi)
{
    double mn = INFINITY, mx = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; i < g[k].n; i++) {
            double x = g[k].x[i], y = g[k].y[i], v = axis ? y : x;
            if (!(x > 0 && y > 0 && isfinite(x) && isfinite(y))) continue;
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
    if (!(mx > 0)) mn = mx = 1;
    *lo = floor(log10(mn)), *hi = ceil(log10(mx));
    if (*hi <= *lo) *hi = *lo + 1;
}

/* Grid lines and labels at the decades of both log axes. */
static void log_axes(rp_html *h, double x0, double x1, double y0, double y1, int top)
{
    char b[64];
    double pw = W - ML - MR, ph = H - MB - top;
    for (double d = x0; d <= x1; d++) {
        double px = ML + pw * (d - x0) / (x1 - x0);
        rp_printf(h, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                  px, px, top, H - MB, px, H - MB + 15, rp_fmt(b, sizeof b, pow(10, d), RP_PLAIN));
    }
    for (double d = y0; d <= y1; d++) {
        double py = H - MB - ph * (d - y0) / (y1 - y0);
        rp_printf(h, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                  ML, W - MR, py, py, ML - 6, py + 4, rp_fmt(b, sizeof b, pow(10, d), RP_PLAIN));
    }
}

static void y_label_text(rp_html *h, const char *label)
{
    rp_printf(h, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
              (H - MB + MT) / 2, (H - MB + MT) / 2);
    rp_text(h, label);
    rp_raw(h, "</text>");
}

void rp_scatter(rp_html *h, const char *title, const char *x_label, const char *y_label, const rp_points *g,
                size_t ng)
{
    size_t marks = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; i < g[k].n; i++)
            marks += g[k].x[i] > 0 && g[k].y[i] > 0 && isfinite(g[k].x[i]) && isfinite(g[k].y[i]);
    const char *labels[NPAL] = { 0 };
    size_t nl = ng < NPAL ? ng : NPAL;
    for (size_t k = 0; k < nl; k++) labels[k] = g[k].label;
    int rows = legend(h, labels, nl, W, 0, false);
    chart_begin(h, title, marks, W, H + 15 * rows);
    legend(h, labels, nl, W, H, true);
    double x0, x1, y0, y1, pw = W - ML - MR, ph = H - MB - MT;
    log_range(g, ng, 0, &x0, &x1);
    log_range(g, ng, 1, &y0, &y1);
    log_axes(h, x0, x1, y0, y1, MT);
    char bx[64], by[64];
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; i < g[k].n; i++) {
            double x = g[k].x[i], y = g[k].y[i];
            if (!(x > 0 && y > 0 && isfinite(x) && isfinite(y))) continue;
            rp_printf(h, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
                         "fill-opacity=\"0.75\"><title>",
                      ML + pw * (log10(x) - x0) / (x1 - x0), H - MB - ph * (log10(y) - y0) / (y1 - y0), color(k));
            rp_text(h, g[k].names ? g[k].names[i] : g[k].label);
            rp_raw(h, " (");
            rp_text(h, g[k].label);
            rp_raw(h, "): ");
            rp_text(h, x_label);
            rp_printf(h, " %s, ", rp_fmt(bx, sizeof bx, x, RP_PLAIN));
            rp_text(h, y_label);
            rp_printf(h, " %s</title></circle>\n", rp_fmt(by, sizeof by, y, RP_PLAIN));
        }
    x_label_text(h, x_label, W);
    y_label_text(h, y_label);
    chart_end(h);
}
