/* test_event_spans.c — the 64-byte block scanner that finds each event of
 * traceEvents for the overlay writers: hand cases (brackets and escaped
 * quotes inside strings, backslash runs, values that are not objects,
 * damaged arrays) and random arrays whose strings, escapes and nesting
 * cross block boundaries, against a byte-at-a-time reference, walked whole
 * and in random pieces; the start of
 * the object open at a byte, read from the previous object's last byte or
 * from the array's start, against the same reference.                    */
#include "output/event_spans.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference: one byte at a time, strings skipped, depth counted. */
static bool spans_bytewise(const char *t, size_t open, size_t close, kt_spans *out)
{
    out->n = 0;
    int depth = 1;
    size_t obj = 0;
    for (size_t i = open + 1; i < close; i++) {
        char ch = t[i];
        if (ch == '"') {
            for (i++; i < close && t[i] != '"'; i++) i += t[i] == '\\';
            if (i >= close) return false;
        } else if (ch == '{' || ch == '[') {
            if (depth == 1 && ch == '{') obj = i;
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (--depth < 1) return false;
            if (depth == 1 && ch == '}') {
                if (out->n == out->cap) {
                    out->cap = out->cap ? 2 * out->cap : 64;
                    out->s = realloc(out->s, out->cap * sizeof *out->s);
                }
                out->s[out->n++] = (kt_span){ obj, i + 1 };
            }
        }
    }
    return depth == 1;
}

/* kt_object_start_before at bytes of span k (every 5th, and the last):
 * its start where the byte lies outside strings directly inside it
 * (depth 2), else SIZE_MAX; read from the previous span's '}' (depth 2)
 * or, for the first, from just after the '['.                          */
static void check_starts(const char *t, size_t len, size_t open, const kt_spans *v, size_t k)
{
    kt_span s = v->s[k];
    size_t from = k ? v->s[k - 1].end - 1 : open + 1;
    int from_depth = k ? 2 : 1;
    int depth = 2;
    bool in_string = false;
    for (size_t i = s.start + 1; i < s.end; i++) {
        char ch = t[i];
        bool opening = !in_string && ch == '"', closing = in_string && ch == '"';
        bool inside = (in_string && !closing) || opening; /* the walker's string bit */
        if ((i - s.start) % 5 == 0 || i == s.end - 1) {
            size_t want = !inside && depth == 2 ? s.start : SIZE_MAX;
            for (kt_spans_simd simd = KT_SPANS_PORTABLE; simd <= KT_SPANS_AVX2; simd++)
                if (kt_spans_simd_available(simd))
                    CHECK_INT(kt_object_start_before_using(simd, t, len, from, i, from_depth), want);
        }
        if (in_string && ch == '\\') {
            i++; /* the escaped byte: inside too, never a quote that ends */
            continue;
        }
        if (opening || closing) in_string = opening;
        else if (!in_string && (ch == '{' || ch == '[')) depth++;
        else if (!in_string && (ch == '}' || ch == ']')) depth--;
    }
}

/* The walk in pieces of 1 to 300 bytes, the list emptied after each as
 * an overlay writer does: the spans of all pieces, in order, into all. */
static bool walk_in_pieces(kt_spans_simd simd, const char *t, size_t len, size_t open, size_t close, unsigned seed,
                           kt_spans *all)
{
    kt_spans piece = { 0 };
    kt_spans_walk w;
    all->n = 0;
    bool started = kt_spans_walk_start_using(simd, &w, t, len, open, close, &piece);
    while (started && !w.done) {
        kt_spans_walk_on(&w, w.at + 1 + (size_t)rand_r(&seed) % 300);
        if (!piece.n) continue;
        CHECK(kt_spans_reserve(all, all->n + piece.n));
        memcpy(all->s + all->n, piece.s, piece.n * sizeof *piece.s);
        all->n += piece.n;
        piece.n = 0;
    }
    kt_spans_free(&piece);
    return started && kt_spans_walk_ok(&w);
}

static void check_same_spans(const kt_spans *got, const kt_spans *want)
{
    CHECK_INT(got->n, want->n);
    for (size_t k = 0; k < got->n && k < want->n; k++) {
        CHECK_INT(got->s[k].start, want->s[k].start);
        CHECK_INT(got->s[k].end, want->s[k].end);
    }
}

