/*
 * report_html.h — writing the HTML of `kineta report`: escaping, the page
 * frame (inline CSS and script), sections, rank panels, sortable tables and
 * numbers with their units.
 *
 * Everything goes through one rp_html so a write error is remembered once
 * (rp_html.failed) and the section code can stay straight-line.
 */
#ifndef KT_REPORT_HTML_H
#define KT_REPORT_HTML_H

#include "../kineta.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct rp_html {
    FILE *f;
    bool failed;
    const char *next_tip; /* hover title of the next chart (report_svg.c) */
    /* Full names shown on hover, each written once at the end of the page
     * (rp_name_ref); the strings belong to the analyses' tables.          */
    const char **names;
    size_t nnames, names_cap;
} rp_html;

/* Long full names (kernels, ops, files) repeat in every rank's charts and
 * tables; each element that shows one on hover carries data-k="N" and the
 * page script sets the hover text from one JSON list, so a name costs its
 * bytes once per page, not once per use.  Returns N (or 0 and h->failed
 * when out of memory); s must stay valid until rp_page_end.              */
size_t rp_name_ref(rp_html *h, const char *s);
/* Writes the list (<script type="application/json" id="kt-names">). */
void rp_names_write(rp_html *h);
void rp_names_free(rp_html *h);
/* An attribute data-k="N" for s (with a leading space). */
void rp_name_attr(rp_html *h, const char *s);

void rp_raw(rp_html *h, const char *s);
void rp_printf(rp_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text content / attribute value: & < > " ' escaped, control bytes dropped. */
void rp_text(rp_html *h, const char *s);
/* At most max characters of s (UTF-8 aware), middle cut with "…". */
void rp_text_cut(rp_html *h, const char *s, size_t max);

/* Units for rp_fmt: times are given in µs. */
typedef enum { RP_US, RP_PCT, RP_GBPS, RP_COUNT, RP_PLAIN, RP_BYTES } rp_unit;
/* v with its unit in a fitting scale ("1.25 ms", "37.5 %", "1,204"); into buf. */
const char *rp_fmt(char *buf, size_t cap, double v, rp_unit u);

void rp_page_begin(rp_html *h, const char *title, const char *subtitle);
void rp_page_end(rp_html *h);
/* The header's list of links to sections: begin, one link each, end. */
void rp_nav_begin(rp_html *h);
void rp_nav_link(rp_html *h, const char *id, const char *title);
void rp_nav_end(rp_html *h);
/* A section (<section id=...>) with its heading and an optional intro line. */
void rp_section_begin(rp_html *h, const char *id, const char *title, const char *intro);
void rp_section_end(rp_html *h);
/* Per-rank content: a picker over ranks[0..n) (none when n <= 1) and one
 * panel per rank; the page script shows the picked rank in every section. */
void rp_rank_picker(rp_html *h, const int *ranks, size_t n);
void rp_rank_panel_begin(rp_html *h, int rank);
void rp_rank_panel_end(rp_html *h);
/* A note in place of a chart when a table has nothing to show. */
void rp_note(rp_html *h, const char *text);

/* Sortable table: header cells, then rows of cells. */
void rp_table_begin(rp_html *h, const char *caption, const char *const *headers, size_t n);
void rp_row_begin(rp_html *h);
void rp_row_end(rp_html *h);
void rp_cell_text(rp_html *h, const char *s);
/* A name cut to max characters, the full name on hover. */
void rp_cell_name(rp_html *h, const char *s, size_t max);
/* A number shown with its unit, sorted by its value; NaN shows "–". */
void rp_cell_num(rp_html *h, double v, rp_unit u);
void rp_table_end(rp_html *h);
/* A table cell copied from an analysis table (string, int or float). */
void rp_cell_from(rp_html *h, const kt_table *t, size_t row, long col, rp_unit u);

#endif
