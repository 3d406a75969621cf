/*
 * test_category_partial.c — the categories reduce: pairs of ranks loaded
 * apart merge by (launcher, kernel name) strings, totals and shares are
 * those of all ranks (hand-computed), a foreign partial is refused.
 */
#include "test.h"
#include "analysis/kernels/category_partial.h"
#include "kineta.h"

/* One rank's partial: gemm under aten::mm (ms each), and with relu_ms a
 * relu kernel under aten::relu.                                          */
static kt_tables *rank_partial(uint64_t gemms, int64_t gemm_ms, int64_t relu_ms)
{
    kt_cpartial p;
    kt_tables *ts = NULL;
    CHECK(kt_cpartial_init(&p));
    CHECK(kt_cpartial_add(&p, "aten::mm", 1, "sgemm", "GEMM", 0, gemms, gemm_ms * 1000000));
    if (relu_ms) CHECK(kt_cpartial_add(&p, "aten::relu", 1, "relu", "Elementwise", 5, 1, relu_ms * 1000000));
    CHECK_INT(kt_cpartial_to_tables(&p, &ts), KT_OK);
    kt_cpartial_free(&p);
    return ts;
}

TEST(categories_reduce_sums_pairs_over_ranks)
{
    kt_tables *parts[2] = { rank_partial(2, 3, 0), rank_partial(1, 2, 5) };
    kt_categories_options o = kt_categories_defaults();
    o.full_names = 1;
    kt_tables *out = NULL;
    CHECK_INT(kt_categories_reduce((const kt_tables *const *)parts, 2, &o, &out), KT_OK);
    const kt_table *k = kt_tables_find(out, "kernels"), *c = kt_tables_find(out, "categories");
    CHECK_INT(kt_table_nrows(k), 2);
    /* sgemm: 3 launches, 3 + 2 ms = 5 ms; relu 5 ms: equal sums, by launcher label */
    CHECK_STR(kt_table_str(k, 0, 0), "aten::mm");
    CHECK_INT(kt_table_int(k, 0, 3), 3);
    CHECK_NEAR(kt_table_float(k, 0, 4), 5.0, 1e-12);
    CHECK_NEAR(kt_table_float(k, 0, 5), 5000.0 / 3.0, 1e-9);
    CHECK_STR(kt_table_str(k, 1, 2), "relu");
    CHECK_INT(kt_table_nrows(c), 2);
    CHECK_NEAR(kt_table_float(c, 0, 3), 50.0, 1e-12); /* % of kernel time: 5 of 10 ms */
    kt_tables_free(out);
    kt_tables *info = NULL;
    CHECK_INT(kt_kernels_reduce((const kt_tables *const *)parts, 2, NULL, &info), KT_EINPUT);
    CHECK_INT(kt_categories_reduce((const kt_tables *const *)parts, 2, NULL, &out), KT_OK);
    kt_tables_free(out);
    kt_tables_free(parts[0]);
    kt_tables_free(parts[1]);
}
