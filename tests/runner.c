/*
 * runner.c — runs every registered test, optionally filtered by a substring,
 * in parallel worker processes.
 *
 * Usage: kineta-tests [-j N] [filter].  Most tests spawn the CLI under
 * AddressSanitizer and wait for it, so one process leaves a core idle: N
 * workers (default: $KINETA_TEST_JOBS, else 1) take the next test from a
 * shared counter.  Each test runs with its output captured, and its block
 * (captured lines, then "ok"/"FAIL"/"SKIP") is written whole, so the log
 * reads as it does serially, in completion order.  A worker that dies (a
 * sanitizer abort, a signal) fails the test it was running and the run; one
 * whose exit LeakSanitizer fails (a leak) fails the run.  With one job the
 * tests run in this process, as valgrind needs.
 */
#include "test.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *name, *file;
    kt_test_fn fn;
} test_entry;

enum { RESULT_NONE, RESULT_PASS, RESULT_FAIL, RESULT_SKIP };

/* Lives in memory shared by the workers and the parent. */
typedef struct {
    size_t next;            /* index of the next test to hand out */
    size_t running[64];     /* per worker: index of its test + 1, 0 when idle */
    unsigned char result[1024];
} shared_state;

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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Appends the test's verdict to its captured output (stdout is the capture
 * file); slow tests carry their time so the log shows where CI's minutes go. */
static int run_one(const test_entry *t)
{
    cur_failures = 0;
    cur_skip = NULL;
    double start = now_seconds();
    t->fn();
    double took = now_seconds() - start;
    char took_note[32] = "";
    if (took >= 1.0) snprintf(took_note, sizeof took_note, " (%.1f s)", took);
    if (cur_failures) {
        printf("FAIL %s (%s)%s\n", t->name, t->file, took_note);
        return RESULT_FAIL;
    }
    if (cur_skip) {
        printf("SKIP %s: %s\n", t->name, cur_skip);
        return RESULT_SKIP;
    }
    printf("ok   %s%s\n", t->name, took_note);
    return RESULT_PASS;
}

/* Moves what the test wrote to fd 1 (the capture file) to fd `out` in one
 * write where the kernel allows, then empties the capture.  Plain fd calls:
 * a FILE over the same file would keep its own idea of the offset. */
static void emit_capture(int out)
{
    fflush(stdout);
    off_t n = lseek(STDOUT_FILENO, 0, SEEK_CUR);
    char *buf = n > 0 ? malloc((size_t)n) : NULL;
    ssize_t got = buf ? pread(STDOUT_FILENO, buf, (size_t)n, 0) : 0;
    for (ssize_t off = 0; off < got;) {
        ssize_t w = write(out, buf + off, (size_t)(got - off));
        if (w <= 0) break;
        off += w;
    }
    free(buf);
    if (ftruncate(STDOUT_FILENO, 0) != 0 || lseek(STDOUT_FILENO, 0, SEEK_SET) != 0) _exit(2);
}

static void worker(shared_state *st, size_t slot, const size_t *order, size_t n, int out)
{
    FILE *capture = tmpfile();
    if (!capture || dup2(fileno(capture), STDOUT_FILENO) < 0) _exit(2);
    fclose(capture);
    for (;;) {
        size_t i = __atomic_fetch_add(&st->next, 1, __ATOMIC_SEQ_CST);
        if (i >= n) break;
        st->running[slot] = i + 1;
        st->result[i] = (unsigned char)run_one(&tests[order[i]]);
        st->running[slot] = 0;
        emit_capture(out);
    }
    fflush(stdout);
    exit(0); /* not _exit: LeakSanitizer checks the worker at exit (its status then fails the run) */
}

/* One process, no capture: what valgrind (make check-leaks) and debuggers
 * follow, and the order the tests are listed in.                          */
static int run_serial(const size_t *order, size_t n)
{
    size_t count[4] = { 0 };
    for (size_t i = 0; i < n; i++) {
        fflush(stdout);
        count[run_one(&tests[order[i]])]++;
    }
    printf("%zu skipped\n", count[RESULT_SKIP]);
    printf("%zu passed, %zu failed\n", count[RESULT_PASS], count[RESULT_FAIL]);
    return count[RESULT_FAIL] ? 1 : 0;
}

static size_t jobs_from(const char *s)
{
    long j = s ? strtol(s, NULL, 10) : 1;
    return j < 1 ? 1 : j > 64 ? 64 : (size_t)j;
}

int main(int argc, char **argv)
{
    size_t jobs = jobs_from(getenv("KINETA_TEST_JOBS"));
    int arg = 1;
    if (arg + 1 < argc && strcmp(argv[arg], "-j") == 0) {
        jobs = jobs_from(argv[arg + 1]);
        arg += 2;
    }
    const char *filter = arg < argc ? argv[arg] : NULL;
    qsort(tests, ntests, sizeof tests[0], by_file_then_name);
    size_t order[1024], n = 0;
    for (size_t i = 0; i < ntests; i++)
        if (!filter || strstr(tests[i].name, filter) || strstr(tests[i].file, filter)) order[n++] = i;

    if (jobs > n) jobs = n ? n : 1;
    if (jobs == 1) return run_serial(order, n);
    shared_state *st = mmap(NULL, sizeof *st, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (st == MAP_FAILED) return 2;
    memset(st, 0, sizeof *st);
    int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    fflush(stdout);
    pid_t pids[64];
    for (size_t w = 0; w < jobs; w++) {
        pids[w] = fork();
        if (pids[w] == 0) worker(st, w, order, n, out);
    }
    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t w = 0; w < jobs; w++) {
        int status = 0;
        if (pids[w] < 0 || waitpid(pids[w], &status, 0) < 0) { failed++; continue; }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        size_t i = st->running[w];
        if (i)
            printf("FAIL %s: its worker died (%s %d)\n", tests[order[i - 1]].name,
                   WIFSIGNALED(status) ? "signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        else /* LeakSanitizer's report is on stderr above */
            printf("FAIL worker %zu at its exit (%s %d): a leak, when LeakSanitizer reported one\n", w,
                   WIFSIGNALED(status) ? "signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        failed++;
    }
    for (size_t i = 0; i < n; i++) {
        passed += st->result[i] == RESULT_PASS;
        failed += st->result[i] == RESULT_FAIL;
        skipped += st->result[i] == RESULT_SKIP;
    }
    printf("%zu skipped\n", skipped);
    printf("%zu passed, %zu failed\n", passed, failed);
    munmap(st, sizeof *st);
    return failed ? 1 : 0;
}
