/* test_report.c — `kineta report`: the chart and HTML writers on hand
 * values, the whole page on a hand-written trace (every section, escaping,
 * numbers equal to the analyses' tables), HTA's numbers on the page under
 * --hta-compat (oracle), bad inputs and outputs, and the size bound on 64
 * synthesized ranks.                                                      */
#include "kineta.h"
#include "fixture.h"
#include "oracle.h"
#include "report/report_sections.h"
#include "test.h"

#include <glob.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a writer call printed. */
typedef struct memout {
    char *buf;
    size_t len;
    FILE *f;
    rp_html h;
} memout;

static void mem_open(memout *m)
{
    m->buf = NULL;
    m->f = open_memstream(&m->buf, &m->len);
    m->h = (rp_html){ .f = m->f };
}

static const char *mem_text(memout *m)
{
    fflush(m->f);
    return m->buf;
}

static void mem_close(memout *m)
{
    fclose(m->f);
    free(m->buf);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

TEST(report_fmt_units)
{
    char b[64];
    CHECK_STR(rp_fmt(b, sizeof b, 0, RP_US), "0 µs");
    CHECK_STR(rp_fmt(b, sizeof b, 0, RP_PCT), "0 %");
    CHECK_STR(rp_fmt(b, sizeof b, 0.5, RP_US), "500 ns");
    CHECK_STR(rp_fmt(b, sizeof b, 12.345, RP_US), "12.3 µs");
    CHECK_STR(rp_fmt(b, sizeof b, 1500, RP_US), "1.50 ms");
    CHECK_STR(rp_fmt(b, sizeof b, 675191, RP_US), "675 ms");
    CHECK_STR(rp_fmt(b, sizeof b, 2.5e6, RP_US), "2.50 s");
    CHECK_STR(rp_fmt(b, sizeof b, 55.21, RP_PCT), "55.2 %");
    CHECK_STR(rp_fmt(b, sizeof b, 0.44, RP_PCT), "0.44 %");
    CHECK_STR(rp_fmt(b, sizeof b, 1234567, RP_COUNT), "1,234,567");
    CHECK_STR(rp_fmt(b, sizeof b, 999, RP_COUNT), "999");
    CHECK_STR(rp_fmt(b, sizeof b, 357.815, RP_GBPS), "358 GB/s");
    CHECK_STR(rp_fmt(b, sizeof b, 0.00048828125, RP_GBPS), "0.000488 GB/s");
    CHECK_STR(rp_fmt(b, sizeof b, NAN, RP_US), "–");
}

TEST(report_text_is_escaped_and_cut_on_characters)
{
    memout m;
    mem_open(&m);
    rp_text(&m.h, "a<b>&\"c'\x01");
    CHECK_STR(mem_text(&m), "a&lt;b&gt;&amp;&quot;c&#39;");
    mem_close(&m);
    mem_open(&m);
    /* 12 characters, 2 of them two-byte: cut to 10 = 6 head + … + 3 tail */
    rp_text_cut(&m.h, "µµabcdefghij", 10);
    CHECK_STR(mem_text(&m), "µµabcd…hij");
    mem_close(&m);
    mem_open(&m);
    rp_text_cut(&m.h, "short", 10);
    CHECK_STR(mem_text(&m), "short");
    mem_close(&m);
}

/* The cut as it was defined, over every byte: the characters counted
 * (lead bytes), the tail found from the start (utf8_prefix's units: a
 * byte and the continuation bytes after it).                             */
static size_t ref_units(const char *s, size_t n, size_t units)
{
    size_t i = 0;
    for (size_t k = 0; i < n && k < units; k++)
        for (i++; i < n && ((unsigned char)s[i] & 0xC0) == 0x80; i++) continue;
    return i;
}

static void ref_cut(char *out, const char *s, size_t max)
{
    size_t n = strlen(s), chars = 0;
    for (size_t i = 0; i < n; i++) chars += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (chars <= max || max < 8) {
        strcpy(out, s);
        return;
    }
    size_t head = (max - 1) * 2 / 3, tail = max - 1 - head, h = ref_units(s, n, head);
    size_t skip = ref_units(s, n, chars - tail);
    sprintf(out, "%.*s…%s", (int)h, s, s + skip);
}

/* rp_text_cut, which counts only as far as it cuts, against the cut over
 * every byte: plain, two- and three-byte characters, stray continuation
 * bytes (first, in the middle, last), at lengths about the limit.         */
TEST(report_text_cut_matches_counting_every_byte)
{
    static const char *const parts[] = { "a", "\xc2\xb5", "\xe2\x80\xa6", "\x80", "\xbf\xbf", "z" };
    char s[256], want[512];
    unsigned seed = 7;
    for (int round = 0; round < 400; round++) {
        size_t len = 0, target = (size_t)(round % 40);
        s[0] = 0;
        while (len < target) {
            seed = seed * 1103515245u + 12345u;
            const char *p = parts[(seed >> 16) % 6];
            strcat(s, p);
            len++;
        }
        size_t max = 8 + (size_t)(round % 7) * 3;
        memout m;
        mem_open(&m);
        rp_text_cut(&m.h, s, max);
        ref_cut(want, s, max);
        CHECK_STR(mem_text(&m), want);
        mem_close(&m);
    }
}

TEST(report_pie_marks_and_shares)
{
    static const char *const labels[] = { "gemm<float>", "zero", "copy" };
    const double v[] = { 3000, 0, 1000 };
    memout m;
    mem_open(&m);
    rp_pie(&m.h, "Kernel time", labels, NULL, v, 3, RP_US);
    const char *s = mem_text(&m);
    CHECK(strstr(s, "data-n=\"2\"") != NULL); /* the zero slice is left out */
    CHECK_INT(count(s, "class=\"mark\""), 2);
    /* the hover names are referred to (data-k), written once at the end */
    CHECK(strstr(s, "data-k=\"0\"><title>: 3.00 ms (75.0 %)</title>") != NULL);
    CHECK(strstr(s, "data-k=\"1\"><title>: 1.00 ms (25.0 %)</title>") != NULL);
    CHECK(strstr(s, "gemm&lt;float&gt; — (75.0 %)") != NULL); /* legend */
    CHECK(strstr(s, "zero") == NULL);
    CHECK_INT(m.h.nnames, 2);
    rp_names_write(&m.h);
    CHECK(strstr(mem_text(&m), "id=\"kt-names\">[\"gemm\\u003cfloat>\",\n\"copy\"]</script>") != NULL);
    rp_names_free(&m.h);
    mem_close(&m);
}

TEST(report_stacked_bars_heights)
{
    static const char *const bars[] = { "rank 0", "rank 1" }, *const segs[] = { "idle", "busy" };
    const double v[] = { 100, 300, 200, 0 };
    memout m;
    mem_open(&m);
    rp_stacked_bars(&m.h, "GPU time", "rank", bars, 2, segs, 2, v, RP_US);
    const char *s = mem_text(&m);
    CHECK_INT(count(s, "class=\"mark\""), 3);
    /* y axis tops at 400 µs: plot height 300-46-34 = 220 px; 100 µs = 55 px */
    CHECK(strstr(s, "height=\"55.0\"") != NULL);
    CHECK(strstr(s, "height=\"165.0\"") != NULL);
    CHECK(strstr(s, "height=\"110.0\"") != NULL);
    CHECK(strstr(s, "busy: 300 µs (rank 0)") != NULL);
    mem_close(&m);
}

TEST(report_whiskers_and_histogram)
{
    static const char *const labels[] = { "rank 0", "rank 1" };
    const double mean[] = { 10, NAN }, lo[] = { 5, NAN }, hi[] = { 20, NAN };
    memout m;
    mem_open(&m);
    rp_whisker_bars(&m.h, "k", "rank", labels, mean, lo, hi, 2, RP_US);
    const char *s = mem_text(&m);
    CHECK(strstr(s, "data-n=\"1\"") != NULL);
    CHECK(strstr(s, "rank 0: 10.0 µs (min 5.00 µs, max 20.0 µs)") != NULL);
    mem_close(&m);
    const double edges[] = { 1, 10, 100, 1000 }, counts[] = { 4, 0, 2 };
    mem_open(&m);
    rp_histogram(&m.h, "gaps", "gap", edges, counts, 3, 1, RP_US);
    s = mem_text(&m);
    CHECK_INT(count(s, "class=\"mark\""), 2);
    CHECK(strstr(s, "1.00 µs – 10.0 µs: 4") != NULL);
    CHECK(strstr(s, "100 µs – 1.00 ms: 2") != NULL);
    mem_close(&m);
}

TEST(report_decimate_bounds_points_keeps_extremes)
{
    enum { N = 10000 };
    static double x[N], y[N];
    static size_t keep[N];
    for (size_t i = 0; i < N; i++) x[i] = (double)i, y[i] = (double)(i % 97);
    y[4321] = 1000, y[7777] = -5;
    size_t k = rp_decimate(x, y, N, 400, keep);
    CHECK(k <= 400 && k >= 200);
    bool max = false, min = false, sorted = true;
    for (size_t i = 0; i < k; i++) {
        max |= keep[i] == 4321, min |= keep[i] == 7777;
        if (i && keep[i] <= keep[i - 1]) sorted = false;
    }
    CHECK(max && min && sorted);
    CHECK_INT(rp_decimate(x, y, 5, 400, keep), 5);
}

/* A small Kineto trace: one step, two kernels (one name is hostile HTML),
 * an NCCL kernel, a memcpy; each launched by a runtime call.               */
static const char hand_trace[] =
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 200},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 30},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 5, \"args\": {\"correlation\": 10}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 11}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 40, \"dur\": 5, \"args\": {\"correlation\": 12}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 1, \"tid\": 1, \"ts\": 50, \"dur\": 5, \"args\": {\"correlation\": 13}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm80_gemm</script><img src=x onerror=alert(1)>\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 40, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 10}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"elementwise_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 70, \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_RING_LL_Sum_float\", \"pid\": 0, \"tid\": 20, \"ts\": 50, \"dur\": 60, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": 12}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 13, \"bytes\": 2000000, \"memory bandwidth (GB/s)\": 100.0}}\n"
    "]}\n";

