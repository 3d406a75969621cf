/*
 * test_cli_output.c — what a person sees from `kineta` (issue 12's list of
 * output defects, one test or more each): distinct short names, kept
 * arrows, words that mean one thing, selections that select nothing,
 * every row in machine formats, no leaked ids, sane precision, output
 * paths, early --table checks, help, the info step summary, terminal
 * width, units and JSON keys, and `make demo`.  Runs the built binary
 * ($KINETA_BIN); real traces from ../shared where the defect was found.
 */
#include "cli_run.h"
#include "test.h"
#include "oracle.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_CAP (1 << 21)


#define NEED_BIN()                                                            \
    do {                                                                      \
        if (!kt_cli_bin()) { kt_test_skip("KINETA_BIN not set (run make test)"); return; } \
    } while (0)

/* Run a shell command line ("%K" in fmt is not special: pass kt_cli_bin()),
 * capture its stdout into out; returns the exit code.                     */
static int sh(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    while (fgetc(p) != EOF) {} /* let the command finish writing */
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *out_buf(void)
{
    static char *buf;
    if (!buf) buf = malloc(OUT_CAP);
    return buf;
}

static const char *shared(const char *rel)
{
    static char paths[8][1024];
    static int next;
    const char *p = kt_test_shared_path(rel);
    if (!p) return NULL;
    char *slot = paths[next++ % 8];
    snprintf(slot, sizeof paths[0], "%s", p);
    return slot;
}

/* Display columns of [s, s + n): UTF-8 code points. */
static size_t width_of(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xc0) != 0x80;
    return w;
}

/* Every line of text at most width columns and none ending in a space. */
static void check_fits(const char *text, size_t width, const char *what)
{
    size_t lineno = 1;
    for (const char *p = text; *p; lineno++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (width_of(p, n) > width)
            kt_test_fail(__FILE__, __LINE__, "%s: line %zu is %zu columns wide (> %zu): %.*s", what, lineno,
                         width_of(p, n), width, (int)n, p);
        if (n && p[n - 1] == ' ')
            kt_test_fail(__FILE__, __LINE__, "%s: line %zu ends in a space", what, lineno);
        p += n + (nl != NULL);
    }
}

/* The lines of the first block of table `name` in text output: data rows
 * after the header line containing hdr.  Returns how many, at most max;
 * rows[i] point into text (not terminated: lens[i]).                      */
static size_t table_rows(const char *text, const char *name, const char *hdr, const char **rows, size_t *lens,
                         size_t max, size_t *hdr_col, const char *next_hdr, size_t *next_col)
{
    char title[128];
    snprintf(title, sizeof title, "== %s (", name);
    const char *p = strstr(text, title);
    if (!p) return 0;
    size_t n = 0;
    bool in_rows = false;
    for (p = strchr(p, '\n'); p && *++p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!in_rows) {
            const char *h = strstr(p, hdr), *x = next_hdr ? strstr(p, next_hdr) : NULL;
            if (h && h < p + len) {
                *hdr_col = (size_t)(h - p);
                if (next_col) *next_col = x && x < p + len ? (size_t)(x - p) : 0;
                in_rows = true;
            }
        } else if (len == 0) {
            break;
        } else if (n < max) {
            rows[n] = p;
            lens[n++] = len;
        }
        p = nl;
    }
    return n;
}

/* The text of [from, to) of a row, trailing spaces dropped. */
static void field(const char *row, size_t len, size_t from, size_t to, char *buf, size_t cap)
{
    if (to == 0 || to > len) to = len;
    size_t n = from < to ? to - from : 0;
    if (n >= cap) n = cap - 1;
    memcpy(buf, row + (from < len ? from : len), n);
    while (n && buf[n - 1] == ' ') n--;
    buf[n] = '\0';
}

static int by_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* How many distinct strings among n rows of names[][256]. */
static size_t distinct(char (*names)[256], size_t n)
{
    qsort(names, n, sizeof *names, by_str);
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += i == 0 || strcmp(names[i], names[i - 1]) != 0;
    return d;
}

/* ---- 1. short names stay distinct; --verbose prints full names --------- */

