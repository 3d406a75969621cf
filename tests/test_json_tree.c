/*
 * test_json_tree.c — small JSON documents read whole (load/json_tree.h):
 * numbers and strings as the trace scanner reads them, exact integers, the
 * same answer under a locale whose radix is ',', and what is refused.
 */
#include "fixture.h"
#include "test.h"
#include "load/json_tree.h"

#include <locale.h>
#include <stdint.h>

static const char doc[] = "{\"a\": [9007199254740993, -12, 1.5, 2.5e-3, 12345678901234567890], \"s\": \"x\\u00e9\"}";

static void check_numbers(void)
{
    kt_jtree t = { 0 };
    const char *err = NULL;
    CHECK(kt_jtree_parse(&t, doc, strlen(doc), &err));
    if (err) return;
    const kt_jnode *a = kt_jobj_get(&t, &t.n[0], "a");
    CHECK(a && a->nkids == 5);
    const kt_jnode *v0 = kt_jchild(&t, a, 0), *v1 = kt_jchild(&t, a, 1), *v2 = kt_jchild(&t, a, 2),
                   *v3 = kt_jchild(&t, a, 3), *v4 = kt_jchild(&t, a, 4);
    CHECK(v0->is_int && v0->i == INT64_C(9007199254740993)); /* beyond a double's 53 bits */
    CHECK(v1->is_int && v1->i == -12 && v1->d == -12.0);
    CHECK(!v2->is_int && v2->d == 1.5);
    CHECK(!v3->is_int && v3->d == 2.5e-3);
    CHECK(!v4->is_int && v4->i == INT64_MAX && v4->d == 12345678901234567890.0);
    CHECK_STR(kt_jobj_get(&t, &t.n[0], "s")->s, "x\xc3\xa9");
    kt_jtree_free(&t);
}

TEST(json_tree_numbers_are_exact)
{
    check_numbers();
}

/* strtod read "1.5" as 1 under de_DE and refused the rest of it: a device
 * spec or an op's concrete inputs then failed to parse.                   */
TEST(json_tree_numbers_ignore_the_locale_radix)
{
    if (!fx_comma_locale(LC_NUMERIC)) { kt_test_skip("no locale with a comma radix installed"); return; }
    check_numbers();
    setlocale(LC_NUMERIC, "C");
}

TEST(json_tree_refuses_what_is_not_json)
{
    const char *bad[] = { "[1,]", "{\"a\": 1,}", "{\"a\" 1}", "[1e]", "[-]", "[1] x", "[nul]", "[truex]",
                          "[1}", "{\"a\": 1]", "[1 2]", "{\"a\": [1, {\"b\": }]}", "[\"open]", "", "  " };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kt_jtree t = { 0 };
        const char *err = NULL;
        CHECK(!kt_jtree_parse(&t, bad[i], strlen(bad[i]), &err));
        CHECK(err != NULL);
        kt_jtree_free(&t);
    }
}

/* Strings as the trace loader reads them (one scanner for both): an
 * unknown escape kept as written, a raw control character kept, a quote
 * not followed by a separator taken as part of the string, invalid UTF-8
 * replaced by U+FFFD.                                                    */
TEST(json_tree_reads_strings_as_the_loader_does)
{
    static const char doc_s[] = "{\"a\": \"x\\qy\", \"b\": \"t\tab\", \"c\": \"say \"hi\" now\", \"d\": \"\xff\", "
                                "\"k\\u00e9y\": [true, false, null]}";
    kt_jtree t = { 0 };
    const char *err = NULL;
    CHECK(kt_jtree_parse(&t, doc_s, strlen(doc_s), &err));
    if (err) return;
    const kt_jnode *root = &t.n[0];
    CHECK_STR(kt_jobj_get(&t, root, "a")->s, "x\\qy");
    CHECK_STR(kt_jobj_get(&t, root, "b")->s, "t\tab");
    CHECK_STR(kt_jobj_get(&t, root, "c")->s, "say \"hi\" now");
    CHECK_STR(kt_jobj_get(&t, root, "d")->s, "\xef\xbf\xbd");
    const kt_jnode *l = kt_jobj_get(&t, root, "k\xc3\xa9y");
    CHECK(l && l->nkids == 3);
    if (l) {
        CHECK(kt_jchild(&t, l, 0)->type == KT_J_BOOL && kt_jchild(&t, l, 0)->b);
        CHECK(kt_jchild(&t, l, 1)->type == KT_J_BOOL && !kt_jchild(&t, l, 1)->b);
        CHECK(kt_jchild(&t, l, 2)->type == KT_J_NULL);
        CHECK_INT((int64_t)kt_jchild(&t, l, 2)->off, (int64_t)(strstr(doc_s, "null") - doc_s));
    }
    kt_jtree_free(&t);
}
