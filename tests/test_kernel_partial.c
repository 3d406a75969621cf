/*
 * test_kernel_partial.c — the kernels reduce: partials of ranks loaded
 * apart merge by kernel name, their sorted durations give the exact
 * median and std of all of them (hand-computed), and a damaged partial is
 * refused.
 */
#include "test.h"
#include "analysis/kernels/kernel_partial.h"
#include "kineta.h"
#include "table/table.h"

#include <math.h>
#include <stdlib.h>

/* A partial of one rank: kernel "k" with durations ks (µs) and, when zn,
 * kernel "z"; k's type is type (NULL: mixed).                            */
static kt_tables *partial(const int64_t *ks, size_t kn, size_t zn, const char *type, int64_t wall_us)
{
    kt_kpartial p;
    kt_tables *ts = NULL;
    CHECK(kt_kpartial_init(&p));
    kt_dur_run runs[4];
    for (size_t i = 0; i < kn; i++) runs[i] = (kt_dur_run){ ks[i] * 1000, 1 };
    CHECK(kt_kpartial_add(&p, "k", 0, "GEMM", type, runs, kn));
    kt_dur_run z = { 7000, zn };
    if (zn) CHECK(kt_kpartial_add(&p, "z", 0, "Elementwise", "COMPUTATION", &z, 1));
    p.nranks = 1;
    p.wall_ns = wall_us * 1000;
    kt_kpartial_sort(&p);
    CHECK_INT(kt_kpartial_to_tables(&p, &ts), KT_OK);
    kt_kpartial_free(&p);
    return ts;
}

static double cell(const kt_table *t, size_t row, const char *col)
{
    long c = kt_table_col_index(t, col);
    CHECK(c >= 0);
    return c < 0 ? NAN : kt_table_float(t, row, (size_t)c);
}

TEST(kernels_reduce_merges_sorted_durations_exactly)
{
    /* rank 0: k = 3, 1 µs; rank 1: k = 10, 2 µs and z = 7 µs twice */
    static const int64_t a[] = { 3, 1 }, b[] = { 10, 2 };
    kt_tables *parts[2] = { partial(a, 2, 0, "COMPUTATION", 40), partial(b, 2, 2, NULL, 60) };
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    o.full_names = 1;
    kt_tables *out = NULL;
    CHECK_INT(kt_kernels_reduce((const kt_tables *const *)parts, 2, &o, &out), KT_OK);
    const kt_table *k = kt_tables_find(out, "kernels"), *sum = kt_tables_find(out, "summary");
    CHECK_INT(kt_table_nrows(k), 2);
    /* sorted by count: k (4) before z (2) */
    CHECK_STR(kt_table_str(k, 0, 1), "k");
    CHECK_INT(kt_table_int(k, 0, 2), 4);
    CHECK_NEAR(cell(k, 0, "total (us)"), 16.0, 1e-12);
    CHECK_NEAR(cell(k, 0, "avg (us)"), 4.0, 1e-12);
    CHECK_NEAR(cell(k, 0, "median (us)"), 2.5, 1e-12);  /* (2 + 3) / 2 */
    CHECK_NEAR(cell(k, 0, "min (us)"), 1.0, 1e-12);
    CHECK_NEAR(cell(k, 0, "max (us)"), 10.0, 1e-12);
    CHECK_NEAR(cell(k, 0, "std (us)"), sqrt(50.0 / 3.0), 1e-12); /* (9 + 1 + 4 + 36) / 3 */
    CHECK_NEAR(cell(k, 0, "% GPU wall time"), 16.0, 1e-12);    /* 16 of 40 + 60 µs */
    CHECK_STR(kt_table_str(k, 0, 12), "GEMM");
    CHECK_STR(kt_table_str(k, 0, 13), "mixed"); /* rank 1's k was mixed */
    CHECK_STR(kt_table_str(k, 1, 1), "z");
    CHECK_NEAR(cell(k, 1, "median (us)"), 7.0, 1e-12);
    CHECK_NEAR(cell(k, 1, "std (us)"), 0.0, 0);
    CHECK_INT(kt_table_int(sum, 0, 0), 2); /* ranks */
    CHECK_INT(kt_table_int(sum, 0, 1), 2); /* kernels */
    CHECK_INT(kt_table_int(sum, 0, 2), 6); /* launches */
    kt_tables_free(out);
    kt_tables_free(parts[0]);
    kt_tables_free(parts[1]);
}

TEST(kernels_reduce_refuses_a_foreign_partial)
{
    kt_tables *out = NULL;
    static const int64_t a[] = { 1 };
    kt_tables *ok = partial(a, 1, 0, "COMPUTATION", 1);
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK_INT(kt_tables_serialize(ok, &buf, &len), KT_OK);
    kt_tables *empty = NULL;
    CHECK_INT(kt_tables_deserialize(buf, len, &empty), KT_OK);
    const kt_tables *both[2] = { ok, empty };
    CHECK_INT(kt_kernels_reduce(both, 2, NULL, &out), KT_OK); /* a round trip is a partial */
    kt_tables_free(out);
    kt_tables_free(empty);
    free(buf);
    /* a table of the name without the partial's columns is not one */
    kt_tables *other = NULL;
    kt_table *t = kt_table_new("kernel_groups");
    CHECK_INT(kt_tables_from(&t, 1, &other), KT_OK);
    const kt_tables *bad[2] = { ok, other };
    CHECK_INT(kt_kernels_reduce(bad, 2, NULL, &out), KT_EINPUT);
    CHECK(out == NULL);
    kt_tables_free(other);
    kt_tables_free(ok);
}
