/*
 * runner.c — runs every registered test, optionally filtered by a substring.
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct {
    const char *name, *file;
    kt_test_fn fn;
} test_entry;

static test_entry tests[1024];
static size_t ntests;
static int cur_failures;
static const char *cur_skip;

void kt_test_register(const char *name, kt_test_fn fn, const char *file)
{
    if (ntests < sizeof tests / sizeof tests[0]) tests[ntests++] = (test_entry){ name, file, fn };
}

void kt_test_fail(const char *file, int line, const char *fmt, ...)
{
    if (cur_failures++ < 20) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stdout, "    %s:%d: ", file, line);
        vfprintf(stdout, fmt, ap);
        fputc('\n', stdout);
        va_end(ap);
    }
}

void kt_test_skip(const char *why) { cur_skip = why; }

const char *kt_test_shared(void)
{
    static const char *dir;
    static bool probed;
    if (!probed) {
        probed = true;
        const char *env = getenv("KINETA_SHARED");
        const char *cand = env && *env ? env : "../shared";
        struct stat st;
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/traces", cand);
        if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode)) dir = cand;
    }
    return dir;
}

const char *kt_test_shared_path(const char *rel)
{
    static char buf[4096];
    if (!kt_test_shared()) return NULL;
    snprintf(buf, sizeof buf, "%s/%s", kt_test_shared(), rel);
    return buf;
}

static int by_file_then_name(const void *a, const void *b)
{
    const test_entry *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    size_t passed = 0, failed = 0, skipped = 0;
    qsort(tests, ntests, sizeof tests[0], by_file_then_name);
    for (size_t i = 0; i < ntests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter)) continue;
        cur_failures = 0;
        cur_skip = NULL;
        fflush(stdout);
        tests[i].fn();
        if (cur_failures) {
            printf("FAIL %s (%s)\n", tests[i].name, tests[i].file);
            failed++;
        } else if (cur_skip) {
            printf("SKIP %s: %s\n", tests[i].name, cur_skip);
            skipped++;
        } else {
            printf("ok   %s\n", tests[i].name);
            passed++;
        }
    }
    printf("%zu skipped\n", skipped);
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed ? 1 : 0;
}
