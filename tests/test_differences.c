/* test_differences.c — footnotes where kineta's default differs from a
 * reference tool's on the trace at hand (docs/differences.md): a
 * multimem all-reduce is communication to kineta, computation to HTA and
 * TraceLens; the CLI prints footnotes under text tables and in JSON.     */
#include "fixture.h"
#include "table/table.h"
#include "test.h"
#include "cli_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 100 µs of GEMM, 50 µs of multimem all-reduce, 10 µs of NCCL. */
static kt_trace *mixed_comm(bool hta)
{
    kt_trace *t = fx_trace();
    t->hta_compat = hta;
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "gemm", 1000000, 100000, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "multimem_all_reduce_kernel", 1200000, 50000, 0, 9, 9, 2);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1300000, 10000, 0, 9, 9, 3);
    fx_finish(t);
    return t;
}

static void check_note(const kt_table *tb, const char *follows)
{
    CHECK_INT(kt_table_nnotes(tb), 1);
    const char *n = kt_table_note(tb, 0);
    CHECK(n && strstr(n, "1 kernel (50.000 us, e.g. multimem_all_reduce_kernel) is communication to kineta, not to ") == n);
    CHECK(n && strstr(n, follows) != NULL);
}

TEST(differences_breakdown_says_comm_rule_differs)
{
    for (int hta = 0; hta < 2; hta++) {
        kt_trace *t = mixed_comm(hta);
        kt_tables *ts = NULL;
        CHECK_INT(kt_breakdown(t, NULL, NULL, &ts), KT_OK);
        const kt_table *k = fx_table(ts, "kernel_type");
        if (k) check_note(k, hta ? "this table follows HTA (--hta-compat)" : "this table follows kineta");
        kt_tables_free(ts);
        CHECK_INT(kt_overlap(t, NULL, NULL, &ts), KT_OK);
        if (ts) check_note(fx_table(ts, "comm_comp_overlap"), hta ? "HTA" : "kineta");
        kt_tables_free(ts);
        kt_trace_free(t);
    }
}

TEST(differences_temporal_tracelens_says_comm_rule_differs)
{
    kt_trace *t = mixed_comm(false);
    kt_temporal_options o = kt_temporal_defaults();
    o.tracelens = 1;
    kt_tables *ts = NULL;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    if (ts) check_note(fx_table(ts, "gpu_timeline"), "this table follows TraceLens (--tracelens)");
    kt_tables_free(ts);
    o.tracelens = 0;
    CHECK_INT(kt_temporal(t, NULL, &o, &ts), KT_OK);
    if (ts) check_note(fx_table(ts, "temporal_breakdown"), "not to HTA; this table follows kineta");
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* Kernels both rules agree on: no footnote. */
TEST(differences_none_when_rules_agree)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "kernel", "gemm", 1000000, 100000, 0, 7, 7, 1);
    fx_event(t, r, 'X', "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1300000, 10000, 0, 9, 9, 3);
    fx_finish(t);
    kt_tables *ts = NULL;
    CHECK_INT(kt_breakdown(t, NULL, NULL, &ts), KT_OK);
    if (ts) CHECK_INT(kt_table_nnotes(fx_table(ts, "kernel_type")), 0);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* The CLI: "note: " lines under a text table, "footnotes" in JSON, stderr
 * for CSV.                                                                */
TEST(differences_cli_prints_footnotes)
{
    if (!kt_cli_bin()) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    char path[] = "/tmp/kineta-test-notes-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1000, "
               "\"dur\": 100, \"args\": {\"stream\": 7, \"device\": 0}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"multimem_all_reduce_kernel\", \"pid\": 0, \"tid\": 9, "
               "\"ts\": 1200, \"dur\": 50, \"args\": {\"stream\": 9, \"device\": 0}}]}\n");
    fclose(f);
    static char out[1 << 14];
    CHECK_INT(kt_cli_run_out(out, sizeof out, "breakdown --format table --table kernel_type %s", path), 0);
    CHECK(strstr(out, "\nnote: 1 kernel (50.000 us, e.g. multimem_all_reduce_kernel) is communication to kineta")
          != NULL);
    CHECK_INT(kt_cli_run_out(out, sizeof out, "breakdown --format json --table kernel_type %s", path), 0);
    CHECK(strstr(out, ",\n\"footnotes\": {\"kernel_type\": [\"1 kernel (50.000 us, e.g. multimem") != NULL);
    CHECK_INT(kt_cli_run_err(out, sizeof out, "breakdown --format csv --table kernel_type %s", path), 0);
    CHECK(strstr(out, "kineta: note: kernel_type: 1 kernel (50.000 us") != NULL);
    /* a lone file without a rank: a note for `info`, silence elsewhere */
    CHECK(strstr(out, "assuming rank 0") == NULL);
    CHECK_INT(kt_cli_run_err(out, sizeof out, "info --format csv %s", path), 0);
    CHECK(strstr(out, "note: ") != NULL && strstr(out, "assuming rank 0") != NULL);
    unlink(path);
}
