/*
 * report.c — `kineta report`: the HTML page put together from the section
 * list (report_sections.c), to a FILE* or to a file.
 *
 * The page is written front to back in one pass; each section asks for the
 * analyses it shows (run once, shared between sections) and draws them.
 * A failed analysis leaves a note in its sections, only running out of
 * memory or a write error fails the report.
 */
#include "report/report_sections.h"
#include "table/table.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void kt_report_options_init(kt_report_options *o, size_t size)
{
    const kt_report_options d = { .top_kernels = 8, .max_points = 400, .max_rows = 300 };
    kt_options_init(o, size, &d, sizeof d);
}

#define RANK_LABEL 24

/* opt into *o with its zero limits replaced by the defaults (a zero
 * limit means "the default", not "draw nothing"); false: opt's size is
 * not one this library reads (docs/api.md).                              */
static bool with_defaults(const kt_report_options *opt, kt_report_options *o)
{
    kt_report_options d = kt_report_defaults();
    *o = d;
    if (!kt_options_take(o, sizeof *o, opt)) return false;
    if (!o->max_points) o->max_points = d.max_points;
    if (!o->max_rows) o->max_rows = d.max_rows;
    return true;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The ranks on the page: info's "ranks" rows, ascending. */
static kt_status collect_ranks(rp_ctx *c)
{
    const kt_table *r = rp_table(c, RP_INFO, "ranks");
    if (!r) return c->status[RP_INFO] != KT_OK ? c->status[RP_INFO] : KT_EANALYSIS;
    size_t n = kt_table_nrows(r);
    long col = rp_col(r, "rank");
    c->ranks = malloc((n ? n : 1) * sizeof *c->ranks);
    c->rank_labels = calloc(n + 1, sizeof *c->rank_labels);
    c->label_text = malloc((n ? n : 1) * RANK_LABEL);
    if (!c->ranks || !c->rank_labels || !c->label_text) return KT_ENOMEM;
    for (size_t i = 0; i < n; i++) c->ranks[i] = (int)rp_num(r, i, col);
    qsort(c->ranks, n, sizeof *c->ranks, cmp_int);
    for (size_t i = 0; i < n; i++) {
        snprintf(c->label_text + i * RANK_LABEL, RANK_LABEL, "rank %d", c->ranks[i]);
        c->rank_labels[i] = c->label_text + i * RANK_LABEL;
    }
    c->nranks = n;
    return KT_OK;
}

static void subtitle(const rp_ctx *c, char *b, size_t cap)
{
    const kt_table *r = c->tables[RP_INFO] ? kt_tables_find(c->tables[RP_INFO], "ranks") : NULL;
    const char *file = r && kt_table_nrows(r) ? rp_str(r, 0, rp_col(r, "file")) : "";
    const char *slash = strrchr(file, '/');
    snprintf(b, cap, "%s%s · %zu rank%s", slash ? slash + 1 : file, c->nranks > 1 ? " …" : "", c->nranks,
             c->nranks == 1 ? "" : "s");
}

static kt_status write_sections(rp_ctx *c, const bool *shown)
{
    for (size_t i = 0; i < rp_nsections; i++) {
        const rp_section *s = &rp_sections[i];
        if (!shown[i]) continue;
        rp_section_begin(c->h, s->id, s->title, s->intro);
        kt_status st = s->build(c);
        if (st == KT_ENOMEM || rp_analyses_status(c) == KT_ENOMEM) return KT_ENOMEM;
        if (st != KT_OK) {
            char b[160];
            snprintf(b, sizeof b, "This section could not be drawn: %s.", kt_status_str(st));
            rp_note(c->h, b);
        }
        rp_section_end(c->h);
    }
    return KT_OK;
}

/* Which sections this trace's page has (the optional ones only when the
 * trace records what they show); returns their count.                    */
static size_t shown_sections(rp_ctx *c, bool *shown)
{
    size_t n = 0;
    for (size_t i = 0; i < rp_nsections; i++) n += shown[i] = !rp_sections[i].shown || rp_sections[i].shown(c);
    return n;
}

/* The page into f; *nranks = the ranks it shows, *nsections its sections. */
static kt_status write_report(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt, FILE *f,
                              size_t *nranks, size_t *nsections)
{
    kt_report_options o;
    if (!t || !f || !with_defaults(opt, &o)) return KT_EUSAGE;
    rp_html h = { .f = f };
    rp_ctx c = { .t = t, .sel = sel, .opt = &o, .h = &h };
    bool *shown = calloc(rp_nsections, sizeof *shown);
    kt_status st = shown ? collect_ranks(&c) : KT_ENOMEM;
    if (st == KT_OK) rp_prefetch(&c, o.jobs); /* after the ranks: diff reads them */
    *nsections = 0;
    if (st == KT_OK) {
        *nsections = shown_sections(&c, shown);
        st = rp_analyses_status(&c);
    }
    if (st == KT_OK) {
        char sub[512];
        subtitle(&c, sub, sizeof sub);
        rp_page_begin(&h, c.opt->title ? c.opt->title : "kineta report", sub);
        rp_nav_begin(&h);
        for (size_t i = 0; i < rp_nsections; i++)
            if (shown[i]) rp_nav_link(&h, rp_sections[i].id, rp_sections[i].title);
        rp_nav_end(&h);
        rp_rank_picker(&h, c.ranks, c.nranks);
        st = write_sections(&c, shown);
        rp_page_end(&h);
    }
    rp_analyses_free(&c);
    rp_names_free(&h);
    free(shown);
    free(c.ranks);
    free(c.rank_labels);
    free(c.label_text);
    *nranks = c.nranks;
    if (st == KT_OK && (h.failed || ferror(f))) st = KT_EINPUT;
    return st;
}

/* write_report with '.' as the radix whatever LC_NUMERIC the host program
 * set (SVG coordinates and sort keys are parsed as C numbers); the C
 * locale is made current for this thread only, and restored.             */
static kt_status write_report_c_locale(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt,
                                       FILE *f, size_t *nranks, size_t *nsections)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!c) return KT_ENOMEM;
    locale_t old = uselocale(c);
    kt_status st = write_report(t, sel, opt, f, nranks, nsections);
    uselocale(old);
    freelocale(c);
    return st;
}