/* kernels --sort total --top 0 in 100 columns: every row's name different
 * (the rows are different kernels), and --verbose shows each full name.   */
static void check_kernel_names(const char *trace)
{
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "COLUMNS=100 %s kernels --sort total --top 0 --format table -q %s", kt_cli_bin(), trace), 0);
    check_fits(out, 100, trace);
    const char *rows[256];
    size_t lens[256], name_col = 0, count_col = 0;
    size_t n = table_rows(out, "kernels", "name", rows, lens, 256, &name_col, "count", &count_col);
    CHECK(n >= 10);
    static char names[256][256];
    for (size_t i = 0; i < n; i++) field(rows[i], lens[i], name_col, count_col - 2, names[i], sizeof names[i]);
    CHECK_INT(distinct(names, n), n);

    kt_trace *t = fx_load_path(trace, false);
    kt_kernels_options o = kt_kernels_defaults();
    o.sort = KT_KSORT_TOTAL, o.top = 0, o.full_names = 1;
    kt_tables *ts = NULL;
    CHECK(t && kt_kernels(t, NULL, &o, &ts) == KT_OK);
    const kt_table *k = ts ? kt_tables_find(ts, "kernels") : NULL;
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --sort total --top 0 --format table --verbose -q %s", kt_cli_bin(), trace), 0);
    for (size_t r = 0; k && r < kt_table_nrows(k); r++) {
        const char *full = kt_table_str(k, r, 1);
        if (!strstr(out, full)) kt_test_fail(__FILE__, __LINE__, "--verbose lacks the full name %s", full);
    }
    kt_tables_free(ts);
    kt_trace_free(t);
}

TEST(cli_short_names_distinct_rocm)
{
    NEED_BIN();
    NEED_SHARED();
    check_kernel_names(shared("traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
    check_kernel_names(shared("traces/tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz"));
}

/* breakdown's distribution on trace_filter: as many different names shown
 * as there are different kernels (long CUDA templates differ mid-name).    */
TEST(cli_short_names_distinct_breakdown)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "COLUMNS=100 %s breakdown --table distribution --format table -q %s", kt_cli_bin(), trace), 0);
    check_fits(out, 100, "breakdown distribution");
    const char *rows[256];
    size_t lens[256], name_col = 0, type_col = 0;
    size_t n = table_rows(out, "distribution", "name", rows, lens, 256, &name_col, "kernel_type", &type_col);
    static char shown[256][256], full[256][256];
    for (size_t i = 0; i < n; i++) field(rows[i], lens[i], 0, type_col - 2, shown[i], sizeof shown[i]);

    kt_trace *t = fx_load_path(trace, false);
    kt_tables *ts = NULL;
    CHECK(t && kt_breakdown(t, NULL, NULL, &ts) == KT_OK);
    const kt_table *d = ts ? kt_tables_find(ts, "distribution") : NULL;
    CHECK(d && kt_table_nrows(d) == n && n > 10);
    for (size_t r = 0; d && r < n; r++) snprintf(full[r], sizeof full[r], "%s", kt_table_str(d, r, 0));
    CHECK_INT(distinct(shown, n), distinct(full, n));
    CHECK(distinct(full, n) > 10);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* ---- 2. transitions keep the arrow; the -o gap report has full names --- */
TEST(cli_transitions_keep_arrow_and_full_names)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "COLUMNS=100 %s gaps --table transitions --format table -q %s", kt_cli_bin(), trace), 0);
    check_fits(out, 100, "gaps transitions");
    const char *rows[64];
    size_t lens[64], col = 0;
    size_t n = table_rows(out, "transitions", "transition", rows, lens, 64, &col, NULL, NULL);
    CHECK(n >= 15);
    for (size_t i = 0; i < n; i++) {
        char row[512];
        field(rows[i], lens[i], 0, 0, row, sizeof row);
        if (!strstr(row, " \xe2\x86\x92 ")) kt_test_fail(__FILE__, __LINE__, "no arrow in: %s", row);
    }
    char report[64];
    snprintf(report, sizeof report, "/tmp/kineta-gaps-%d.txt", (int)getpid());
    CHECK_INT(sh(out, OUT_CAP, "%s gaps -q -o %s %s", kt_cli_bin(), report, trace), 0);
    CHECK_INT(sh(out, OUT_CAP, "cat %s", report), 0);
    unlink(report);
    /* a full name no 80-column cut keeps whole, on both sides of an arrow */
    CHECK(strstr(out, "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<"
                      "c10::Half, float, c10::Half, 2ul, 32>(") != NULL);
    CHECK(strstr(out, " \xe2\x86\x92 ") != NULL);
}

