/*
 * test_read_ranks.c — the multi-rank machinery on other profilers' files:
 * a directory of two rocprofv3 JSON files, two Nsight Systems exports or
 * two XLA profiles is a job of two ranks (ranks from the names); the
 * cache maps each file's model as parsed (same tables); --stream-ranks
 * prints what the all-in-memory run prints.
 */
#include "test.h"
#include "cli_run.h"
#include "read_check.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* dir holding seed (from fuzz/seeds) twice, as rank0<suffix> and rank1<suffix>. */
static bool two_ranks(char *dir, const char *seed, const char *suffix)
{
    if (!mkdtemp(dir)) return false;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp fuzz/seeds/%s %s/rank0%s && cp fuzz/seeds/%s %s/rank1%s", seed, dir, suffix, seed, dir, suffix);
    return system(cmd) == 0;
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

static kt_trace *load(const char *path, const char *cache_dir)
{
    kt_load_options o = { .size = sizeof o, .cache_dir = cache_dir };
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    const char *paths[] = { path };
    CHECK_INT(kt_load(paths, 1, &o, &t, &fail), KT_OK);
    kt_diags_free(fail);
    return t;
}


/* stdout of `kineta ARGS` with and without --stream-ranks: the same. */
static void stream_same(const char *args, const char *dir)
{
    if (!kt_cli_bin()) {
        kt_test_skip("KINETA_BIN not set");
        return;
    }
    static char a[1 << 18], b[1 << 18];
    CHECK_INT(kt_cli_run_out(a, sizeof a, "%s -q '%s'", args, dir), 0);
    CHECK_INT(kt_cli_run_out(b, sizeof b, "%s -q --stream-ranks '%s'", args, dir), 0);
    if (strcmp(a, b)) kt_test_fail(__FILE__, __LINE__, "%s on %s: streamed output differs", args, dir);
    CHECK(strlen(a) > 0);
}

static void job_of_two(const char *seed, const char *suffix)
{
    char dir[] = "/tmp/kt_read_ranks_XXXXXX", cache[] = "/tmp/kt_read_cache_XXXXXX", one[512];
    if (!two_ranks(dir, seed, suffix) || !mkdtemp(cache)) {
        kt_test_fail(__FILE__, __LINE__, "cannot set up the job of %s", seed);
        return;
    }
    snprintf(one, sizeof one, "%s/rank0%s", dir, suffix);
    kt_trace *single = load(one, NULL), *job = load(dir, NULL);
    if (single && job) {
        CHECK_INT(job->nranks, 2);
        int64_t t0, t1, ts;
        size_t n = rd_count_kind(single->ranks[0], KT_K_KERNEL, &ts);
        CHECK(n > 0);
        CHECK_INT(job->ranks[0]->rank + job->ranks[1]->rank, 1);
        CHECK_INT(rd_count_kind(job->ranks[0], KT_K_KERNEL, &t0), n);
        CHECK_INT(rd_count_kind(job->ranks[1], KT_K_KERNEL, &t1), n);
        CHECK_INT(t0 + t1, 2 * ts);
        /* written to the cache by the first load, mapped from it by the next */
        kt_trace *w = load(dir, cache), *m = load(dir, cache);
        if (w && m) {
            CHECK(m->ranks[0]->cache_map && m->ranks[1]->cache_map);
            rd_same_answers(job, m);
        }
        kt_trace_free(w);
        kt_trace_free(m);
    }
    kt_trace_free(single);
    kt_trace_free(job);
    stream_same("kernels --format json", dir);
    stream_same("temporal --format json", dir);
    stream_same("idle --format json", dir);
    stream_same("launch --format json", dir);
    remove_dir(dir);
    remove_dir(cache);
}

TEST(read_ranks_rocprof_json_job) { job_of_two("rocprof_results.json", "_results.json"); }
TEST(read_ranks_nsys_job) { job_of_two("nsys_small.sqlite", ".sqlite"); }
TEST(read_ranks_xplane_job) { job_of_two("small.xplane.pb", ".xplane.pb"); }
