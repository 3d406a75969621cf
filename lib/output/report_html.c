/*
 * report_html.c — HTML text of the report: escaping, numbers with units,
 * sections, rank panels and sortable tables (the page frame is in
 * report_page.c, charts in report_svg.c).
 *
 * Kernel names are arbitrary bytes from the trace (C++ templates full of
 * '<' and '&', sometimes invalid UTF-8), so every string from a table goes
 * through rp_text; a write error is kept in h->failed.
 */
#include "output/report_html.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void rp_raw(rp_html *h, const char *s)
{
    if (fputs(s, h->f) == EOF) h->failed = true;
}

void rp_printf(rp_html *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(h->f, fmt, ap) < 0) h->failed = true;
    va_end(ap);
}

/* The entity for byte c, or NULL when c is written as it is (control
 * bytes: "" — dropped).                                                   */
static const char *entity(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return c < 0x20 || c == 0x7f ? "" : NULL;
    }
}

/* Runs of plain bytes go out in one fwrite: names are long and mostly plain. */
static void put_escaped(rp_html *h, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = entity((unsigned char)s[i]);
        if (!e) continue;
        if (i > run && fwrite(s + run, 1, i - run, h->f) != i - run) h->failed = true;
        rp_raw(h, e);
        run = i + 1;
    }
    if (n > run && fwrite(s + run, 1, n - run, h->f) != n - run) h->failed = true;
}

void rp_text(rp_html *h, const char *s)
{
    if (s) put_escaped(h, s, strlen(s));
}

/* Byte offset after the first `chars` UTF-8 characters of s (n bytes). */
static size_t utf8_prefix(const char *s, size_t n, size_t chars)
{
    size_t i = 0;
    for (size_t k = 0; i < n && k < chars; k++) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    }
    return i;
}

/* Whether s (n bytes) has more than max UTF-8 characters (lead bytes):
 * counted up to max + 1 only, names run to thousands of bytes.           */
static bool utf8_longer(const char *s, size_t n, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k <= max; i++) k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k > max;
}

/* Byte offset where the last `units` characters of s (n bytes) start, the
 * characters as utf8_prefix counts them (a byte and the continuation
 * bytes after it): walked back from the end.                             */
static size_t utf8_suffix(const char *s, size_t n, size_t units)
{
    size_t j = n;
    while (j > 0 && units > 0) {
        j--;
        if (j == 0 || ((unsigned char)s[j] & 0xC0) != 0x80) units--;
    }
    return j;
}

void rp_text_cut(rp_html *h, const char *s, size_t max)
{
    if (!s) return;
    size_t n = strlen(s);
    if (max < 8 || !utf8_longer(s, n, max)) {
        put_escaped(h, s, n);
        return;
    }
    /* keep the head (the kernel's name) and the tail (template end); a
     * continuation byte first is a character of its own to utf8_prefix   */
    size_t head = (max - 1) * 2 / 3, tail = max - 1 - head;
    put_escaped(h, s, utf8_prefix(s, n, head));
    rp_raw(h, "…");
    size_t skip = utf8_suffix(s, n, tail + (((unsigned char)s[0] & 0xC0) == 0x80));
    put_escaped(h, s + skip, n - skip);
}

/* 1234567 → "1,234,567" */
static void group_thousands(char *buf, size_t cap, double v)
{
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", fabs(v));
    size_t n = strlen(raw), k = 0;
    if (v < 0 && k + 1 < cap) buf[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = raw[i];
    }
    buf[k] = 0;
}

/* Three significant digits, at least none after the point. */
static const char *sig3(double v)
{
    double a = fabs(v);
    return a >= 100 ? "%.0f %s" : a >= 10 ? "%.1f %s" : "%.2f %s";
}