/* Its page: every section shown on all traces, and the critical path (it
 * has CPU ops and kernels); no memory events, no repeated kernel
 * sequence, one rank, no shapes, no baseline.                              */
#define HAND_SECTIONS (rp_nsections_always() + 1)

static kt_trace *load_hand(void)
{
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("hand.json", hand_trace, strlen(hand_trace), NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    return t;
}

static char *report_text(const kt_trace *t, const kt_report_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(kt_report_write(t, NULL, o, f, NULL), KT_OK);
    fclose(f);
    return buf;
}

/* The text of <section id="id"> ... </section>, or "" (static copy). */
static const char *section(const char *html, const char *id)
{
    static char buf[1 << 20];
    char key[64];
    snprintf(key, sizeof key, "<section id=\"%s\">", id);
    const char *a = strstr(html, key), *b = a ? strstr(a, "</section>") : NULL;
    size_t n = b ? (size_t)(b - a) : 0;
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, a ? a : "", n);
    buf[n] = 0;
    return buf;
}

TEST(report_hand_trace_every_section)
{
    kt_trace *t = load_hand();
    if (!t) return;
    char *html = report_text(t, NULL);
    CHECK_INT(count(html, "<section id="), HAND_SECTIONS);
    CHECK(strstr(html, "<section id=\"critical-path\">") != NULL);
    for (size_t i = 0; i < rp_nsections; i++) {
        if (rp_sections[i].shown && strcmp(rp_sections[i].id, "critical-path")) continue; /* not in this trace */
        const char *s = section(html, rp_sections[i].id);
        if (!strstr(s, "class=\"mark\"")) kt_test_fail(__FILE__, __LINE__, "section %s has no chart mark", rp_sections[i].id);
    }
    /* the hostile kernel name only ever appears escaped: in the name list */
    CHECK(strstr(html, "<img") == NULL);
    CHECK_INT(count(html, "</script>"), 2); /* the page script and the name list */
    CHECK(strstr(html, "\"sm80_gemm\\u003c/script>\\u003cimg src=x onerror=alert(1)>\"") != NULL);
    /* offline: nothing fetched from anywhere */
    CHECK(strstr(html, "src=\"http") == NULL && strstr(html, "href=\"http") == NULL);
    CHECK(strstr(html, "@import") == NULL);
    /* temporal: 4 events over [20, 120) µs, busy 20-110 and 100-120 → idle 0 */
    const char *temporal = section(html, "temporal");
    CHECK(strstr(temporal, "<td class=\"n\" data-v=\"100\">100 µs</td>") != NULL); /* GPU span */
    /* kernel launches: four launch pairs drawn in the histograms */
    CHECK(strstr(section(html, "launch"), "data-n=\"") != NULL);
    free(html);
    kt_trace_free(t);
}