kt_status kt_report_write(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt, FILE *f,
                          kt_diags **diags)
{
    size_t nranks, nsections;
    kt_diags_begin(diags);
    kt_status st = write_report_c_locale(t, sel, opt, f, &nranks, &nsections);
    if (st == KT_EINPUT) kt_diags_fail(diags, NULL, "error writing the page: %s", strerror(errno));
    return st;
}

static kt_status report_table(const char *path, long bytes, size_t nranks, size_t nsections, kt_tables **out)
{
    kt_table *tb = kt_table_new("report");
    if (!tb) return KT_ENOMEM;
    kt_table_add_col(tb, "path", KT_COL_STR, 0);
    kt_table_add_col(tb, "bytes", KT_COL_INT, 0);
    kt_table_add_col(tb, "sections", KT_COL_INT, 0);
    kt_table_add_col(tb, "ranks", KT_COL_INT, 0);
    kt_table_add_row(tb);
    kt_table_set_str(tb, 0, path);
    kt_table_set_int(tb, 1, bytes);
    kt_table_set_int(tb, 2, (int64_t)nsections);
    kt_table_set_int(tb, 3, (int64_t)nranks);
    return kt_tables_from(&tb, 1, out);
}

static void set_err(kt_diags **diags, const char *what, const char *path)
{
    kt_diags_fail(diags, path, "%s %s: %s", what, path, strerror(errno));
}

/* Whether path is one of the trace's own files (`-o` given a trace by
 * mistake): the page must never truncate its input.                       */
static bool is_an_input(const kt_trace *t, const char *path)
{
    struct stat out_st, in_st;
    if (stat(path, &out_st) != 0) return false; /* does not exist yet */
    for (size_t i = 0; i < t->nranks; i++) {
        const char *in = t->ranks[i]->file;
        if (in && stat(in, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
            return true;
    }
    return false;
}

kt_status kt_report(const kt_trace *t, const kt_rank_sel *sel, const kt_report_options *opt, const char *path,
                    kt_tables **out, kt_diags **diags)
{
    if (out) *out = NULL;
    kt_diags_begin(diags);
    kt_report_options o;
    if (!t || !path || !with_defaults(opt, &o)) return KT_EUSAGE;
    if (is_an_input(t, path)) {
        kt_diags_fail(diags, path, "%s is one of the trace files; not overwriting it", path);
        return KT_EUSAGE;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        set_err(diags, "cannot write", path);
        return KT_EINPUT;
    }
    size_t nranks = 0, nsections = 0;
    kt_status st = write_report_c_locale(t, sel, &o, f, &nranks, &nsections);
    long bytes = ftell(f);
    if (fclose(f) != 0 && st == KT_OK) st = KT_EINPUT;
    if (st == KT_EINPUT) set_err(diags, "error writing", path);
    if (st != KT_OK) {
        remove(path);
        return st;
    }
    return out ? report_table(path, bytes, nranks, nsections, out) : KT_OK;
}