const char *rp_fmt(char *buf, size_t cap, double v, rp_unit u)
{
    if (isnan(v)) {
        snprintf(buf, cap, "–");
        return buf;
    }
    double a = fabs(v);
    switch (u) {
    case RP_US:
        if (a >= 1e6) snprintf(buf, cap, sig3(v / 1e6), v / 1e6, "s");
        else if (a >= 1e3) snprintf(buf, cap, sig3(v / 1e3), v / 1e3, "ms");
        else if (a == 0) snprintf(buf, cap, "0 µs");
        else if (a >= 1) snprintf(buf, cap, sig3(v), v, "µs");
        else snprintf(buf, cap, sig3(v * 1e3), v * 1e3, "ns");
        break;
    case RP_PCT:
        if (a == 0) snprintf(buf, cap, "0 %%");
        else snprintf(buf, cap, a >= 10 ? "%.1f %%" : "%.2f %%", v);
        break;
    case RP_GBPS:
        if (a == 0) snprintf(buf, cap, "0 GB/s");
        else snprintf(buf, cap, a >= 1 ? sig3(v) : "%.3g %s", v, "GB/s");
        break;
    case RP_COUNT:
        group_thousands(buf, cap, v);
        break;
    case RP_PLAIN:
        snprintf(buf, cap, "%.4g", v);
        break;
    case RP_BYTES:
        if (a >= 1024.0 * 1024 * 1024) snprintf(buf, cap, sig3(v / 1073741824.0), v / 1073741824.0, "GiB");
        else if (a >= 1024.0 * 1024) snprintf(buf, cap, sig3(v / 1048576.0), v / 1048576.0, "MiB");
        else if (a >= 1024) snprintf(buf, cap, sig3(v / 1024), v / 1024, "KiB");
        else snprintf(buf, cap, "%.0f B", v);
        break;
    }
    return buf;
}

void rp_section_begin(rp_html *h, const char *id, const char *title, const char *intro)
{
    rp_raw(h, "<section id=\"");
    rp_text(h, id);
    rp_raw(h, "\"><h2>");
    rp_text(h, title);
    rp_raw(h, "</h2>\n");
    if (intro) {
        rp_raw(h, "<p class=\"intro\">");
        rp_text(h, intro);
        rp_raw(h, "</p>\n");
    }
}

void rp_section_end(rp_html *h)
{
    rp_raw(h, "</section>\n");
}

void rp_rank_panel_begin(rp_html *h, int rank)
{
    rp_printf(h, "<div class=\"rank-panel\" data-rank=\"%d\"><h3>rank %d</h3>\n", rank, rank);
}

void rp_rank_panel_end(rp_html *h)
{
    rp_raw(h, "</div>\n");
}

void rp_note(rp_html *h, const char *text)
{
    rp_raw(h, "<p class=\"note\">");
    rp_text(h, text);
    rp_raw(h, "</p>\n");
}

void rp_table_begin(rp_html *h, const char *caption, const char *const *headers, size_t n)
{
    rp_raw(h, "<div class=\"tablewrap\"><table>");
    if (caption) {
        rp_raw(h, "<caption>");
        rp_text(h, caption);
        rp_raw(h, "</caption>");
    }
    rp_raw(h, "<thead><tr>");
    for (size_t i = 0; i < n; i++) {
        rp_raw(h, "<th>");
        rp_text(h, headers[i]);
        rp_raw(h, "</th>");
    }
    rp_raw(h, "</tr></thead><tbody>\n");
}

void rp_row_begin(rp_html *h)
{
    rp_raw(h, "<tr>");
}

void rp_row_end(rp_html *h)
{
    rp_raw(h, "</tr>\n");
}

void rp_cell_text(rp_html *h, const char *s)
{
    rp_raw(h, "<td>");
    rp_text(h, s);
    rp_raw(h, "</td>");
}

void rp_cell_name(rp_html *h, const char *s, size_t max)
{
    rp_raw(h, "<td");
    rp_name_attr(h, s);
    rp_raw(h, ">");
    rp_text_cut(h, s, max);
    rp_raw(h, "</td>");
}

void rp_cell_num(rp_html *h, double v, rp_unit u)
{
    char b[64];
    if (isnan(v)) rp_raw(h, "<td class=\"n\" data-v=\"NaN\">–</td>");
    else if (v == (double)(long long)v && fabs(v) < 1e15) /* most cells: whole µs or counts, fast */
        rp_printf(h, "<td class=\"n\" data-v=\"%lld\">%s</td>", (long long)v, rp_fmt(b, sizeof b, v, u));
    else rp_printf(h, "<td class=\"n\" data-v=\"%.17g\">%s</td>", v, rp_fmt(b, sizeof b, v, u));
}

void rp_cell_from(rp_html *h, const kt_table *t, size_t row, long col, rp_unit u)
{
    if (col < 0 || kt_table_is_null(t, row, (size_t)col)) {
        rp_cell_num(h, NAN, u);
        return;
    }
    switch (kt_table_col_type(t, (size_t)col)) {
    case KT_COL_STR: rp_cell_text(h, kt_table_str(t, row, (size_t)col)); break;
    case KT_COL_INT: rp_cell_num(h, (double)kt_table_int(t, row, (size_t)col), u); break;
    case KT_COL_FLOAT: rp_cell_num(h, kt_table_float(t, row, (size_t)col), u); break;
    }
}

void rp_table_end(rp_html *h)
{
    rp_raw(h, "</tbody></table></div>\n");
}