/* data-v of every <td> of every <tr> after `after` in s, row by row. */
static size_t table_rows(const char *s, const char *after, double rows[][16], size_t max)
{
    const char *p = strstr(s, after);
    size_t n = 0;
    const char *end = p ? strstr(p, "</table>") : NULL;
    while (p && n < max && (p = strstr(p, "<tr><td")) && p < end) {
        const char *e = strstr(p, "</tr>");
        size_t k = 0;
        for (const char *q = p; (q = strstr(q, "<td")) && q < e && k < 16; q++) {
            const char *v = strstr(q, "data-v=\"");
            rows[n][k++] = v && v < strchr(q, '>') ? strtod(v + 8, NULL) : NAN;
        }
        n++, p = e;
    }
    return n;
}

TEST(report_oracle_temporal_and_kernel_types_hta_compat)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace(fx_hta_trace("trace_filter_2ranks"), true);
    fx_csv *tc = fx_csv_read("oracle/hta/trace_filter_2ranks/temporal_breakdown.csv");
    fx_csv *kc = fx_csv_read("oracle/hta/trace_filter_2ranks/gpu_kernel_breakdown_kernel_type.csv");
    CHECK(t && tc && kc);
    if (!t || !tc || !kc) return;
    char *html = report_text(t, NULL);
    static double rows[64][16];
    size_t n = table_rows(section(html, "temporal"), "Temporal breakdown (kineta temporal)", rows, 64);
    CHECK_INT(n, tc->nrows - 1);
    static const char *const cols[] = { "rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                        "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
                                        "non_compute_time_pctg" };
    for (size_t r = 0; r < n && r + 1 < tc->nrows; r++)
        for (size_t k = 0; k < 8; k++) CHECK_NEAR(rows[r][k], strtod(fx_csv_get(tc, r + 1, cols[k]), NULL), 0);
    n = table_rows(section(html, "kernel-types"), "Kernel time by type, all ranks", rows, 64);
    CHECK_INT(n, kc->nrows - 1);
    for (size_t r = 0; r < n && r + 1 < kc->nrows; r++) {
        CHECK_NEAR(rows[r][1], strtod(fx_csv_get(kc, r + 1, "sum"), NULL), 0);
        /* the page keeps full precision; HTA (and our CLI) print 1 decimal */
        CHECK_NEAR(round(rows[r][2] * 10) / 10, strtod(fx_csv_get(kc, r + 1, "percentage"), NULL), 1e-9);
    }
    free(html);
    fx_csv_free(tc);
    fx_csv_free(kc);
}

