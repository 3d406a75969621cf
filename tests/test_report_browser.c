/* test_report_browser.c — the report rendered by a real browser: headless
 * Debian chromium opens report.html written for a shared NVIDIA trace, the
 * AMD trace and the 2-rank trace_filter set; from the rendered DOM (after
 * the page's own script has run) every section has a chart with drawn data
 * marks (the optional ones: critical path, repeated kernel sequences,
 * collectives, perf, and diff against trace_diff's control) and no script
 * error was raised; a screenshot is not blank; and
 * (trace_filter) a header click sorts its table both ways.  SKIP only
 * where /usr/bin/chromium is missing.                           */
#include "kineta.h"
#include "fixture.h"
#include "oracle.h"
#include "report/report_sections.h"
#include "png_pixels.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHROMIUM "/usr/bin/chromium"
#define CHROMIUM_FLAGS                                                                                     \
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking " \
    "--disable-component-update --disable-sync"

static bool have_chromium(void)
{
    if (access(CHROMIUM, X_OK) == 0) return true;
    printf("SKIP: chromium not found\n");
    kt_test_skip("chromium not found (" CHROMIUM ")");
    return false;
}

/* Run chromium on file `html` with extra flags, a fresh profile in dir;
 * stdout into out (may be NULL).                                           */
static int chromium(const char *dir, const char *extra, const char *html, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "rm -rf %s/profile && timeout 180 " CHROMIUM " " CHROMIUM_FLAGS
             " --user-data-dir=%s/profile %s file://%s > %s 2>/dev/null",
             dir, dir, extra, html, out ? out : "/dev/null");
    return system(cmd);
}

/* Value of attribute attr of the first tag containing `mark` (in the
 * dumped DOM).                                                             */
static bool attr_of_tag(const char *dom, const char *mark, const char *attr, char *val, size_t cap)
{
    char key[64];
    const char *e = strstr(dom, mark);
    if (!e) return false;
    const char *start = e;
    while (start > dom && *start != '<') start--;
    const char *end = strchr(e, '>');
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *a = strstr(start, key);
    if (!a || a > end) return false;
    a += strlen(key);
    const char *q = strchr(a, '"');
    snprintf(val, cap, "%.*s", (int)(q - a), a);
    return true;
}

/* The same for the element with id. */
static bool attr_of(const char *dom, const char *id, const char *attr, char *val, size_t cap)
{
    char mark[64];
    snprintf(mark, sizeof mark, "id=\"%s\"", id);
    return attr_of_tag(dom, mark, attr, val, cap);
}

/* Sections in the page as written (the optional ones where the trace has
 * what they show).                                                         */
static size_t sections_in(const char *html)
{
    size_t n = 0;
    for (const char *p = html; p && (p = strstr(p, "<section id=")); p++) n++;
    return n;
}

static void check_dom(const char *what, const char *dom, size_t sections)
{
    char v[1024];
    if (!attr_of(dom, "kt-status", "class", v, sizeof v) || strcmp(v, "done")) {
        kt_test_fail(__FILE__, __LINE__, "%s: the page script did not finish", what);
        return;
    }
    CHECK(attr_of(dom, "kt-status", "data-sections", v, sizeof v) && (size_t)atoi(v) == sections);
    CHECK(sections >= rp_nsections_always());
    if (!attr_of(dom, "kt-status", "data-empty", v, sizeof v) || v[0])
        kt_test_fail(__FILE__, __LINE__, "%s: sections without a chart with data: %s", what, v);
    if (!attr_of(dom, "kt-status", "data-errors", v, sizeof v) || strcmp(v, "0"))
        kt_test_fail(__FILE__, __LINE__, "%s: script errors: %s", what, v);
    CHECK(attr_of(dom, "kt-errors", "data-errors", v, sizeof v) && !strcmp(v, "0"));
    /* full names set from the list: the first file's cell got its title */
    if (!attr_of_tag(dom, "<td data-k=\"0\"", "title", v, sizeof v) || !strstr(v, "/"))
        kt_test_fail(__FILE__, __LINE__, "%s: hover names not set from #kt-names", what);
}

static void check_screenshot(const char *what, const char *png)
{
    size_t len = 0;
    char *data = fx_read_file(png, &len), err[128];
    png_pixels p;
    if (!data || png_decode((const uint8_t *)data, len, &p, err, sizeof err) != 0) {
        kt_test_fail(__FILE__, __LINE__, "%s: screenshot %s: %s", what, png, data ? err : "missing");
        free(data);
        return;
    }
    size_t colours = png_colours(&p, 64);
    if (colours < 16) kt_test_fail(__FILE__, __LINE__, "%s: screenshot has %zu colours (blank?)", what, colours);
    CHECK(p.width == 1280 && p.height == 2400);
    png_free(&p);
    free(data);
}