/* ---- 3. "rank" is the distributed rank; kernels' position is "#" ------- */
TEST(cli_kernels_position_is_not_rank)
{
    NEED_BIN();
    NEED_SHARED();
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format csv -q %s", kt_cli_bin(), shared("traces/hta/trace_filter")), 0);
    CHECK(strncmp(out, "#,name,count,", 13) == 0);
    CHECK(strstr(strchr(out, '\n') + 1, "\n2,") != NULL); /* positions 1, 2, ... */
}

/* ---- 4. selecting what does not exist: exit 1, say what exists ---------- */
TEST(cli_selection_of_nothing_fails)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --rank 5 --format csv %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK(strstr(out, "no rank 5") && strstr(out, "ranks: 0-1"));
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --ranks 1,7 --format csv %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK(strstr(out, "no rank 7") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --pstep 999 --format csv %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK(strstr(out, "ProfilerStep#999") && strstr(out, "steps: 551-552"));
    CHECK_INT(sh(out, OUT_CAP, "%s gaps --pstep 999 --format csv %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK_INT(sh(out, OUT_CAP, "%s categories --pstep 999 --format csv %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --pstep 552 --rank 1 --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK(strchr(out, '\n') && strchr(out, '\n')[1] != '\0'); /* rows */
}

/* ---- 5. csv/json get every row unless --top ----------------------------- */
static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

TEST(cli_machine_formats_get_every_row)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    kt_trace *t = fx_load_path(trace, false);
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    kt_tables *ts = NULL;
    CHECK(t && kt_kernels(t, NULL, &o, &ts) == KT_OK);
    size_t all = ts ? kt_table_nrows(kt_tables_find(ts, "kernels")) : 0;
    CHECK(all > 100);
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK_INT(count_lines(out), all + 1);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format csv --top 3 -q %s", kt_cli_bin(), trace), 0);
    CHECK_INT(count_lines(out), 4);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format json -q %s", kt_cli_bin(), trace), 0);
    size_t objs = 0;
    for (const char *p = out; (p = strstr(p, "{\"n\":")); p++) objs++;
    CHECK_INT(objs, all);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "== kernels (10 rows)") != NULL); /* people get the top 10 */
    CHECK_INT(sh(out, OUT_CAP, "%s gaps --table transitions --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK(count_lines(out) > 2 * 15 + 1);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* ---- 6. no internal ids: legacy "stream 7" threads ---------------------- */
TEST(cli_queue_legacy_no_internal_tid)
{
    NEED_BIN();
    NEED_SHARED();
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s queue --format csv --table series -q %s | head -3", kt_cli_bin(),
                 shared("traces/legacy_tbplugin_resnet50.pt.trace.json.gz")),
              0);
    CHECK_STR(out, "ts,pid,tid,stream,queue_length,rank\n45955,0,,7,1,0\n46168,0,,7,0,0\n");
}

/* ---- 7. precision fit for the unit in tables; CSV, JSON every digit ----- */
TEST(cli_precision_per_unit)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s launch --table short_gpu_kernels --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\n0,1204,23.25581395348837,280,8.707142857142857,4.988871383951674,4,6,7,9,35\n") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s launch --table short_gpu_kernels --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "   0      1204            23.26                 280              8.707             4.989") !=
          NULL); /* µs: 3 decimals, %: 2 */
    CHECK_INT(sh(out, OUT_CAP, "%s memcpy-bw --table series --format csv -q %s | head -2", kt_cli_bin(), trace), 0);
    CHECK_STR(out, "ts,pid,name,memory_bw_gbps,rank\n31029,0,Memcpy DtoD,357.8150231801792,0\n");
    CHECK_INT(sh(out, OUT_CAP, "%s memcpy-bw --table series --format json -q %s | head -3", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"memory_bw_gbps\":357.8150231801792") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s categories --table categories --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "Communication,20,775.252,60.78624779868493") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s categories --table categories --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "Communication       20        775.252             60.79") != NULL); /* ms: 3 decimals, not 6 */
    CHECK_INT(sh(out, OUT_CAP, "%s temporal --tracelens --format table -q %s", kt_cli_bin(), trace), 0);
    for (const char *p = out; (p = strchr(p, '.')); p++) {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits > 3) kt_test_fail(__FILE__, __LINE__, "temporal --tracelens: %zu decimals near %.20s", digits, p);
    }
}

