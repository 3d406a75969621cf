/*
 * test.h — the tiny test framework every tests/test_*.c uses.
 *
 * Tests register themselves (constructor attribute) so adding a test file
 * needs no central list; the runner prints one line per test and ends with
 * "N passed, M failed" so CI and humans read the same summary.
 */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef void (*kt_test_fn)(void);
void kt_test_register(const char *name, kt_test_fn fn, const char *file);
void kt_test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void kt_test_skip(const char *why);
/* Path of ../shared (or $KINETA_SHARED) when present, else NULL. */
const char *kt_test_shared(void);
/* Path joined under the shared dir into a static buffer; NULL if absent. */
const char *kt_test_shared_path(const char *rel);

#define TEST(fn)                                                              \
    static void fn(void);                                                     \
    __attribute__((constructor)) static void kt_register_##fn(void)           \
    {                                                                         \
        kt_test_register(#fn, fn, __FILE__);                                  \
    }                                                                         \
    static void fn(void)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) kt_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);    \
    } while (0)

#define CHECK_INT(a, b)                                                       \
    do {                                                                      \
        long long kt_a_ = (long long)(a), kt_b_ = (long long)(b);             \
        if (kt_a_ != kt_b_)                                                   \
            kt_test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
                         #a, kt_a_, #b, kt_b_);                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                 \
    do {                                                                      \
        double kt_a_ = (double)(a), kt_b_ = (double)(b);                      \
        if (!(fabs(kt_a_ - kt_b_) <= (tol)))                                  \
            kt_test_fail(__FILE__, __LINE__, "%s == %.9g, expected %.9g (tol %g)", \
                         #a, kt_a_, kt_b_, (double)(tol));                    \
    } while (0)

#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *kt_a_ = (a), *kt_b_ = (b);                                \
        if (!kt_a_ || !kt_b_ || strcmp(kt_a_, kt_b_) != 0)                    \
            kt_test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
                         #a, kt_a_ ? kt_a_ : "(null)", kt_b_ ? kt_b_ : "(null)"); \
    } while (0)

/* Skip the rest of the test when the shared traces are absent. */
#define NEED_SHARED()                                                         \
    do {                                                                      \
        if (!kt_test_shared()) { kt_test_skip("../shared not present"); return; } \
    } while (0)

#endif
