/*
 * test_cli_labels.c — the printer's pieces without a trace: distinct short
 * names (programs/short_names.c), column units, headers and JSON keys
 * (programs/column_labels.c), and text-table layout (programs/text_table.c).
 */
#include "test.h"
#include "table/table.h"
#include "../programs/cli.h"
#include "../programs/column_labels.h"
#include "../programs/short_names.h"

#include <stdlib.h>
#include <unistd.h>

static char **strs(const char *const *v, size_t n)
{
    char **s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++) s[i] = strdup(v[i]);
    return s;
}

static void free_strs(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++) free(s[i]);
    free(s);
}

/* Three ROCm GEMMs equal but for the middle: a plain head...tail cut shows
 * one name three times.                                                    */
TEST(short_names_differ_where_names_differ)
{
    static const char *const v[] = {
        "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
        "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT128x128x32_MI32x32x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
        "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x64x16_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
        "short_kernel",
        "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
    };
    for (size_t w = 12; w <= 80; w += 17) {
        char **s = strs(v, 5);
        CHECK(shorten_distinct(s, 5, w));
        for (size_t i = 0; i < 5; i++) CHECK(text_width(s[i]) <= w);
        CHECK(strcmp(s[0], s[1]) && strcmp(s[0], s[2]) && strcmp(s[1], s[2]));
        CHECK_STR(s[0], s[4]); /* one kernel, one form */
        CHECK_STR(s[3], "short_kernel");
        if (w >= 40) CHECK(strncmp(s[0], "Cijk_Alik_", 10) == 0 && strstr(s[0], "WG64_4_1"));
        free_strs(s, 5);
    }
}

TEST(short_names_transitions_keep_the_arrow)
{
    static const char *const v[] = {
        "void very_long_kernel_name_number_one<float, 128, 4>(float const*, float*, int) \xe2\x86\x92 Memcpy HtoD (Pinned -> Device)",
        "void very_long_kernel_name_number_one<float, 128, 8>(float const*, float*, int) \xe2\x86\x92 Memcpy HtoD (Pageable -> Device)",
    };
    char **s = strs(v, 2);
    CHECK(shorten_distinct(s, 2, 30));
    for (size_t i = 0; i < 2; i++) {
        CHECK(text_width(s[i]) <= 30);
        CHECK(strstr(s[i], " \xe2\x86\x92 ") != NULL);
    }
    CHECK(strcmp(s[0], s[1]) != 0);
    free_strs(s, 2);
}

static kt_table *unit_table(void)
{
    kt_table *t = kt_table_new("u");
    kt_table_add_col(t, "total (us)", KT_COL_FLOAT, 3);
    kt_table_set_unit(t, kt_table_add_col(t, "sum", KT_COL_FLOAT, -1), "us");
    kt_table_add_col(t, "% launches", KT_COL_FLOAT, 2);
    kt_table_set_unit(t, kt_table_add_col(t, "cpu_duration_25%", KT_COL_FLOAT, -1), "us");
    kt_table_add_col(t, "idle_time(us)", KT_COL_FLOAT, -1);
    kt_table_add_col(t, "total_time_ms", KT_COL_FLOAT, 6);
    kt_table_add_col(t, "#", KT_COL_INT, 0);
    kt_table_add_col(t, "queue_length_mean", KT_COL_FLOAT, -1);
    kt_table_add_row(t);
    kt_table_set_float(t, 0, 1.5);
    kt_table_set_float(t, 1, 1680.9302500000001);
    kt_table_set_float(t, 2, 7.1428);
    kt_table_set_float(t, 3, 0.0055555555555555558);
    kt_table_set_float(t, 4, 20);
    kt_table_set_float(t, 5, 564.205);
    kt_table_set_int(t, 6, 1);
    kt_table_set_float(t, 7, 25.458174904942965);
    return t;
}

