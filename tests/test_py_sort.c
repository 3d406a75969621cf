/* test_py_sort.c — kt_py_sort orders exactly as CPython's list.sort()
 * with sorted(key=cmp_to_key(...)), also under comparators that are not
 * total orders (where only the same comparisons give the same result):
 * random, nearly sorted and run-structured inputs of sizes around
 * minrun and galloping thresholds, checked against python3 when present. */
#include "analysis/common/py_sort.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

/* Cyclic on purpose: ((7x + 3y) mod 5) < 2 is no order at all. */
static bool weird(void *ctx, uint32_t x, uint32_t y)
{
    int mode = *(const int *)ctx;
    if (mode == 0) return (x * 7u + y * 3u) % 5u < 2u;
    if (mode == 1) return x / 3 < y / 3;
    return x % 97 < y % 97 || (x ^ y) % 11 == 0;
}

static const char SCRIPT[] =
    "import sys\n"
    "from functools import cmp_to_key\n"
    "def weird(m,x,y):\n"
    "    if m==0: return (x*7+y*3)%5<2\n"
    "    if m==1: return x//3<y//3\n"
    "    return x%97<y%97 or (x^y)%11==0\n"
    "for line in open(sys.argv[1]):\n"
    "    f=list(map(int,line.split())); m=f[0]; v=f[1:]\n"
    "    print(' '.join(map(str,sorted(v,key=cmp_to_key(lambda x,y:-1 if weird(m,x,y) else 1)))))\n";

TEST(py_sort_matches_cpython)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        kt_test_skip("python3 not available");
        return;
    }
    char in[] = "/tmp/kt_pysort_XXXXXX", py[] = "/tmp/kt_pysort_py_XXXXXX";
    int fi = mkstemp(in), fp = mkstemp(py);
    CHECK(fi >= 0 && fp >= 0);
    if (fi < 0 || fp < 0) return;
    CHECK(write(fp, SCRIPT, sizeof SCRIPT - 1) == (ssize_t)(sizeof SCRIPT - 1));
    close(fp);
    FILE *f = fdopen(fi, "w");
    static const size_t sizes[] = { 0, 1, 2, 5, 31, 63, 64, 65, 100, 257, 1000, 3000 };
    enum { CASES = 36 };
    static uint32_t v[CASES][3000];
    size_t len[CASES];
    unsigned seed = 12345;
    for (size_t c = 0; c < CASES; c++) {
        len[c] = sizes[c % 12];
        for (size_t i = 0; i < len[c]; i++) {
            seed = seed * 1103515245u + 12345u;
            v[c][i] = c % 3 == 0 ? seed >> 8 : c % 3 == 1 ? (uint32_t)i + (seed % 16 == 0 ? seed % 500 : 0) : (uint32_t)(i / 40) * 1000 + (seed >> 20) % 40;
        }
        fprintf(f, "%zu", c % 3);
        for (size_t i = 0; i < len[c]; i++) fprintf(f, " %u", v[c][i]);
        fprintf(f, "\n");
    }
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 %s %s", py, in);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    for (size_t c = 0; p && c < CASES; c++) {
        int mode = (int)(c % 3);
        CHECK(kt_py_sort(v[c], len[c], weird, &mode));
        size_t bad = 0;
        for (size_t i = 0; i < len[c]; i++) {
            unsigned x;
            if (fscanf(p, "%u", &x) != 1 || x != v[c][i]) bad++;
        }
        if (bad) kt_test_fail(__FILE__, __LINE__, "case %zu (n %zu): %zu positions differ", c, len[c], bad);
    }
    if (p) pclose(p);
    unlink(in);
    unlink(py);
}