TEST(report_cpu_only_trace_notes_not_crash)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/cpu_only", false);
    if (!t) return;
    char *html = report_text(t, NULL);
    CHECK_INT(count(html, "<section id="), rp_nsections_always());
    CHECK(strstr(section(html, "top-kernels"), "No GPU kernels on this rank.") != NULL);
    CHECK(strstr(html, "</html>") != NULL);
    free(html);
}

TEST(report_unwritable_path_says_which)
{
    kt_trace *t = load_hand();
    if (!t) return;
    kt_report_options o = kt_report_defaults();
    kt_tables *ts = (kt_tables *)1;
    kt_diags *why;
    CHECK_INT(kt_report(t, NULL, &o, "/nonexistent-dir/r.html", &ts, &why), KT_EINPUT);
    CHECK(ts == NULL);
    CHECK(strstr(fx_why(why), "/nonexistent-dir/r.html") != NULL);
    CHECK_INT(kt_report(NULL, NULL, &o, "/tmp/x.html", &ts, NULL), KT_EUSAGE);
    kt_trace_free(t);
}

TEST(report_never_overwrites_a_trace_file)
{
    char dir[] = "/tmp/kineta-test-report-in-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/rank-0.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(hand_trace, f);
    fclose(f);
    const char *paths[] = { path };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 1, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    kt_report_options o = kt_report_defaults();
    kt_diags *why;
    CHECK_INT(kt_report(t, NULL, &o, path, NULL, &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "is one of the trace files") != NULL);
    size_t len = 0;
    char *kept = fx_read_file(path, &len);
    CHECK(kept && len == strlen(hand_trace));
    free(kept);
    kt_trace_free(t);
    unlink(path);
    rmdir(dir);
}

TEST(report_file_and_table)
{
    kt_trace *t = load_hand();
    if (!t) return;
    char dir[] = "/tmp/kineta-test-report-XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.html", dir);
    kt_tables *ts = NULL;
    CHECK_INT(kt_report(t, NULL, NULL, path, &ts, NULL), KT_OK);
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    const kt_table *r = ts ? kt_tables_find(ts, "report") : NULL;
    CHECK(r != NULL);
    if (r) {
        CHECK_STR(kt_table_str(r, 0, 0), path);
        CHECK_INT(kt_table_int(r, 0, 1), st.st_size);
        CHECK_INT(kt_table_int(r, 0, 2), HAND_SECTIONS);
        CHECK_INT(kt_table_int(r, 0, 3), 1);
    }
    kt_tables_free(ts);
    unlink(path);
    rmdir(dir);
    kt_trace_free(t);
}

/* The ranks kineta-synth ARGS writes under dir (a mkdtemp template,
 * filled in), loaded; NULL (SKIP) without kineta-synth.                  */