/* Every block loop this CPU can run, whole and in pieces, against the
 * reference. */
static void check_text(const char *t, size_t close)
{
    size_t len = strlen(t);
    size_t open = (size_t)(strchr(t, '[') - t);
    kt_spans want = { 0 };
    bool want_ok = spans_bytewise(t, open, close, &want);
    for (kt_spans_simd simd = KT_SPANS_PORTABLE; simd <= KT_SPANS_AVX2; simd++) {
        if (!kt_spans_simd_available(simd)) continue;
        kt_spans got = { 0 }, pieces = { 0 };
        bool ok = kt_find_event_spans_using(simd, t, len, open, close, &got);
        CHECK_INT(ok, want_ok);
        if (ok && want_ok) check_same_spans(&got, &want);
        ok = walk_in_pieces(simd, t, len, open, close, (unsigned)close, &pieces);
        CHECK_INT(ok, want_ok);
        if (ok && want_ok) check_same_spans(&pieces, &want);
        kt_spans_free(&got);
        kt_spans_free(&pieces);
    }
    for (size_t k = 0; want_ok && k < want.n; k++) check_starts(t, len, open, &want, k);
    kt_spans_free(&want);
}

static bool span_is(const char *t, kt_span s, const char *want)
{
    return s.end - s.start == strlen(want) && !memcmp(t + s.start, want, s.end - s.start);
}

/* The portable loop always runs; on x86-64 CI hosts (AVX2 since 2013)
 * the AVX2 one must be taken, or the random test covers one loop only.  */