TEST(column_labels_units_headers_keys)
{
    kt_table *t = unit_table();
    static const char *const units[] = { "us", "us", "%", "us", "us", "ms", NULL, NULL };
    static const char *const heads[] = { "total (us)", "sum (us)", "% launches", "cpu_duration_25% (us)",
                                         "idle_time(us)", "total_time_ms", "#", "queue_length_mean" };
    static const char *const keys[] = { "total_us", "sum_us", "pct_launches", "cpu_duration_p25_us",
                                        "idle_time_us", "total_time_ms", "n", "queue_length_mean" };
    char buf[128];
    for (size_t c = 0; c < 8; c++) {
        const char *u = column_unit(t, c);
        CHECK((u == NULL) == (units[c] == NULL));
        if (u && units[c]) CHECK_STR(u, units[c]);
        column_header(t, c, buf, sizeof buf);
        CHECK_STR(buf, heads[c]);
        column_json_key(t, c, false, buf, sizeof buf);
        CHECK_STR(buf, keys[c]);
        column_json_key(t, c, true, buf, sizeof buf);
        CHECK_STR(buf, kt_table_col_name(t, c));
    }
    kt_table_free(t);
}

static char *render_csv(const kt_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    print_table_csv(t, f);
    if (fclose(f) == 0) return buf;
    free(buf);
    return NULL;
}

/* In text, 1680.9302500000001 µs -> 1680.93; 0.0055555555555555558 µs ->
 * 0.006; ms columns get 3 decimals even when the table asks for 6; unknown
 * units at most 6.  CSV has every digit.                                   */
TEST(column_precision_fits_the_unit)
{
    kt_table *t = unit_table();
    char text[256] = "";
    for (size_t c = 0; c < kt_table_ncols(t); c++) {
        char *cell = cell_display(t, 0, c, unit_decimals(column_unit(t, c)));
        if (c) strcat(text, ",");
        strncat(text, cell ? cell : "?", sizeof text - strlen(text) - 1);
        free(cell);
    }
    CHECK_STR(text, "1.500,1680.93,7.14,0.006,20,564.205,1,25.458175");
    char *s = render_csv(t);
    const char *nl = s ? strchr(s, '\n') : NULL;
    CHECK_STR(nl ? nl + 1 : NULL, "1.5,1680.9302500000001,7.1428,0.005555555555555556,20,564.205,1,25.458174904942965\n");
    free(s);
    kt_table_free(t);
}

static size_t count_newlines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static char *render_text(const kt_table *t, size_t width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    text_style st = { .width = width };
    print_table_text_styled(t, &st, f);
    fclose(f);
    return buf;
}

/* A wide table in 40 columns: headers on two lines, then a second block
 * repeating the name column; no line longer than 40 or ending in a space. */
TEST(text_table_fits_width_in_blocks)
{
    kt_table *t = kt_table_new("wide");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    for (int c = 0; c < 4; c++) kt_table_add_col(t, c % 2 ? "max (us)" : "total (us)", KT_COL_FLOAT, 3);
    kt_table_add_row(t);
    kt_table_set_str(t, 0, "kernel_a");
    for (int c = 1; c <= 4; c++) kt_table_set_float(t, (size_t)c, 1000.125 * c); /* not whole: decimals kept */
    char *s = render_text(t, 40);
    CHECK_STR(s, "== wide (1 rows)\n"
                 "             total       max     total\n"
                 "name          (us)      (us)      (us)\n"
                 "kernel_a  1000.125  2000.250  3000.375\n"
                 "\n"
                 "               max\n"
                 "name          (us)\n"
                 "kernel_a  4000.500\n");
    free(s);
    s = render_text(t, 20); /* narrower than the name and one number */
    CHECK(strstr(s, "kernel_a  1000.125\n") && strstr(s, "kernel_a  4000.500\n"));
    free(s);
    s = render_text(t, 0);
    CHECK_STR(s, "== wide (1 rows)\n"
                 "name      total (us)  max (us)  total (us)  max (us)\n"
                 "kernel_a    1000.125  2000.250    3000.375  4000.500\n");
    free(s);
    kt_table_free(t);
    t = kt_table_new("pair"); /* a number, then a name wider than the width */
    kt_table_add_col(t, "#", KT_COL_INT, 0);
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    kt_table_add_row(t);
    kt_table_set_int(t, 0, 1);
    kt_table_set_str(t, 1, "a_kernel_name_much_wider_than_the_twenty_columns_given");
    s = render_text(t, 20);
    CHECK(strstr(s, "a_kernel_n") != NULL && strstr(s, "\n1  ") != NULL);
    free(s);
    kt_table_free(t);
}