static kt_trace *synth_trace(char *dir, const char *args)
{
    const char *synth = getenv("KINETA_SYNTH");
    if (!synth || access(synth, X_OK) != 0) {
        kt_test_skip("kineta-synth not built (KINETA_SYNTH)");
        return NULL;
    }
    char cmd[1024], path[1100];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s %s -o %s/trace > /dev/null", synth, args, dir);
    CHECK_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/trace/rank-*", dir);
    glob_t g;
    CHECK_INT(glob(path, 0, NULL, &g), 0);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load((const char *const *)g.gl_pathv, g.gl_pathc, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    globfree(&g);
    return t;
}

static void remove_dir(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(report_64_ranks_under_5mb)
{
    char dir[] = "/tmp/kineta-test-report64-XXXXXX", path[1100];
    kt_trace *t = synth_trace(dir, "--ranks 64 --size 1M");
    if (!t) return;
    CHECK_INT(kt_trace_nranks(t), 64);
    snprintf(path, sizeof path, "%s/report.html", dir);
    kt_tables *ts = NULL;
    CHECK_INT(kt_report(t, NULL, NULL, path, &ts, NULL), KT_OK);
    const kt_table *r = ts ? kt_tables_find(ts, "report") : NULL;
    CHECK(r && kt_table_int(r, 0, 3) == 64);
    CHECK(r && kt_table_int(r, 0, 1) <= 5 * 1000 * 1000);
    if (r) printf("    64-rank report: %.2f MB\n", (double)kt_table_int(r, 0, 1) / 1e6);
    kt_tables_free(ts);
    kt_trace_free(t);
    remove_dir(dir);
}

/* Exit status of a shell command (-1 if it did not exit). */
static int run(const char *cmd)
{
    int rc = system(cmd);
    return rc >= 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(report_cli_writes_page_and_names_bad_path)
{
    const char *bin = getenv("KINETA_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    char dir[] = "/tmp/kineta-test-report-cli-XXXXXX", path[128], cmd[1024];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/hand.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(hand_trace, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s report %s -o %s/r.html > %s/out.txt", bin, path, dir, dir);
    CHECK_INT(run(cmd), 0);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    char *out = fx_read_file(path, NULL);
    CHECK(out && strstr(out, "/r.html (") && strstr(out, "13 sections, 1 ranks)"));
    free(out);
    snprintf(path, sizeof path, "%s/r.html", dir);
    char *html = fx_read_file(path, NULL);
    CHECK(html && strstr(html, "</html>") && count(html, "<section id=") == HAND_SECTIONS);
    free(html);
    /* --baseline adds the diff section; a baseline that does not load fails */
    snprintf(cmd, sizeof cmd, "%s report %s/hand.json --baseline %s/hand.json -o %s/d.html > %s/out.txt", bin, dir,
             dir, dir, dir);
    CHECK_INT(run(cmd), 0);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    out = fx_read_file(path, NULL);
    CHECK(out && strstr(out, "14 sections, 1 ranks)"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s report -q %s/hand.json --baseline %s/nothing.json -o %s/d.html 2> %s/err.txt",
             bin, dir, dir, dir, dir);
    CHECK(run(cmd) != 0);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    out = fx_read_file(path, NULL);
    CHECK(out && strstr(out, "--baseline") && strstr(out, "nothing.json"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s report -q %s/hand.json -o %s/missing/r.html 2> %s/err.txt", bin, dir, dir, dir);
    CHECK_INT(run(cmd), 3);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    char *err = fx_read_file(path, NULL);
    CHECK(err && strstr(err, "missing/r.html"));
    free(err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(run(cmd), 0);
}

/* Attribute values written as numbers with a decimal comma: ="12,5". */
static size_t comma_numbers(const char *s)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, "=\"")); p += 2) {
        const char *q = p + 2;
        if (*q == '-') q++;
        if (*q < '0' || *q > '9') continue;
        while (*q >= '0' && *q <= '9') q++;
        n += *q == ',' && q[1] >= '0' && q[1] <= '9';
    }
    return n;
}

TEST(report_numbers_use_a_dot_under_a_comma_locale)
{
    locale_t de = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0);
    if (!de) {
        kt_test_skip("de_DE.UTF-8 locale not installed");
        return;
    }
    kt_trace *t = load_hand();
    locale_t old = uselocale(de);
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    CHECK_STR(probe, "1,5"); /* the locale is really in effect */
    kt_report_options o = kt_report_defaults();
    o.jobs = 3; /* the analyses' threads print C numbers too */
    char *html = t ? report_text(t, &o) : NULL;
    uselocale(old);
    freelocale(de);
    CHECK(html && strstr(html, "<td class=\"n\" data-v=\"100\">100 µs</td>"));
    CHECK_INT(html ? comma_numbers(html) : 1, 0);
    free(html);
    kt_trace_free(t);
}

/* printf's "nan"/"inf" in an attribute or path (not inside a name such as
 * aten::nan_to_num): followed by a quote, a space or a path command.     */
static size_t printed_non_numbers(const char *s)
{
    size_t n = 0;
    static const char *const words[] = { "nan", "inf" };
    for (int w = 0; w < 2; w++)
        for (const char *p = s; (p = strstr(p, words[w])); p += 3)
            n += p[3] && strchr("\" LHVZ", p[3]) != NULL;
    return n;
}

/* Every section all pages have is there, and the optional ones that are
 * there (only where the trace has what they show) have a drawn mark.      */
static bool has_every_section(const char *html)
{
    for (size_t i = 0; i < rp_nsections; i++) {
        char key[64];
        snprintf(key, sizeof key, "<section id=\"%s\">", rp_sections[i].id);
        bool there = strstr(html, key) != NULL;
        if (!rp_sections[i].shown ? !there : there && !strstr(section(html, rp_sections[i].id), "class=\"mark\""))
            return false;
    }
    return true;
}

TEST(report_every_shared_trace)
{
    NEED_SHARED();
    static const char *const traces[] = {
        "traces/hta/amd_trace", "traces/hta/call_stack", "traces/hta/cpu_only", "traces/hta/cupti_profiler",
        "traces/hta/distributed_info_unavailable", "traces/hta/execution_trace", "traces/hta/mixed_files",
        "traces/hta/mtia_inference_trace", "traces/hta/nccl_parser_config", "traces/hta/rank_non_gpu",
        "traces/hta/rank_unavailable", "traces/hta/timeline_analysis", "traces/hta/trace_file_list",
        "traces/hta/trace_filter", "traces/hta/triton_example", "traces/tracelens/torch_compile_triton",
        "traces/legacy_tbplugin_resnet50.pt.trace.json.gz",
    };
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) {
        const kt_trace *t = fx_shared_trace(traces[i], false);
        if (!t) continue; /* a failed CHECK already */
        char *html = report_text(t, NULL);
        if (!html || !has_every_section(html) || !strstr(html, "</html>\n"))
            kt_test_fail(__FILE__, __LINE__, "%s: incomplete page", traces[i]);
        else if (comma_numbers(html) || printed_non_numbers(html))
            kt_test_fail(__FILE__, __LINE__, "%s: a number that is not one", traces[i]);
        free(html);
    }
}

TEST(report_selection_of_one_rank_and_of_none)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/trace_filter", false);
    if (!t) return;
    int one = 1, none = 5;
    kt_rank_sel s1 = { &one, 1 }, s0 = { &none, 1 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(kt_report_write(t, &s1, NULL, f, NULL), KT_OK);
    fclose(f);
    CHECK(buf && strstr(buf, "data-rank=\"1\"") && !strstr(buf, "data-rank=\"0\""));
    CHECK(buf && !strstr(buf, "id=\"rank-pick\"")); /* one rank: no picker */
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK_INT(kt_report_write(t, &s0, NULL, f, NULL), KT_OK);
    fclose(f);
    CHECK(buf && count(buf, "<section id=") == rp_nsections_always() && !strstr(buf, "data-rank="));
    free(buf);
}

TEST(report_empty_charts_draw_axes_only)
{
    memout m;
    mem_open(&m);
    rp_histogram(&m.h, "no gaps", "gap", NULL, NULL, 0, 1, RP_US);
    rp_stacked_bars(&m.h, "no bars", "rank", NULL, 0, NULL, 0, NULL, RP_US);
    rp_whisker_bars(&m.h, "no bars", "rank", NULL, NULL, NULL, NULL, 0, RP_US);
    rp_lines(&m.h, "no lines", "t", RP_US, "q", RP_COUNT, NULL, 0, 1, 400);
    const char *s = mem_text(&m);
    CHECK_INT(count(s, "data-n=\"0\""), 4);
    CHECK_INT(count(s, "class=\"mark\""), 0);
    CHECK_INT(printed_non_numbers(s), 0);
    mem_close(&m);
}

TEST(report_step_line_path)
{
    const double x[] = { 0, 2.5, 10 }, y[] = { 0, 3, 5 };
    rp_series s = { "stream 7", x, y, 3, false };
    memout m;
    mem_open(&m);
    rp_lines(&m.h, "queue", "time", RP_US, "queue length", RP_COUNT, &s, 1, 1, 400);
    const char *out = mem_text(&m);
    /* plot x 70..544 px for 0..10, y 254..34 px for 0..5 (axis top 5) */
    CHECK(strstr(out, "d=\"M70.0 254.0H188.5V122.0H544.0V34.0\"") != NULL);
    CHECK(strstr(out, "<title>stream 7 (3 points)</title>") != NULL);
    mem_close(&m);
}

/* 64 ranks with kilobyte-long C++ kernel names (trace_filter's two files,
 * 32 times each): the names are written once, the page stays under 5 MB.  */
TEST(report_64_ranks_of_long_names_under_5mb)
{
    NEED_SHARED();
    char p0[512], p1[512];
    const char *d = kt_test_shared_path("traces/hta/trace_filter");
    if (!d) return;
    snprintf(p0, sizeof p0, "%s/sampled_rank-0.json.gz", d);
    snprintf(p1, sizeof p1, "%s/sampled_rank-1.json.gz", d);
    const char *paths[64];
    int ranks[64];
    for (int i = 0; i < 64; i++) paths[i] = i % 2 ? p1 : p0, ranks[i] = i;
    kt_load_options lo = { .size = sizeof lo, .ranks = ranks };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(paths, 64, &lo, &t, &fail), KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    char *html = report_text(t, NULL);
    size_t len = html ? strlen(html) : 0;
    printf("    64 ranks of trace_filter: %.2f MB\n", (double)len / 1e6);
    CHECK(len > 0 && len <= 5 * 1000 * 1000);
    /* temporal, top-kernels, idle, launch, queue, memcpy-bw, critical-path, patterns */
    CHECK_INT(count(html, "<div class=\"rank-panel\" data-rank=\"63\">"), 8);
    free(html);
    kt_trace_free(t);
}

TEST(report_zeroed_options_mean_defaults)
{
    kt_trace *t = load_hand();
    if (!t) return;
    kt_report_options zero = { .size = sizeof zero };
    char *html = report_text(t, &zero);
    /* the queue line is drawn (max_points 0 would draw an empty path) */
    CHECK(html && strstr(section(html, "queue"), "stroke-width=\"1.4\" d=\"M") != NULL);
    CHECK(html && strstr(html, "<title>kineta report</title>") != NULL);
    free(html);
    kt_trace_free(t);
}

/* Under --hta-compat HTA counts only CUDA launch APIs: the AMD trace has
 * no launches, and the section says why instead of drawing empty axes.   */
TEST(report_amd_hta_compat_launch_note)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/amd_trace", true);
    if (!t) return;
    char *html = report_text(t, NULL);
    const char *launch = html ? section(html, "launch") : "";
    CHECK(strstr(launch, "No launch call linked to a GPU event on this rank") != NULL);
    CHECK(strstr(launch, "class=\"mark\"") == NULL);
    free(html);
}

