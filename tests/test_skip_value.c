/*
 * test_skip_value.c — kt_skip_value, the scanner that steps over the values
 * the loader does not keep (shape lists, call stacks): where each value
 * ends, the string flags found inside it, and what it says when the data
 * ends first.  Values cross 16-byte blocks, hide brackets and quotes in
 * strings, and have structural bytes after the end they are given.
 */
#include "test.h"

#include "load/load_internal.h"

#include <stdlib.h>

typedef struct skip_case {
    const char *text;   /* the value, then what follows it in the window */
    size_t end;         /* the scanner's end (0: the whole text)          */
    bool eof;
    kt_scan_res want;
    size_t value_len;   /* for KT_SCAN_OK: where the value ends           */
    unsigned flags;
} skip_case;

/* Runs one case on a copy followed by KT_WIN_PAD zero bytes, as in a window. */
static void check_case(const skip_case *c)
{
    size_t n = strlen(c->text);
    char *buf = calloc(1, n + KT_WIN_PAD);
    CHECK(buf != NULL);
    if (!buf) return;
    memcpy(buf, c->text, n);
    const char *next = NULL;
    unsigned flags = 99;
    kt_scan_res r = kt_skip_value(buf, buf + (c->end ? c->end : n), c->eof, &next, &flags);
    if (r != c->want) kt_test_fail(__FILE__, __LINE__, "%s: result %d, want %d", c->text, r, c->want);
    if (r == KT_SCAN_OK && c->want == KT_SCAN_OK) {
        if ((size_t)(next - buf) != c->value_len)
            kt_test_fail(__FILE__, __LINE__, "%s: ends at %zu, want %zu", c->text, (size_t)(next - buf),
                         c->value_len);
        if (flags != c->flags) kt_test_fail(__FILE__, __LINE__, "%s: flags %u, want %u", c->text, flags, c->flags);
    }
    free(buf);
}

TEST(skip_value_shape_lists_end_at_their_bracket)
{
    static const skip_case cases[] = {
        { "[[1, 77, 768], [768, 768], [768]], \"Ev Idx\": 1}", 0, false, KT_SCAN_OK, 33, 0 },
        { "[[]], \"Ev Idx\": 1}", 0, false, KT_SCAN_OK, 4, 0 },
        { "[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], [17]],", 0, false, KT_SCAN_OK, 63, 0 },
        { "{\"a\": {\"b\": {\"c\": []}}, \"d\": [{}, {}]}}", 0, false, KT_SCAN_OK, 38, 0 },
        { "[\"float\", \"c10::BFloat16\", \"\", \"a rather long dtype name here\"]}", 0, false, KT_SCAN_OK, 63, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i]);
}

TEST(skip_value_brackets_and_quotes_inside_strings)
{
    static const skip_case cases[] = {
        /* brackets in strings do not count */
        { "[\"a]b\", \"[[\", \"}\"], 1", 0, false, KT_SCAN_OK, 18, 0 },
        /* an escaped quote stays inside its string */
        { "[\"a\\\"]\", 1],", 0, false, KT_SCAN_OK, 11, KT_STR_ESC },
        /* a quote not followed by , : } ] is taken as part of the string */
        { "[\"say \"hi\" now\"], ", 0, false, KT_SCAN_OK, 16, KT_STR_QUOTE },
        /* a raw tab and a non-ASCII byte are flagged, not refused */
        { "[\"a\tb\", \"\xc3\xa9t\xc3\xa9\"]}", 0, false, KT_SCAN_OK, 16, KT_STR_CTRL | KT_STR_HIGH },
        /* a string starting right before a 16-byte boundary */
        { "[1, 2, 3, 4, 5, \"0123456789abcdef[]\"], ", 0, false, KT_SCAN_OK, 37, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i]);
}

TEST(skip_value_stops_at_the_end_it_is_given)
{
    static const skip_case cases[] = {
        { "[[1, 2], [3", 0, false, KT_SCAN_MORE, 0, 0 },
        { "[[1, 2], [3", 0, true, KT_SCAN_TRUNC, 0, 0 },
        /* the closing brackets lie past the end: not seen */
        { "[1, [2]]]", 6, true, KT_SCAN_TRUNC, 0, 0 },
        { "[1, [2]]]", 7, true, KT_SCAN_TRUNC, 0, 0 },
        { "[1, [2]]]", 8, true, KT_SCAN_OK, 8, 0 },
        /* a string cut by the end */
        { "[\"abc", 0, false, KT_SCAN_MORE, 0, 0 },
        { "[\"abc\", \"0123456789abcdefghij", 0, true, KT_SCAN_TRUNC, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(&cases[i]);
}
