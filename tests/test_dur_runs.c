/* test_dur_runs.c — kt_dur_runs gives the same sorted runs whether it
 * counts few distinct durations or sorts many: against a plain sort.     */
#include "test.h"
#include "analysis/common/dur_runs.h"
#include "model/radix.h"

#include <stdlib.h>

/* Runs of d checked against d sorted; true when they match. */
static bool runs_match_sorted(int64_t *d, int64_t *sorted, size_t n)
{
    kt_dur_run *runs;
    size_t nruns, at = 0;
    if (!kt_dur_runs(d, n, &runs, &nruns) || !kt_sort_i64(sorted, n)) return false;
    bool ok = true;
    for (size_t k = 0; ok && k < nruns; k++) {
        ok = runs[k].n > 0 && (k == 0 || runs[k].dur > runs[k - 1].dur);
        for (uint64_t c = 0; ok && c < runs[k].n; c++) ok = at < n && sorted[at++] == runs[k].dur;
    }
    free(runs);
    return ok && at == n;
}

TEST(dur_runs_few_and_many_distinct)
{
    enum { N = 3000 };
    static int64_t d[N], s[N];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t n = 0; n <= N; n += n < 130 ? 1 : 997)
        for (int many = 0; many < 2; many++) {
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                d[i] = s[i] = many ? (int64_t)(x >> 1) - INT64_MAX / 2 : (int64_t)(x % 9) * 1000 - 3000;
            }
            CHECK(runs_match_sorted(d, s, n));
        }
}

TEST(dur_runs_hand_values)
{
    int64_t d[70];
    for (size_t i = 0; i < 70; i++) d[i] = i % 2 ? 5 : -7; /* 35 each */
    kt_dur_run *runs;
    size_t n;
    CHECK(kt_dur_runs(d, 70, &runs, &n));
    CHECK(n == 2 && runs[0].dur == -7 && runs[0].n == 35 && runs[1].dur == 5 && runs[1].n == 35);
    free(runs);
}