/* Sections about what only some traces record appear exactly when the
 * trace has it: df_index_resolver has 28 k [memory] events, so its page
 * has the device-memory section (link, chart with data, peak tables);
 * pages of traces without them have no such section or link.            */
TEST(report_memory_section_only_with_memory_events)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/df_index_resolver", false);
    if (!t) return;
    char *html = report_text(t, NULL);
    CHECK(strstr(html, "<section id=\"memory\">") != NULL);
    const char *s = section(html, "memory");
    CHECK(s && strstr(s, "class=\"mark\"") && strstr(s, "Ops holding memory at the peak") && strstr(s, "aten::mm"));
    CHECK(strstr(html, "href=\"#memory\"") != NULL);
    free(html);
    const kt_trace *amd = fx_shared_trace("traces/hta/amd_trace", false);
    if (!amd) return;
    html = report_text(amd, NULL);
    CHECK(strstr(html, "id=\"memory\"") == NULL && strstr(html, "href=\"#memory\"") == NULL);
    free(html);
}

/* The data-v attribute rp_cell_num writes for v. */
static const char *data_v(char *b, size_t cap, double v)
{
    if (v == (double)(long long)v && fabs(v) < 1e15) snprintf(b, cap, "data-v=\"%lld\"", (long long)v);
    else snprintf(b, cap, "data-v=\"%.17g\"", v);
    return b;
}

