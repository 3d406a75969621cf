/* attrib_oracle.c — see attrib_oracle.h. */
#include "attrib_oracle.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool numbers_match(double a, double b, double rel_tol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (rel_tol == 0) return a == b;
    return fabs(a - b) <= rel_tol * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static bool cell_matches(const kt_table *t, size_t i, size_t j, const char *theirs, double rel_tol, char *ours,
                         size_t cap)
{
    if (kt_table_col_type(t, j) == KT_COL_STR) {
        snprintf(ours, cap, "%s", kt_table_str(t, i, j));
        return !strcmp(kt_table_str(t, i, j), theirs);
    }
    double a = kt_table_is_null(t, i, j) ? NAN : kt_table_float(t, i, j), b = *theirs ? strtod(theirs, NULL) : NAN;
    snprintf(ours, cap, "%.17g", a);
    return numbers_match(a, b, rel_tol);
}

void ao_compare(const char *dir, const char *file, const kt_tables *ts, const char *name,
                const char *const *cols, const char *const *ours, size_t ncols, double rel_tol)
{
    char rel[512];
    snprintf(rel, sizeof rel, "oracle/hta/%s/%s", dir, file);
    fx_csv *c = fx_csv_read(rel);
    const kt_table *t = kt_tables_find(ts, name);
    size_t want = c && c->nrows ? c->nrows - 1 : 0, bad = 0;
    if (!t || kt_table_nrows(t) != want) {
        kt_test_fail(__FILE__, __LINE__, "%s %s: %zu rows, HTA %zu", dir, name, t ? kt_table_nrows(t) : 0, want);
        fx_csv_free(c);
        return;
    }
    for (size_t k = 0; want && k < ncols; k++) {
        long j = kt_table_col_index(t, ours && ours[k] ? ours[k] : cols[k]);
        if (j < 0 || fx_csv_col(c, cols[k]) < 0) {
            kt_test_fail(__FILE__, __LINE__, "%s %s: no column %s", dir, name, cols[k]);
            continue;
        }
        for (size_t i = 0; i < want; i++) {
            const char *theirs = fx_csv_get(c, i + 1, cols[k]);
            char mine[128];
            if (!cell_matches(t, i, (size_t)j, theirs, rel_tol, mine, sizeof mine) && bad++ < 3)
                kt_test_fail(__FILE__, __LINE__, "%s %s row %zu %s: ours %.60s, HTA %.60s", dir, name, i, cols[k],
                             mine, theirs);
        }
    }
    fx_csv_free(c);
}
