/* test_csv_digits.c — `--format csv` carries every digit, as `--format json`
 * does: for every command, on shared traces, every table printed both ways
 * and both parsed back; every cell of the CSV equals the JSON's (numbers as
 * the same double, text the same) and the table's own value.  A CSV that
 * rounded to a unit's decimals (GFLOPS 0.000009 for 8.944e-06) fails here. */
#include "oracle.h"
#include "test.h"
#include "table/table.h"
#include "../programs/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const traces[] = {
    "traces/hta/trace_filter/sampled_rank-0.json.gz",
    "traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "traces/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
    "traces/legacy_tbplugin_resnet50.pt.trace.json.gz",
};

static char *render(void (*fn)(const kt_table *, FILE *), const kt_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fn(t, f);
    fclose(f);
    return buf;
}

/* The next CSV field (RFC 4180) from *p into out; false at the end of the
 * row (*p then past its '\n').                                            */
static bool csv_field(const char **p, char *out, size_t cap, bool *last)
{
    const char *s = *p;
    size_t n = 0;
    if (*s == '"') {
        for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
            if (*s == '"') s++;
            if (n + 1 < cap) out[n++] = *s;
        }
        if (*s == '"') s++;
    } else {
        for (; *s && *s != ',' && *s != '\n'; s++)
            if (n + 1 < cap) out[n++] = *s;
    }
    out[n] = '\0';
    *last = *s != ',';
    *p = *s ? s + 1 : s;
    return true;
}

/* The JSON string at s (its '"') unescaped into out; returns the byte
 * after its closing quote.                                               */
static const char *json_string(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (s++; *s && *s != '"'; s++) {
        char c = *s;
        if (c == '\\') {
            c = *++s;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c == 'u') {
                unsigned v = 0;
                if (sscanf(s + 1, "%4x", &v) == 1) s += 4;
                c = (char)v;
            }
        }
        if (n + 1 < cap) out[n++] = c;
    }
    out[n] = '\0';
    return *s ? s + 1 : s;
}

/* The next member's value of a row object (*p before its key's quote):
 * a string unescaped, a number or null as written; *p past it.          */
static void json_value(const char **p, char *out, size_t cap)
{
    const char *s = strchr(*p, '"');
    if (!s) { out[0] = '\0'; return; }
    s = json_string(s, out, cap); /* the key */
    if (*s == ':') s++;
    if (*s == '"') {
        *p = json_string(s, out, cap);
        return;
    }
    size_t n = 0;
    for (; *s && *s != ',' && *s != '}'; s++)
        if (n + 1 < cap) out[n++] = *s;
    out[n] = '\0';
    *p = s;
}

static double table_num(const kt_table *t, size_t r, size_t c)
{
    return kt_table_col_type(t, c) == KT_COL_INT ? (double)kt_table_int(t, r, c) : kt_table_float(t, r, c);
}

/* One cell: csv and json text against each other and the table's value. */
static bool same_cell(const kt_table *t, size_t r, size_t c, const char *csv, const char *json)
{
    if (kt_table_is_null(t, r, c)) return !*csv && !strcmp(json, "null");
    if (kt_table_col_type(t, c) == KT_COL_STR)
        return !strcmp(csv, kt_table_str(t, r, c)) && !strcmp(json, kt_table_str(t, r, c));
    double v = table_num(t, r, c), a = strtod(csv, NULL);
    if (!isfinite(v)) return a == v && !strcmp(json, "null"); /* json has no inf */
    return a == v && strtod(json, NULL) == v;
}

/* Every cell of t's csv equals its json's; returns the cells compared. */
static size_t compare_table(const char *what, const kt_table *t)
{
    char *csv = render(print_table_csv, t), *json = render(print_table_json, t);
    size_t cells = 0, bad = 0;
    if (!csv || !json) {
        kt_test_fail(__FILE__, __LINE__, "%s: not rendered", what);
        goto out;
    }
    const char *p = strchr(csv, '\n'), *q = json;
    p = p ? p + 1 : csv + strlen(csv);
    static char a[1 << 16], b[1 << 16];
    for (size_t r = 0; r < kt_table_nrows(t) && bad < 5; r++) {
        q = strchr(q, '{');
        if (!q) { kt_test_fail(__FILE__, __LINE__, "%s: json ends at row %zu", what, r); break; }
        bool last = false;
        for (size_t c = 0; c < kt_table_ncols(t); c++, cells++) {
            csv_field(&p, a, sizeof a, &last);
            json_value(&q, b, sizeof b);
            if (!same_cell(t, r, c, a, b) && bad++ < 5)
                kt_test_fail(__FILE__, __LINE__, "%s row %zu %s: csv '%s', json '%s'", what, r,
                             kt_table_col_name(t, c), a, b);
        }
        if (!last && bad++ < 5) kt_test_fail(__FILE__, __LINE__, "%s row %zu: csv has more cells", what, r);
    }
out:
    free(csv);
    free(json);
    return cells;
}

TEST(csv_equals_json_for_every_command_and_table)
{
    NEED_SHARED();
    size_t ran = 0, tables = 0, cells = 0;
    for (size_t k = 0; k < sizeof traces / sizeof traces[0]; k++) {
        const kt_trace *t = fx_shared_trace(traces[k], false);
        if (!t) continue;
        for (size_t i = 0; i < kt_cli_ncommands(); i++) {
            const char *name = kt_cli_command_name(i);
            kt_tables *ts = NULL;
            const kt_trace *test = kt_cli_command_is_pair(i) ? t : NULL;
            /* their tables without the overlay file; export, counters and
             * report write files (export's and counters' -o is required):
             * not run here                                               */
            bool overlay = !strcmp(name, "patterns") || !strcmp(name, "critical-path");
            const char *opt[] = { "no-overlay" }, *val[] = { NULL };
            if (!strcmp(name, "export") || !strcmp(name, "counters") || !strcmp(name, "report")) continue;
            CHECK_INT(kt_cli_run(t, test, name, opt, val, overlay, NULL, 0, NULL, 1, 0, &ts, NULL, 0), KT_OK);
            if (!ts) continue;
            ran++;
            for (size_t j = 0; j < kt_tables_count(ts); j++) {
                const kt_table *tb = kt_tables_get(ts, j);
                char what[256];
                snprintf(what, sizeof what, "%s: %s %s", traces[k], name, kt_table_name(tb));
                cells += compare_table(what, tb);
                tables++;
            }
            kt_tables_free(ts);
        }
    }
    printf("  %zu command runs, %zu tables, %zu cells\n", ran, tables, cells);
    CHECK(cells > 100000);
}

/* The case the issue names: TraceLens's GFLOPS 8.944e-06 read back from
 * `perf --tracelens`'s CSV, not 0.000009.                               */
TEST(csv_keeps_small_values)
{
    kt_table *t = kt_table_new("demo");
    kt_table_add_col(t, "GFLOPS", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "TFLOPS/s", KT_COL_FLOAT, 3);
    kt_table_add_row(t);
    kt_table_set_float(t, 0, 8.944e-06);
    kt_table_set_float(t, 1, 0.0002156601676556466);
    char *s = render(print_table_csv, t);
    CHECK_STR(s, "GFLOPS,TFLOPS/s\n8.944e-06,0.0002156601676556466\n");
    free(s);
    kt_table_free(t);
}