/* A cell of table `name` of ts, by column name. */
static double cell(const kt_tables *ts, const char *name, size_t row, const char *col)
{
    const kt_table *t = ts ? kt_tables_find(ts, name) : NULL;
    long c = t ? kt_table_col_index(t, col) : -1;
    if (!t || c < 0 || row >= kt_table_nrows(t)) return NAN;
    return kt_table_col_type(t, (size_t)c) == KT_COL_INT ? (double)kt_table_int(t, row, (size_t)c)
                                                          : kt_table_float(t, row, (size_t)c);
}

static void check_in(const char *sec, const char *id, const char *what)
{
    if (!strstr(sec, what)) kt_test_fail(__FILE__, __LINE__, "section %s lacks %s", id, what);
}

/* trace_filter (2 ranks): the sections of the later analyses show the
 * numbers `kineta critical-path`, `patterns --mine`, `collectives` and
 * `perf` print; a single-rank trace has no collectives section.          */
TEST(report_later_analyses_show_their_tables)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/trace_filter", false);
    if (!t) return;
    char *html = report_text(t, NULL), b[96];
    kt_tables *cp = NULL, *mine = NULL, *coll = NULL, *perf = NULL;
    kt_critical_path_options co = kt_critical_path_defaults();
    kt_mine_options mo = kt_mine_defaults();
    kt_collectives_options lo = kt_collectives_defaults();
    kt_perf_options po = kt_perf_defaults();
    CHECK_INT(kt_critical_path(t, NULL, &co, &cp, NULL), KT_OK);
    CHECK_INT(kt_mine_sequences(t, NULL, &mo, &mine), KT_OK);
    CHECK_INT(kt_collectives(t, NULL, &lo, &coll), KT_OK);
    CHECK_INT(kt_perf(t, NULL, &po, &perf, NULL), KT_OK);
    /* rank 1's path length (graph row 1) and rank 0's longest edge */
    const char *sec = section(html, "critical-path");
    check_in(sec, "critical-path", data_v(b, sizeof b, cell(cp, "graph", 1, "path_length_us")));
    double longest = 0;
    for (size_t i = 0; cell(cp, "breakdown", i, "rank") == 0; i++)
        longest = fmax(longest, cell(cp, "breakdown", i, "duration"));
    CHECK(longest > 0);
    check_in(sec, "critical-path", data_v(b, sizeof b, longest));
    /* the first fusion candidate's GPU time and saving */
    check_in(section(html, "patterns"), "patterns", data_v(b, sizeof b, cell(mine, "sequences", 0, "kernel_us")));
    check_in(section(html, "patterns"), "patterns", data_v(b, sizeof b, cell(mine, "sequences", 0, "saving_us")));
    /* the first send/recv's start skew, on hover of its bar */
    char v[64], hover[160];
    snprintf(hover, sizeof hover, "<title>sendrecv stream84_0: %s",
             rp_fmt(v, sizeof v, cell(coll, "other", 0, "skew in start time"), RP_US));
    check_in(section(html, "collectives"), "collectives", hover);
    check_in(section(html, "collectives"), "collectives", "Stragglers (kineta stragglers, table verdict)");
    check_in(section(html, "collectives"), "collectives", "inconclusive"); /* one step, one collective */
    /* GEMM's FLOPs (perf_by_family row 0) */
    check_in(section(html, "perf"), "perf", data_v(b, sizeof b, cell(perf, "perf_by_family", 0, "gflops")));
    CHECK(strstr(section(html, "perf"), "<circle class=\"mark\"") != NULL);
    CHECK(strstr(html, "id=\"diff\"") == NULL); /* no baseline */
    kt_tables_free(cp), kt_tables_free(mine), kt_tables_free(coll), kt_tables_free(perf);
    free(html);
    const kt_trace *one = fx_shared_trace("traces/hta/timeline_analysis", false);
    html = one ? report_text(one, NULL) : NULL;
    CHECK(html && !strstr(html, "id=\"collectives\"") && strstr(html, "id=\"patterns\""));
    free(html);
}