/* A click on a header sorts its table: a copy of the page with a script
 * that clicks the temporal table's "idle" header twice and records the
 * first column of rows each time.                                          */
static const char click_script[] =
    "<script>document.addEventListener('DOMContentLoaded',function(){setTimeout(function(){"
    "var t=document.querySelector('section#temporal table'),th=t.querySelectorAll('th')[1];"
    "function col(){return [].map.call(t.tBodies[0].rows,function(r){return r.cells[1].getAttribute('data-v');}).join(',');}"
    "th.click();var a=col();th.click();var b=col();"
    "document.body.setAttribute('data-sorted',a+'|'+b);},50);});</script>";

static void check_sorting(const char *dir, const char *html)
{
    char copy[160], dom[160];
    snprintf(copy, sizeof copy, "%s/sort.html", dir);
    snprintf(dom, sizeof dom, "%s/sort-dom.html", dir);
    char *page = fx_read_file(html, NULL), *end = page ? strstr(page, "</body>") : NULL;
    FILE *f = fopen(copy, "w");
    CHECK(end && f);
    if (!end || !f) {
        if (f) fclose(f);
        free(page);
        return;
    }
    fprintf(f, "%.*s%s%s", (int)(end - page), page, click_script, end);
    fclose(f);
    free(page);
    CHECK_INT(chromium(dir, "--virtual-time-budget=5000 --dump-dom", copy, dom), 0);
    char *text = fx_read_file(dom, NULL), v[256];
    /* trace_filter's idle times: rank 0 675191 µs, rank 1 651136 µs */
    CHECK(text && attr_of_tag(text, "<body", "data-sorted", v, sizeof v));
    if (text) CHECK_STR(v, "675191,651136|651136,675191");
    free(text);
}

/* The report of shared trace rel (against baseline when not NULL) in
 * chromium; its page must have the sections expected[0..n_expected). */
static void render(const char *rel, const char *baseline, bool sorting, const char *const *expected,
                   size_t n_expected)
{
    const kt_trace *t = fx_shared_trace(rel, false);
    kt_report_options o = kt_report_defaults();
    o.baseline = baseline ? fx_shared_trace(baseline, false) : NULL;
    CHECK(t != NULL && (!baseline || o.baseline));
    if (!t || (baseline && !o.baseline)) return;
    char dir[] = "/tmp/kineta-test-browser-XXXXXX", html[128], dom[128], png[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(dom, sizeof dom, "%s/dom.html", dir);
    snprintf(png, sizeof png, "%s/shot.png", dir);
    CHECK_INT(kt_report(t, NULL, &o, html, NULL, NULL), KT_OK);
    CHECK_INT(chromium(dir, "--virtual-time-budget=5000 --dump-dom", html, dom), 0);
    char *text = fx_read_file(dom, NULL), *page = fx_read_file(html, NULL);
    CHECK(text != NULL && page != NULL);
    if (text && page) check_dom(rel, text, sections_in(page));
    for (size_t i = 0; page && i < n_expected; i++)
        if (!strstr(page, expected[i])) kt_test_fail(__FILE__, __LINE__, "%s: no %s", rel, expected[i]);
    free(text);
    free(page);
    char flags[256];
    snprintf(flags, sizeof flags, "--window-size=1280,2400 --hide-scrollbars --screenshot=%s", png);
    CHECK_INT(chromium(dir, flags, html, NULL), 0);
    check_screenshot(rel, png);
    if (sorting) check_sorting(dir, html);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(report_browser_nvidia)
{
    if (!have_chromium()) return;
    NEED_SHARED();
    static const char *const want[] = { "id=\"critical-path\"", "id=\"patterns\"", "id=\"perf\"" };
    render("traces/hta/timeline_analysis", NULL, false, want, 3);
}

TEST(report_browser_amd)
{
    if (!have_chromium()) return;
    NEED_SHARED();
    static const char *const want[] = { "id=\"critical-path\"", "id=\"perf\"" };
    render("traces/hta/amd_trace", NULL, false, want, 2);
}

TEST(report_browser_two_ranks)
{
    if (!have_chromium()) return;
    NEED_SHARED();
    static const char *const want[] = { "id=\"critical-path\"", "id=\"patterns\"", "id=\"collectives\"",
                                        "id=\"perf\"" };
    render("traces/hta/trace_filter", NULL, true, want, 4);
}

/* --baseline: trace_diff's test run against its control, diff section. */
TEST(report_browser_diff)
{
    if (!have_chromium()) return;
    NEED_SHARED();
    static const char *const want[] = { "id=\"diff\"" };
    render("traces/hta/trace_diff/test", "traces/hta/trace_diff/control", false, want, 1);
}
