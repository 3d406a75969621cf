/* test_timeline_synth.c — busy, idle, compute, communication and overlap
 * totals on kineta-synth traces equal the generator's ground truth to the
 * nanosecond (the synthesizer's path comes in KINETA_SYNTH from make test).*/
#include "fixture.h"
#include "test.h"

#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The truth.json object of one rank ("rank": R up to the next rank). */
static const char *truth_rank(const char *truth, int rank)
{
    char key[32];
    snprintf(key, sizeof key, "\"rank\": %d,", rank);
    return strstr(truth, key);
}

/* Integer field of a rank object ([0]/[1] of an array with idx). */
static int64_t truth_field(const char *rank_obj, const char *name, int idx)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *p = rank_obj ? strstr(rank_obj, key) : NULL;
    if (!p) return INT64_MIN;
    p += strlen(key);
    if (*p == '[') {
        p++;
        for (int i = 0; i < idx; i++) p = strchr(p, ',') + 1;
    }
    return strtoll(p, NULL, 10);
}

/* µs in a table cell back to the exact ns it came from. */
static int64_t ns(double us)
{
    return (int64_t)llround(us * 1e3);
}

static void check_rank(const kt_trace *t, const kt_rank *r, const char *truth)
{
    const char *obj = truth_rank(truth, r->rank);
    CHECK(obj != NULL);
    int64_t busy = truth_field(obj, "gpu_busy_ns", 0), idle = truth_field(obj, "gpu_idle_ns", 0);
    int64_t span = truth_field(obj, "gpu_span_ns", 1) - truth_field(obj, "gpu_span_ns", 0);
    int64_t compute = truth_field(obj, "compute_busy_ns", 0), comm = truth_field(obj, "comm_busy_ns", 0);
    int64_t both = truth_field(obj, "comm_compute_overlap_ns", 0);
    kt_rank_sel one = { &r->rank, 1 };
    kt_tables *ts;

    CHECK_INT(kt_temporal(t, &one, NULL, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "temporal_breakdown");
    CHECK_INT(ns(fx_num(tb, 0, "kernel_time(us)")), span);
    CHECK_INT(ns(fx_num(tb, 0, "idle_time(us)")), idle);
    CHECK_INT(ns(fx_num(tb, 0, "compute_time(us)")), compute);
    kt_tables_free(ts);

    CHECK_INT(kt_overlap(t, &one, NULL, &ts), KT_OK);
    CHECK_NEAR(fx_num(fx_table(ts, "comm_comp_overlap"), 0, "comp_comm_overlap_pctg"),
               100.0 * (double)both / (double)comm, 1e-9);
    kt_tables_free(ts);

    CHECK_INT(kt_gaps(t, &one, NULL, &ts), KT_OK);
    tb = fx_table(ts, "device_idle");
    CHECK_INT(kt_table_nrows(tb), 1);
    CHECK_INT(ns(fx_num(tb, 0, "busy_us")), busy);
    CHECK_INT(ns(fx_num(tb, 0, "idle_us")), idle);
    kt_tables_free(ts);

    kt_temporal_options tl = { .size = sizeof tl, .tracelens = 1 };
    CHECK_INT(kt_temporal(t, &one, &tl, &ts), KT_OK);
    tb = fx_table(ts, "gpu_timeline");
    CHECK_INT((int64_t)llround(kt_table_float(tb, 3, 1) * 1e6), busy);  /* busy_time */
    CHECK_INT((int64_t)llround(kt_table_float(tb, 5, 1) * 1e6), span);  /* total_time */
    CHECK_INT((int64_t)llround(kt_table_float(tb, 6, 1) * 1e6), comm);  /* total_comm_time */
    kt_tables_free(ts);
}

static void check_synth(const char *args)
{
    const char *synth = getenv("KINETA_SYNTH");
    if (!synth || access(synth, X_OK) != 0) {
        kt_test_skip("kineta-synth not built (KINETA_SYNTH)");
        return;
    }
    char dir[] = "/tmp/kineta-test-synth-XXXXXX", cmd[1024], path[1100];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s %s -o %s/trace > /dev/null", synth, args, dir);
    CHECK_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/trace/truth.json", dir);
    char *truth = fx_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/trace/rank-*", dir); /* not truth.json */
    glob_t g;
    CHECK_INT(glob(path, 0, NULL, &g), 0);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load((const char *const *)g.gl_pathv, g.gl_pathc, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    globfree(&g);
    CHECK(truth && t && t->nranks == 2);
    for (size_t i = 0; truth && t && i < t->nranks; i++) check_rank(t, t->ranks[i], truth);
    kt_trace_free(t);
    free(truth);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(synth_timeline_matches_truth_cuda_ns)
{
    check_synth("--ranks 2 --steps 3 --streams 3 --ns");
}

TEST(synth_timeline_matches_truth_cuda_graphs)
{
    check_synth("--ranks 2 --steps 2 --streams 2 --graphs --gzip");
}

TEST(synth_timeline_matches_truth_rocm)
{
    check_synth("--ranks 2 --steps 2 --vendor rocm");
}