/* --baseline: trace_diff's test against its control; the diff section's
 * numbers are kineta diff's (side_by_side, ops_diff).                    */
TEST(report_diff_section_against_baseline)
{
    NEED_SHARED();
    const kt_trace *control = fx_shared_trace("traces/hta/trace_diff/control", false);
    const kt_trace *test = fx_shared_trace("traces/hta/trace_diff/test", false);
    if (!control || !test) return;
    kt_diff_options d = kt_diff_defaults();
    kt_tables *diff = NULL;
    CHECK_INT(kt_diff(control, test, &d, &diff, NULL), KT_OK);
    kt_report_options o = kt_report_defaults();
    o.baseline = control;
    char *html = report_text(test, &o), b[96];
    const char *sec = section(html, "diff");
    check_in(sec, "diff", data_v(b, sizeof b, cell(diff, "side_by_side", 0, "delta_time_us")));
    check_in(sec, "diff", data_v(b, sizeof b, cell(diff, "side_by_side", 0, "Test_time_us")));
    const kt_table *od = diff ? kt_tables_find(diff, "ops_diff") : NULL;
    size_t added = 0;
    for (size_t i = 0; od && i < kt_table_nrows(od); i++) added += !strcmp(kt_table_str(od, i, 0), "added");
    snprintf(b, sizeof b, "<title>added: %zu</title>", added);
    CHECK(added > 0);
    check_in(sec, "diff", b);
    CHECK(strstr(html, "href=\"#diff\"") != NULL);
    free(html);
    html = report_text(test, NULL);
    CHECK(html && !strstr(html, "id=\"diff\""));
    free(html);
    kt_tables_free(diff);
}

/* Analyses run on several threads before the sections are drawn: the
 * page is the same byte for byte as with one thread, diff section too.   */
TEST(report_parallel_analyses_equal_one_thread)
{
    kt_trace *t = load_hand();
    if (!t) return;
    kt_report_options o = kt_report_defaults();
    o.jobs = 1;
    char *one = report_text(t, &o);
    o.jobs = 4;
    char *four = report_text(t, &o);
    CHECK(one && four && !strcmp(one, four));
    free(four);
    o.baseline = t; /* the trace against itself: a diff section */
    char *diff4 = report_text(t, &o);
    o.jobs = 1;
    char *diff1 = report_text(t, &o);
    CHECK(diff1 && strstr(diff1, "<section id=\"diff\">") != NULL);
    CHECK(diff1 && diff4 && !strcmp(diff1, diff4));
    free(one);
    free(diff1);
    free(diff4);
    kt_trace_free(t);
}

/* The scatter on log axes: points not > 0 on both axes are left out;
 * 1 and 100 on a 1..100 axis sit at the plot's two ends.                 */
TEST(report_scatter_log_axes)
{
    const double x[] = { 1, 100, 0, 10 }, y[] = { 1, 100, 5, -1 };
    const char *const names[] = { "a", "b", "c", "d" };
    rp_points g = { "GEMM", x, y, names, 4 };
    memout m;
    mem_open(&m);
    rp_scatter(&m.h, "roofline", "FLOPs/byte", "TFLOP/s", &g, 1);
    const char *s = mem_text(&m);
    CHECK(strstr(s, "data-n=\"2\"") != NULL);
    CHECK_INT(count(s, "class=\"mark\""), 2);
    CHECK(strstr(s, "cx=\"70.0\" cy=\"254.0\"") != NULL);  /* (1, 1): bottom left   */
    CHECK(strstr(s, "cx=\"544.0\" cy=\"34.0\"") != NULL);  /* (100, 100): top right */
    CHECK(strstr(s, "<title>b (GEMM): FLOPs/byte 100, TFLOP/s 100</title>") != NULL);
    mem_close(&m);
}

/* The wait chart's one segment is named in its legend (it was an empty
 * label beside a swatch); the straggler verdict's footnotes are shown.   */
TEST(report_wait_chart_legend_is_labelled)
{
    char dir[] = "/tmp/kineta-test-reportwait-XXXXXX";
    kt_trace *t = synth_trace(dir, "--ranks 4 --steps 3 --straggler 2:800");
    if (!t) return;
    char *html = report_text(t, NULL);
    const char *chart = html ? strstr(html, "Time waiting for the other ranks") : NULL;
    CHECK(chart != NULL);
    const char *end = chart ? strstr(chart, "</svg>") : NULL;
    const char *label = chart ? strstr(chart, ">total wait</text>") : NULL;
    CHECK(label != NULL && label < end);
    const char *empty = chart ? strstr(chart, "\"></text>") : NULL;
    CHECK(!empty || empty > end);
    CHECK(html && strstr(html, "thresholds: robust z &gt; 3.50") != NULL);
    free(html);
    kt_trace_free(t);
    remove_dir(dir);
}