TEST(event_spans_avx2_loop_on_x86_64)
{
    CHECK(kt_spans_simd_available(KT_SPANS_PORTABLE));
#if defined(__x86_64__)
    __builtin_cpu_init();
    CHECK_INT(kt_spans_simd_available(KT_SPANS_AVX2), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul"));
#endif
}

TEST(event_spans_hand_cases)
{
    const char *t = "{\"traceEvents\": [ {\"a\": \"x}]\\\"{\"}, 1, \"s{\", {\"b\": [ {\"c\":1} ]},\n"
                    "{\"d\":\"\\\\\"} ], \"x\": \"]\"}";
    size_t open = 16, close = (size_t)(strstr(t, "} ],") - t) + 2;
    kt_spans v = { 0 };
    CHECK(kt_find_event_spans(t, strlen(t), open, close, &v));
    CHECK_INT(v.n, 3);
    CHECK_INT(v.s[0].start, 18);
    CHECK(span_is(t, v.s[0], "{\"a\": \"x}]\\\"{\"}"));
    CHECK(span_is(t, v.s[1], "{\"b\": [ {\"c\":1} ]}"));
    CHECK(span_is(t, v.s[2], "{\"d\":\"\\\\\"}"));
    /* damaged: one brace too many closes, a '[' that is not at open, a ']'
     * inside a string taken for the end */
    CHECK(!kt_find_event_spans("[{}}, {}]", 9, 0, 8, &v));
    CHECK(!kt_find_event_spans(" [{}]", 5, 0, 4, &v));
    CHECK(!kt_find_event_spans("[{\"a\": \"]\"}]", 12, 0, 8, &v));
    CHECK(kt_find_event_spans("[{\"a\": \"]\"}]", 12, 0, 11, &v));
    CHECK_INT(v.n, 1);
    /* the object open at a byte: not inside an array value of the array,
     * nor in a string; found past an earlier object from its last byte   */
    const char *a = "[{\"a\":1}, [ 5 ], {\"b\": \"{x\"}]";
    size_t five = (size_t)(strchr(a, '5') - a), x = (size_t)(strchr(a, 'x') - a), b = (size_t)(strstr(a, "{\"b") - a);
    CHECK_INT(kt_object_start_before(a, strlen(a), 1, five, 1), SIZE_MAX);
    CHECK_INT(kt_object_start_before(a, strlen(a), 7, five, 2), SIZE_MAX);
    CHECK_INT(kt_object_start_before(a, strlen(a), 7, x, 2), SIZE_MAX);
    CHECK_INT(kt_object_start_before(a, strlen(a), 7, x + 2, 2), b);
    CHECK_INT(kt_object_start_before(a, strlen(a), 1, x + 2, 1), b);
    kt_spans_free(&v);
}

/* Random arrays: objects with strings full of brackets, quotes escaped by
 * odd backslash runs, even runs, nested values, blanks of every length.  */
static void put_string(char *b, size_t *n, unsigned *seed)
{
    static const char pieces[][6] = { "a", "{", "}", "[", "]", "\\\"", "\\\\", "\\\\\\\"", " ", "xyz", ":", "," };
    b[(*n)++] = '"';
    for (int k = rand_r(seed) % 12; k > 0; k--) {
        const char *p = pieces[rand_r(seed) % 12];
        memcpy(b + *n, p, strlen(p));
        *n += strlen(p);
    }
    b[(*n)++] = '"';
}

static void put_value(char *b, size_t *n, unsigned *seed, int depth)
{
    int kind = depth > 3 ? rand_r(seed) % 2 : rand_r(seed) % 4;
    for (int k = rand_r(seed) % 3 ? 0 : rand_r(seed) % 70; k > 0; k--) b[(*n)++] = ' ';
    if (kind == 0) {
        put_string(b, n, seed);
    } else if (kind == 1) {
        *n += (size_t)sprintf(b + *n, "%d", rand_r(seed) % 100000);
    } else {
        bool obj = kind == 2;
        b[(*n)++] = obj ? '{' : '[';
        for (int k = rand_r(seed) % 4; k > 0; k--) {
            if (obj) {
                put_string(b, n, seed);
                b[(*n)++] = ':';
            }
            put_value(b, n, seed, depth + 1);
            if (k > 1) b[(*n)++] = ',';
        }
        b[(*n)++] = obj ? '}' : ']';
    }
}

TEST(event_spans_equal_bytewise_on_random_arrays)
{
    char *b = malloc(1 << 20);
    for (unsigned round = 0; round < 400; round++) {
        unsigned seed = round;
        size_t n = 0;
        n += (size_t)sprintf(b, "{\"traceEvents\": [");
        for (int k = rand_r(&seed) % 60; k > 0; k--) {
            put_value(b, &n, &seed, rand_r(&seed) % 5 ? 0 : 1); /* mostly objects */
            if (k > 1) b[n++] = ',';
        }
        size_t close = n;
        n += (size_t)sprintf(b + n, "], \"x\": \"]\\\"\"}");
        check_text(b, close);
        /* the same cut at a random byte: the brackets no longer balance or
         * the cut falls inside a string; both scanners must agree        */
        size_t cut = 17 + (size_t)rand_r(&seed) % (n - 17);
        b[cut] = ']', b[cut + 1] = '\0';
        check_text(b, cut);
    }
    free(b);
}

/* A list reserved for the count the loader gives is used as it is (one
 * allocation: the same memory after the walk, spans as without it), and
 * one reserved too small still grows to hold every event.               */
TEST(event_spans_reserved_list_is_used_and_still_grows)
{
    enum { N = 10000 };
    char *t = malloc(N * 12 + 16);
    CHECK(t != NULL);
    if (!t) return;
    size_t n = 0;
    t[n++] = '[';
    for (int i = 0; i < N; i++) n += (size_t)sprintf(t + n, "%s{\"i\": %d}", i ? "," : "", i);
    t[n++] = ']';
    t[n] = '\0';
    kt_spans plain = { 0 }, exact = { 0 }, small = { 0 };
    CHECK(kt_find_event_spans(t, n, 0, n - 1, &plain));
    CHECK(kt_spans_reserve(&exact, N));
    const kt_span *before = exact.s;
    CHECK(kt_find_event_spans(t, n, 0, n - 1, &exact));
    CHECK(exact.s == before);
    CHECK_INT(exact.cap, N);
    CHECK(kt_spans_reserve(&small, 10));
    CHECK(kt_find_event_spans(t, n, 0, n - 1, &small));
    CHECK_INT(plain.n, N);
    CHECK_INT(exact.n, N);
    CHECK_INT(small.n, N);
    CHECK(plain.s && exact.s && small.s && !memcmp(plain.s, exact.s, N * sizeof *plain.s) &&
          !memcmp(plain.s, small.s, N * sizeof *plain.s));
    CHECK(kt_spans_reserve(&small, 5)); /* already room: nothing changes */
    CHECK_INT(small.n, N);
    kt_spans_free(&plain);
    kt_spans_free(&exact);
    kt_spans_free(&small);
    free(t);
}