/* Damaged or odd tables never break the layout: no rows, no columns, a
 * newline and a tab inside a name, NaN and infinities, a header wider than
 * the width, a nonsense COLUMNS.                                            */
TEST(text_table_odd_inputs)
{
    kt_table *t = kt_table_new("empty");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    kt_table_add_col(t, "total (us)", KT_COL_FLOAT, 3);
    char *s = render_text(t, 40);
    CHECK_STR(s, "== empty (0 rows)\nname  total (us)\n");
    free(s);
    kt_table_free(t);

    t = kt_table_new("nocols");
    s = render_text(t, 40);
    CHECK_STR(s, "== nocols (0 rows)\n\n");
    free(s);
    kt_table_free(t);

    t = kt_table_new("odd");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    kt_table_add_col(t, "a header much wider than the width we have", KT_COL_FLOAT, -1);
    kt_table_add_row(t);
    kt_table_set_str(t, 0, "two\nlines\tand a tab");
    kt_table_set_float(t, 1, NAN);
    kt_table_add_row(t);
    kt_table_set_str(t, 0, "inf");
    kt_table_set_float(t, 1, INFINITY);
    s = render_text(t, 20);
    CHECK(strstr(s, "two lines and a tab") != NULL);
    CHECK(strstr(s, "inf  ") != NULL && strstr(s, "  inf\n") != NULL);
    for (const char *p = s; (p = strchr(p, '\n')); p++) CHECK(p == s || p[-1] != ' ');
    CHECK_INT(count_newlines(s), 5); /* title, 2 header lines, 2 rows */
    free(s);
    kt_table_free(t);

    setenv("COLUMNS", "not-a-number", 1);
    CHECK_INT(terminal_width(stdout), isatty(fileno(stdout)) ? terminal_width(stdout) : 100);
    setenv("COLUMNS", "7", 1); /* too narrow to mean it */
    CHECK(terminal_width(stdout) >= 20);
    setenv("COLUMNS", "132", 1);
    CHECK_INT(terminal_width(stdout), 132);
    unsetenv("COLUMNS");
}

/* Multi-byte characters are cut whole: widths in code points, no broken
 * UTF-8 sequence in a short form.                                          */
TEST(short_names_cut_utf8_whole)
{
    static const char *const v[] = {
        "\xce\xbc\xce\xbc\xce\xbc_kernel_\xe2\x86\x92\xe2\x86\x92_middle_one_\xc2\xb5\xc2\xb5\xc2\xb5_tail_end",
        "\xce\xbc\xce\xbc\xce\xbc_kernel_\xe2\x86\x92\xe2\x86\x92_middle_two_\xc2\xb5\xc2\xb5\xc2\xb5_tail_end",
    };
    char **s = strs(v, 2);
    CHECK(shorten_distinct(s, 2, 20));
    for (size_t i = 0; i < 2; i++) {
        CHECK(text_width(s[i]) <= 20);
        for (const unsigned char *p = (const unsigned char *)s[i]; *p; p++) {
            int follow = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc0 ? 1 : 0;
            CHECK(*p < 0x80 || *p >= 0xc0); /* never starts inside a character */
            for (int k = 1; k <= follow; k++) CHECK((p[k] & 0xc0) == 0x80);
            p += follow;
        }
    }
    CHECK(strcmp(s[0], s[1]) != 0);
    free_strs(s, 2);
}
