/*
 * test_collectives_cli.c — `kineta collectives` and `kineta stragglers` as
 * users meet them: options, exit codes, tables on two tiny rank files with
 * one allreduce each (rank 1 arrives 40 µs later); and both analyses on
 * every real trace in ../shared without failing (bad or odd input never
 * crashes them).
 */
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin(void)
{
    const char *b = getenv("KINETA_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

/* Rank r's file: an allreduce kernel (Seq 1) from ts0 for dur µs. */
static void write_rank(const char *dir, int r, int ts0, int dur)
{
    char path[256];
    snprintf(path, sizeof path, "%s/rank-%d.json", dir, r);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n\"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
               "\"tid\": 1, \"ts\": 100, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
               "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\", "
               "\"pid\": 0, \"tid\": 20, \"ts\": %d, \"dur\": %d, \"args\": {\"stream\": 20, \"correlation\": 7, "
               "\"Collective name\": \"allreduce\", \"In msg nelems\": 262144, \"Out msg nelems\": 262144, "
               "\"Group size\": 2, \"dtype\": \"Float\", \"Process Group Name\": \"0\", "
               "\"Process Group Ranks\": \"[0, 1]\", \"Seq\": 1}}\n]}\n",
            r, ts0, dur);
    fclose(f);
}

static int run(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *out, size_t cap, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", bin(), args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, cap - 1, p) : 0;
    out[n] = '\0';
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(collectives_cli_tables_and_options)
{
    if (!bin()) {
        kt_test_skip("KINETA_BIN not set (run make test)");
        return;
    }
    static char out[1 << 16];
    char dir[] = "/tmp/kineta-coll-cli-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_rank(dir, 0, 1000, 100);
    write_rank(dir, 1, 1040, 60);
    CHECK_INT(run(out, sizeof out, "collectives --format csv --table stragglers %s", dir), 0);
    CHECK(strstr(out, "rank,total_wait_time_us") == out);
    CHECK(strstr(out, "\n1,0,0,1,0,100,1,60\n") != NULL);
    CHECK(strstr(out, "\n0,40,40,0,1,0,1,100\n") != NULL);
    CHECK_INT(run(out, sizeof out, "collectives --format csv --gpus-per-node 1 %s", dir), 0);
    CHECK(strstr(out, "0_1,seq,allreduce,Float,262144,262144,0,,2,2,1,60,40,0,20,0,1,16.276041666666668,") != NULL);
    CHECK(strstr(out, ",node_span,intra_node,") != NULL);
    CHECK_INT(run(out, sizeof out, "collectives --align sideways %s", dir), 2);
    CHECK_INT(run(out, sizeof out, "collectives --gpus-per-node 0 %s", dir), 2);
    CHECK_INT(run(out, sizeof out, "stragglers --steps 1,x %s", dir), 2);
    CHECK_INT(run(out, sizeof out, "stragglers --format csv %s", dir), 0);
    CHECK(strstr(out, "rank,verdict,evidence,source\n") == out); /* 2 ranks, one collective: too little */
    CHECK(strstr(out, "\n1,inconclusive,\"arrived last at 1 of 1 collectives (100.0%); ") != NULL);
    CHECK_INT(run(out, sizeof out, "stragglers --hta-compat %s", dir), 1); /* no ProfilerStep: HTA raises */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

/* Every real trace: both analyses run (the HTA metric may have no answer). */
TEST(collectives_every_shared_trace)
{
    NEED_SHARED();
    size_t n;
    char **paths = fx_shared_trace_files(&n);
    size_t ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0 || st.st_size > 4 << 20) continue; /* keep the sanitizer run short */
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        const char *one = paths[i];
        if (kt_load(&one, 1, NULL, &t, &fail) != KT_OK) { /* not a Kineto trace: the loader's tests */
            kt_diags_free(fail);
            continue;
        }
        kt_tables *ts = NULL;
        CHECK_INT(kt_collectives(t, NULL, NULL, &ts), KT_OK);
        kt_tables_free(ts);
        CHECK_INT(kt_stragglers(t, NULL, NULL, &ts), KT_OK);
        kt_tables_free(ts);
        kt_trace_free(t);
        ran++;
    }
    CHECK(ran > 10);
    fx_free_paths(paths, n);
}

/* Odd metadata as real files write it or garble it: a numeric PG name, a
 * string nelems, a negative Seq, an unparsable rank list, a split list
 * longer than the group.  Nothing crashes; what cannot be used is null.  */
TEST(collectives_odd_metadata_from_files)
{
    static const char *const args[] = {
        "\"Collective name\": \"allreduce\", \"Process Group Name\": 0, \"In msg nelems\": \"many\", \"Seq\": -5",
        "\"Collective name\": \"all_to_allv\", \"dtype\": \"Float\", \"Process Group Name\": \"7\", "
        "\"Process Group Ranks\": \"[0, x]\", \"In split size\": \"[1, 2, 3, 4, 5]\", \"Seq\": 1",
        "\"Collective name\": \"\", \"dtype\": \"NoSuchType\", \"In msg nelems\": 99999999999999999999, "
        "\"Group size\": -3, \"Process Group Name\": \"\", \"Process Group Ranks\": \"[\"",
    };
    for (size_t a = 0; a < sizeof args / sizeof *args; a++) {
        char json[2048];
        int n = snprintf(json, sizeof json,
                         "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                         "\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": 10, "
                         "\"dur\": 5, \"args\": {\"stream\": 20, \"correlation\": 3, %s}}]}",
                         args[a]);
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        CHECK_INT(kt_load_buffer("rank-0.json", json, (size_t)n, NULL, &t, &fail), KT_OK);
        kt_diags_free(fail);
        if (!t) continue;
        kt_tables *ts = NULL;
        CHECK_INT(kt_collectives(t, NULL, NULL, &ts), KT_OK);
        const kt_table *k = fx_table(ts, "kernels");
        CHECK_INT(kt_table_nrows(k), 1);
        CHECK_INT(kt_table_nrows(fx_table(ts, "unmatched")), 0);
        CHECK(kt_table_is_null(k, 0, 7)); /* In msg nelems: unusable in cases 0 and 2, absent in 1 */
        if (a == 0) CHECK_STR(kt_table_str(k, 0, 2), "stream"); /* a numeric PG name is no PG name */
        if (a == 1) {
            CHECK_STR(kt_table_str(k, 0, 5), "alltoallv");
            /* the rank list stops at "x": 1 float of the first split to rank 0 */
            CHECK_NEAR(fx_num(fx_table(ts, "all2allv_heatmap"), 0, "to rank 0 (bytes)"), 4, 0);
        }
        if (a == 2) {
            CHECK(kt_table_is_null(k, 0, 9)); /* Group size -3 */
            CHECK_STR(kt_table_str(k, 0, 5), "allreduce"); /* from the kernel name */
        }
        kt_tables_free(ts);
        CHECK_INT(kt_stragglers(t, NULL, NULL, &ts), KT_OK);
        kt_tables_free(ts);
        kt_trace_free(t);
    }
}