/* ---- 8. -o paths; counters' size column --------------------------------- */
TEST(cli_output_paths)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/amd_trace");
    char dir[128], *out = out_buf();
    snprintf(dir, sizeof dir, "/tmp/kineta-out-%d", (int)getpid());
    CHECK_INT(sh(out, OUT_CAP, "%s counters -q --format csv -o %s/a/b %s", kt_cli_bin(), dir, trace), 0);
    CHECK(strncmp(out, "rank,input,output,counter_events,uncompressed_bytes\n", 52) == 0);
    char made[256];
    snprintf(made, sizeof made, "%s/a/b/mi250_minitoy_train_ROCm6_2_kineto_with_counters.json.gz", dir);
    CHECK(access(made, R_OK) == 0);
    CHECK_INT(sh(out, OUT_CAP, "%s kernels -o %s/missing/k.txt %s 2>&1", kt_cli_bin(), dir, "/nonexistent.json"), 3);
    CHECK(strstr(out, "missing/k.txt") != NULL && strstr(out, "does not exist") != NULL);
    const char *synth = getenv("KINETA_SYNTH");
    if (synth && access(synth, X_OK) == 0) {
        CHECK_INT(sh(out, OUT_CAP, "%s --size 1M -o %s/s/t/u 2>&1", synth, dir), 0);
        snprintf(made, sizeof made, "%s/s/t/u/rank-0.json", dir);
        CHECK(access(made, R_OK) == 0);
    }
    CHECK_INT(sh(out, OUT_CAP, "rm -rf %s", dir), 0);
}

/* ---- 9. --table checked before loading, and honoured in table format ---- */
TEST(cli_table_option_early_and_everywhere)
{
    NEED_BIN();
    NEED_SHARED();
    char *out = out_buf();
    /* exit 2 (usage), not 3: the missing file is never opened */
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --table nope /nonexistent.json 2>&1", kt_cli_bin()), 2);
    CHECK(strstr(out, "no table 'nope'; tables: kernels summary") != NULL);
    const char *trace = shared("traces/hta/trace_filter");
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --table summary --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strncmp(out, "== summary (1 rows)\n", 20) == 0 && !strstr(out, "== kernels"));
    CHECK_INT(sh(out, OUT_CAP, "%s breakdown --table kernel_type --format json -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"kernel_type\": [") && !strstr(out, "\"kernels\""));
    CHECK_INT(sh(out, OUT_CAP, "%s info --table steps --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strncmp(out, "== steps (", 10) == 0);
}

/* ---- 10. help, the duplicate-rank hint, seed spellings ------------------ */
TEST(cli_help_and_hints)
{
    NEED_BIN();
    NEED_SHARED();
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "%s help gaps", kt_cli_bin()), 0);
    CHECK(strncmp(out, "usage: kineta gaps ", 19) == 0);
    CHECK_INT(sh(out, OUT_CAP, "%s help nosuch 2>/dev/null", kt_cli_bin()), 2);
    CHECK_INT(sh(out, OUT_CAP, "%s --help", kt_cli_bin()), 0);
    CHECK(strstr(out, "--format table|csv|json") && strstr(out, "--rank R") && strstr(out, "--hta-compat"));
    const char *trace = shared("traces/hta/trace_filter");
    CHECK_INT(sh(out, OUT_CAP, "%s gaps --gap-sort avggap --format csv -q %s >/dev/null", kt_cli_bin(), trace), 0);
    CHECK_INT(sh(out, OUT_CAP, "%s gaps --gap-sort maxgap --format csv -q %s >/dev/null", kt_cli_bin(), trace), 0);
    const char *r0 = shared("traces/hta/trace_filter/sampled_rank-0.json.gz");
    CHECK_INT(sh(out, OUT_CAP, "%s info %s %s 2>&1 >/dev/null", kt_cli_bin(), r0, r0), 3);
    CHECK(strstr(out, "--file-ranks") != NULL && strstr(out, "kt_load_options") == NULL);
}

