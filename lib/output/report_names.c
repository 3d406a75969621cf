/*
 * report_names.c — full names written once per page (see rp_name_ref in
 * report_html.h): a 64-rank report of a trace with kilobyte-long C++
 * kernel names would otherwise repeat each name in every rank's pies and
 * tables and pass the 5 MB budget on names alone.
 */
#include "output/report_html.h"

#include <stdlib.h>
#include <string.h>

/* Linear search: a page refers to a few hundred distinct names at most
 * (top kernels, ops, files, transitions), usually the same pointer.      */
static size_t find(const rp_html *h, const char *s)
{
    for (size_t i = 0; i < h->nnames; i++)
        if (h->names[i] == s || !strcmp(h->names[i], s)) return i;
    return h->nnames;
}

size_t rp_name_ref(rp_html *h, const char *s)
{
    size_t i = find(h, s);
    if (i < h->nnames) return i;
    if (h->nnames == h->names_cap) {
        size_t cap = h->names_cap ? 2 * h->names_cap : 64;
        const char **n = realloc(h->names, cap * sizeof *n);
        if (!n) {
            h->failed = true;
            return 0;
        }
        h->names = n, h->names_cap = cap;
    }
    h->names[h->nnames] = s;
    return h->nnames++;
}

void rp_name_attr(rp_html *h, const char *s)
{
    rp_printf(h, " data-k=\"%zu\"", rp_name_ref(h, s));
}

/* A JSON string safe inside <script>: '<' as \u003c so no name can close
 * the element, control bytes as \u00XX.                                   */
static void json_string(rp_html *h, const char *s)
{
    rp_raw(h, "\"");
    size_t run = 0, i = 0;
    for (; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
        if (i > run && fwrite(s + run, 1, i - run, h->f) != i - run) h->failed = true;
        if (c == '"' || c == '\\') rp_printf(h, "\\%c", c);
        else rp_printf(h, "\\u%04x", c);
        run = i + 1;
    }
    if (i > run && fwrite(s + run, 1, i - run, h->f) != i - run) h->failed = true;
    rp_raw(h, "\"");
}

void rp_names_write(rp_html *h)
{
    rp_raw(h, "<script type=\"application/json\" id=\"kt-names\">[");
    for (size_t i = 0; i < h->nnames; i++) {
        if (i) rp_raw(h, ",\n");
        json_string(h, h->names[i]);
    }
    rp_raw(h, "]</script>\n");
}

void rp_names_free(rp_html *h)
{
    free(h->names);
    h->names = NULL;
    h->nnames = h->names_cap = 0;
}
