/* test_us_to_ns.c — the loader's inline µs → ns conversion (scan_inline.h:
 * kt_us_to_ns) gives what the general decimal path (parse_json.c:
 * kt_parse_us_as_ns) gives: the same ns, rounding and overflow flags and
 * end, for the forms it takes inline (up to 16 integer digits — absolute
 * µs since 1970 have 16 — and 1-3 decimals) and the ones it hands over. */
#include "load/load_internal.h"
#include "test.h"

#include <string.h>

/* text in a window as the loader has it: zero bytes after it; with room
 * (the inline path needs 26 readable bytes) or cut right after it.      */
static void check_same(const char *text, bool room)
{
    char buf[128] = { 0 };
    size_t n = strlen(text);
    memcpy(buf, text, n);
    const char *end = room ? buf + 64 : buf + n;
    int64_t ns_inline = -1, ns_general = -1;
    bool r1 = false, r2 = false, o1 = false, o2 = false;
    const char *e1 = kt_us_to_ns(buf, end, &ns_inline, &r1, &o1);
    const char *e2 = kt_parse_us_as_ns(buf, end, &ns_general, &r2, &o2);
    CHECK(e1 == e2);
    if (e1 && e2) {
        CHECK_INT(r1, r2);
        CHECK_INT(o1, o2);
        if (!o1 && !o2) CHECK_INT(ns_inline, ns_general);
    }
}

TEST(us_to_ns_inline_equals_general)
{
    static const char *const numbers[] = {
        "0", "7", "1700008032422.732", "1669783687389324", "1669783687389324,",
        "1669783687389324.5}", "1669783687389324.125", "1669783687389324.1234", /* 4 decimals: general */
        "9223372036854774", "9223372036854775", "9223372036854775.807", "9223372036854776",
        "9999999999999999", "12345678901234567", "1669783687389324e0", "1669783687389324.5E1",
        "-5", "-1669783687389324", "123.", ".5", "00012", "1e400", "18446744073709551616",
    };
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        check_same(numbers[i], true);
        check_same(numbers[i], false);
    }
}

/* By hand: the values the inline path must give. */
TEST(us_to_ns_sixteen_digit_microseconds)
{
    char buf[64] = "1669783687389324.5, ";
    int64_t ns = 0;
    bool rounded = true, overflow = true;
    const char *end = kt_us_to_ns(buf, buf + sizeof buf, &ns, &rounded, &overflow);
    CHECK(end == buf + 18);
    CHECK_INT(ns, 1669783687389324500);
    CHECK(!rounded && !overflow);
    char big[64] = "9223372036854776}"; /* * 1000 > INT64_MAX */
    kt_us_to_ns(big, big + sizeof big, &ns, &rounded, &overflow);
    CHECK(overflow);
}
