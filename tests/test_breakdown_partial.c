/*
 * test_breakdown_partial.c — the breakdown reduce: two ranks' partials,
 * loaded apart, give kernel_type summed over ranks (hand-computed),
 * kernel_type_by_rank per rank, and rows whose names survive the trip.
 */
#include "test.h"
#include "analysis/kernels/breakdown_partial.h"
#include "kineta.h"

#include <string.h>

/* One rank: COMPUTATION alone comp ns, COMMUNICATION alone comm ns, both
 * at once both ns; one kernel row "k" (count 2, sum comp). */
static kt_tables *rank_partial(int rank, int64_t comp, int64_t comm, int64_t both)
{
    kt_bd_partial p;
    kt_tables *ts = NULL;
    CHECK(kt_bd_partial_init(&p));
    kt_bd_rank r = { .rank = rank };
    r.ns[1] = comp;
    r.ns[2] = comm;
    r.ns[3] = both;
    CHECK(kt_bd_add_rank(&p, &r));
    kt_bd_row row = { .name = kt_strtab_intern(p.strs, "k", 1), .rank = rank, .type = KT_TYPE_COMPUTATION,
                      .st = { .count = 2, .sum = comp, .min = comp / 4, .max = comp - comp / 4,
                              .mean = (double)comp / 2, .std = 1.5 } };
    CHECK(kt_bd_rows_push(&p.kernels, row) && kt_bd_rows_push(&p.all, row));
    CHECK_INT(kt_bd_partial_to_tables(&p, &ts), KT_OK);
    kt_bd_partial_free(&p);
    return ts;
}

TEST(breakdown_reduce_sums_classes_over_ranks)
{
    kt_tables *parts[2] = { rank_partial(0, 300000, 100000, 0), rank_partial(1, 100000, 0, 100000) };
    kt_tables *out = NULL;
    CHECK_INT(kt_breakdown_reduce((const kt_tables *const *)parts, 2, NULL, 0, &out), KT_OK);
    const kt_table *ty = kt_tables_find(out, "kernel_type"), *by = kt_tables_find(out, "kernel_type_by_rank"),
                   *k = kt_tables_find(out, "kernels"), *d = kt_tables_find(out, "distribution");
    CHECK_INT(kt_table_nrows(ty), 3);
    CHECK_STR(kt_table_str(ty, 0, 0), "COMPUTATION");
    CHECK_NEAR(kt_table_float(ty, 0, 1), 400.0, 1e-9);               /* µs over both ranks */
    CHECK_NEAR(kt_table_float(ty, 0, 2), 100.0 * 4 / 6, 1e-9);       /* of 600 µs */
    CHECK_INT(kt_table_nrows(by), 4);                                  /* 2 classes per rank */
    CHECK_INT(kt_table_int(by, 3, 0), 1);
    CHECK_INT(kt_table_nrows(k), 2);
    CHECK_STR(kt_table_str(k, 0, 0), "k");
    CHECK_NEAR(kt_table_float(k, 0, 4), 0.0015, 1e-12); /* stddev: 1.5 ns, exact through the tables */
    CHECK_INT(kt_table_nrows(d), 2);                      /* k on both ranks */
    kt_tables_free(out);
    CHECK_INT(kt_categories_reduce((const kt_tables *const *)parts, 2, NULL, &out), KT_EINPUT);
    kt_tables_free(parts[0]);
    kt_tables_free(parts[1]);
}