/* ---- 11. info summarizes steps ------------------------------------------ */
TEST(cli_info_step_summary)
{
    NEED_BIN();
    const char *synth = getenv("KINETA_SYNTH");
    if (!synth || access(synth, X_OK) != 0) { kt_test_skip("KINETA_SYNTH not set"); return; }
    char trace[128], *out = out_buf();
    snprintf(trace, sizeof trace, "/tmp/kineta-steps-%d.json", (int)getpid());
    CHECK_INT(sh(out, OUT_CAP, "%s --steps 40 -o %s >/dev/null 2>&1", synth, trace), 0);
    CHECK_INT(sh(out, OUT_CAP, "%s info --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(count_lines(out) < 20);
    CHECK(strstr(out, "  steps   cpu: 40 (#") != NULL);
    CHECK(strstr(out, "  span      ") != NULL && strstr(out, ", mean ") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s info --format table --verbose -q %s", kt_cli_bin(), trace), 0);
    CHECK(count_lines(out) > 80);
    CHECK(strstr(out, " at +") != NULL);
    char truth[160];
    snprintf(truth, sizeof truth, "%s.truth.json", trace);
    unlink(trace);
    unlink(truth);
}

/* ---- 12. tables fit the terminal, no trailing spaces -------------------- */
TEST(cli_tables_fit_the_width)
{
    NEED_BIN();
    NEED_SHARED();
    static const char *const cmds[] = { "kernels", "kernels --top 0", "breakdown", "categories", "temporal",
                                        "temporal --tracelens", "idle", "overlap", "gaps", "queue --table summary",
                                        "memcpy-bw --table summary", "launch --table short_gpu_kernels" };
    static const int widths[] = { 100, 80, 60 };
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf(), what[128];
    for (size_t w = 0; w < 3; w++)
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
            CHECK_INT(sh(out, OUT_CAP, "COLUMNS=%d %s %s --format table -q %s", widths[w], kt_cli_bin(), cmds[i], trace), 0);
            snprintf(what, sizeof what, "%s at %d", cmds[i], widths[w]);
            if (strncmp(cmds[i], "gaps", 4) && strncmp(cmds[i], "categories", 10)) check_fits(out, (size_t)widths[w], what);
            else check_fits(out, 100, what); /* histogram bars; name-heavy tables keep 24+ columns of name */
        }
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format table --verbose -q %s", kt_cli_bin(), trace), 0);
    check_fits(out, 100000, "kernels --verbose"); /* wide, but no trailing spaces */
}

/* ---- 13. units in headers, snake_case JSON keys (HTA's with --hta-compat) */
TEST(cli_units_and_json_keys)
{
    NEED_BIN();
    NEED_SHARED();
    const char *trace = shared("traces/hta/trace_filter");
    char *out = out_buf();
    CHECK_INT(sh(out, OUT_CAP, "COLUMNS=200 %s idle --table interval_stats --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "mean (us)") && strstr(out, "std (us)") && strstr(out, "max (us)"));
    CHECK_INT(sh(out, OUT_CAP, "COLUMNS=200 %s breakdown --table kernel_type --format table -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "sum (us)") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s breakdown --table kernel_type --format csv -q %s", kt_cli_bin(), trace), 0);
    CHECK(strncmp(out, "kernel_type,sum,percentage\n", 27) == 0); /* csv: HTA's headers */
    CHECK_INT(sh(out, OUT_CAP, "%s kernels --format json --top 1 -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"total_us\":") && strstr(out, "\"pct_kernel_time\":") && strstr(out, "\"std_us\":"));
    CHECK_INT(sh(out, OUT_CAP, "%s launch --table short_gpu_kernels --format json -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"cpu_duration_p25_us\":") && strstr(out, "\"pct_of_launches\":"));
    CHECK_INT(sh(out, OUT_CAP, "%s launch --table short_gpu_kernels --format json --hta-compat -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"cpu_duration_25%\":") != NULL);
    CHECK_INT(sh(out, OUT_CAP, "%s temporal --format json -q %s", kt_cli_bin(), trace), 0);
    CHECK(strstr(out, "\"idle_time_us\":") && strstr(out, "\"idle_time_pctg\":"));
}

/* ---- 14. make demo: short, no warnings about its own files -------------- */
TEST(cli_make_demo)
{
    NEED_BIN();
    if (access("Makefile", R_OK) != 0 || system("command -v make >/dev/null 2>&1") != 0) {
        kt_test_skip("no Makefile or make here");
        return;
    }
    char build[512], *out = out_buf();
    snprintf(build, sizeof build, "%s", kt_cli_bin());
    *strrchr(build, '/') = '\0';
    bool san = strstr(build, "san") != NULL;
    CHECK_INT(sh(out, OUT_CAP, "make -s demo BUILD=%s%s 2>&1", build, san ? " MODE=sanitize" : ""), 0);
    CHECK(count_lines(out) < 150);
    CHECK(strstr(out, "kineta: warning") == NULL && strstr(out, "kineta: note") == NULL);
    const char *k = strstr(out, "== kernels ("), *tb = strstr(out, "== temporal_breakdown (");
    CHECK(k && tb && k < tb && !strstr(tb, "\n== "));
    /* and ends on the page it wrote */
    const char *wrote = tb ? strstr(tb, "wrote ") : NULL;
    CHECK(wrote && strstr(wrote, "examples/report.html"));
}

/* ---- 15. a failure the command explains is said once -------------------- */
TEST(cli_explained_failure_said_once)
{
    NEED_BIN();
    char dir[128], trace[160], *out = out_buf();
    snprintf(dir, sizeof dir, "/tmp/kineta-fail-%d", (int)getpid());
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    CHECK_INT(sh(out, OUT_CAP, "mkdir -p %s && printf '%s' > %s", dir,
                 "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
                 "\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 1}}]}",
                 trace),
              0);
    /* --sqlite's directory checked before the load, as -o FILE's: the
     * missing input is never opened */
    CHECK_INT(sh(out, OUT_CAP, "%s export --sqlite %s/missing/x.db /nonexistent.json 2>&1", kt_cli_bin(), dir), 3);
    CHECK(strstr(out, "missing/x.db") && strstr(out, "does not exist") && !strstr(out, "nonexistent.json"));
    CHECK_INT(count_lines(out), 1);
    /* refused at run time: its own reason, not the generic "input unreadable" */
    CHECK_INT(sh(out, OUT_CAP, "%s export -q --sqlite /dev/null %s 2>&1", kt_cli_bin(), trace), 3);
    CHECK(strstr(out, "not a regular file") && !strstr(out, "unreadable"));
    CHECK_INT(count_lines(out), 1);
    CHECK_INT(sh(out, OUT_CAP, "%s critical-path -q %s 2>&1 >/dev/null", kt_cli_bin(), trace), 1);
    CHECK(strstr(out, "no CPU ops in the trace") && !strstr(out, "analysis error"));
    CHECK_INT(count_lines(out), 1);
    /* the same when ranks are mapped on worker threads (--stream-ranks) */
    for (int streamed = 0; streamed < 2; streamed++) {
        CHECK_INT(sh(out, OUT_CAP, "%s categories -q %s--rules %s/none.rules %s 2>&1 >/dev/null", kt_cli_bin(),
                     streamed ? "--stream-ranks " : "", dir, trace),
                  2);
        CHECK(strstr(out, "none.rules") && !strstr(out, "usage error"));
        CHECK_INT(count_lines(out), 1);
    }
    /* a failure the command does not explain still gets the generic line */
    CHECK_INT(sh(out, OUT_CAP, "%s info -q %s/none.json 2>&1", kt_cli_bin(), dir), 3);
    CHECK(out[0] != '\0');
    CHECK_INT(sh(out, OUT_CAP, "rm -rf %s", dir), 0);
}
