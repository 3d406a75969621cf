/*
 * test_stream_ranks.c — `--stream-ranks` (one rank in memory at a time,
 * per-rank tables merged) prints byte for byte what the all-in-memory run
 * prints, and the reduce's pieces (concatenation, origin rebasing, the
 * partials' wire format) do what they promise, damaged input included.
 */
#include "test.h"
#include "fixture.h"
#include "kineta.h"
#include "table/table.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A job synthesized with kineta-synth's options opts into dir/job, or
 * NULL: skip.                                                            */
static const char *synth_job_of(char *dir, size_t cap, const char *opts)
{
    const char *synth = getenv("KINETA_SYNTH"), *bin = getenv("KINETA_BIN");
    if (!synth || !bin || access(synth, X_OK) || access(bin, X_OK)) {
        kt_test_skip("KINETA_SYNTH / KINETA_BIN not built");
        return NULL;
    }
    snprintf(dir, cap, "/tmp/kineta-test-stream-XXXXXX");
    if (!mkdtemp(dir)) return NULL;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s -o %s/job > /dev/null", synth, opts, dir);
    return system(cmd) == 0 ? bin : NULL;
}

/* A synthesized job (8 gzip ranks, ns timestamps, and the synthesizer's
 * truth.json beside them, which both paths must skip), or NULL: skip.    */
static const char *synth_job(char *dir, size_t cap)
{
    return synth_job_of(dir, cap, "--ranks 8 --size 300K --ns --gzip --seed 5");
}

/* stdout of a command (malloc'd) and its exit code. */
static char *capture(const char *cmd, int *rc)
{
    FILE *p = popen(cmd, "r");
    size_t n = 0, cap = 1 << 16;
    char *out = malloc(cap);
    for (size_t got; p && out && (got = fread(out + n, 1, cap - n - 1, p)) > 0;) {
        n += got;
        if (n + 1 == cap) out = realloc(out, cap *= 2);
    }
    if (out) out[n] = '\0';
    int st = p ? pclose(p) : -1;
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

/* Same stdout and exit code (want_rc; output expected only on 0) with and
 * without --stream-ranks. */
static void check_same(const char *bin, const char *args, const char *paths, int want_rc)
{
    char a[2048], b[2048];
    snprintf(a, sizeof a, "%s %s -q %s 2>/dev/null", bin, args, paths);
    snprintf(b, sizeof b, "%s %s -q --stream-ranks --jobs 3 %s 2>/dev/null", bin, args, paths);
    int ra, rb;
    char *oa = capture(a, &ra), *ob = capture(b, &rb);
    CHECK(oa && ob && (strlen(oa) > 0) == (want_rc == 0));
    if (oa && ob && strcmp(oa, ob)) kt_test_fail(__FILE__, __LINE__, "streamed output differs: %s", args);
    CHECK_INT(ra, want_rc);
    CHECK_INT(rb, want_rc);
    free(oa);
    free(ob);
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(stream_ranks_output_equals_in_memory)
{
    char dir[64], job[96];
    const char *bin = synth_job(dir, sizeof dir);
    if (!bin) return;
    snprintf(job, sizeof job, "%s/job", dir);
    static const char *const cmds[] = { "info", "temporal", "temporal --by-step", "idle", "overlap",
                                        "launch", "queue", "memcpy-bw", "annotations", "ops",
                                        "kernels", "kernels --by short --sort duration",
                                        "kernels --by category --sort total --memory",
                                        "kernels --by type --sort percentage",
                                        "kernels --by launcher --sort duration-percentage --pstep 1",
                                        "categories", "categories --top 4 --pstep 1 --verbose",
                                        "breakdown", "breakdown --num-kernels 2 --duration-ratio 0.5 --no-memory",
                                        "gaps", "gaps --linear --bins 7 --gap-sort count --pstep 1",
                                        "gaps --hist-min 2 --hist-max 50 --verbose" };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char args[128];
        snprintf(args, sizeof args, "%s --format json", cmds[i]);
        check_same(bin, args, job, 0);
        snprintf(args, sizeof args, "%s --format json --hta-compat", cmds[i]);
        check_same(bin, args, job, 0);
    }
    check_same(bin, "queue --format csv --table series --ranks 2,5", job, 0);
    check_same(bin, "temporal --format json --rank 9", job, 1); /* no such rank: exit 1 */
    check_same(bin, "kernels --format csv --ranks 1,6 --top 5", job, 0);
    check_same(bin, "kernels --format table", job, 0);
    check_same(bin, "kernels --format json --pstep 7", job, 1); /* no such step: exit 1 */
    check_same(bin, "categories --format csv --table op_categories --ranks 0,3", job, 0);
    check_same(bin, "breakdown --format csv --table kernel_type_by_rank --ranks 2,7", job, 0);
    check_same(bin, "gaps --format table --ranks 1,4", job, 0);
    remove_dir(dir);
}

TEST(stream_ranks_damaged_and_duplicate_files)
{
    char dir[64], paths[512];
    const char *bin = synth_job(dir, sizeof dir);
    if (!bin) return;
    char cmd[512];
    /* rank 3 cut in half: recovered with a warning, or refused, the same way */
    snprintf(cmd, sizeof cmd, "cd %s/job && head -c 20000 rank-3.json.gz > cut && mv cut rank-3.json.gz", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(paths, sizeof paths, "%s/job", dir);
    check_same(bin, "info --format json", paths, 0);
    check_same(bin, "temporal --format json", paths, 0);
    /* not a trace, named explicitly: an error on both paths */
    snprintf(paths, sizeof paths, "%s/job/rank-0.json.gz %s/job/truth.json", dir, dir);
    check_same(bin, "idle --format json", paths, 3);
    /* two files of one rank */
    snprintf(paths, sizeof paths, "--file-ranks 0,0 %s/job/rank-0.json.gz %s/job/rank-1.json.gz", dir, dir);
    check_same(bin, "idle --format json", paths, 3);
    remove_dir(dir);
}

/* A queue footnote counts changes over every rank (µs timestamps tie, so
 * each rank has some): mapped rank by rank, the ranks' counts add up to
 * the one load's, where the first rank's note alone was kept.          */
TEST(stream_ranks_footnotes_add_up)
{
    char dir[64], job[96];
    const char *bin = synth_job_of(dir, sizeof dir, "--ranks 3 --size 1M --seed 3");
    if (!bin) return;
    snprintf(job, sizeof job, "%s/job", dir);
    check_same(bin, "queue --format json", job, 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s queue --format json -q --stream-ranks %s 2>/dev/null", bin, job);
    int rc;
    char *out = capture(cmd, &rc);
    CHECK(out && strstr(out, "launch and GPU-start changes were merged") != NULL);
    free(out);
    remove_dir(dir);
}

/* A two-column table with an int, a float (unit us) and a null/string;
 * a counted footnote (base + 1) and a plain one.                         */
static kt_tables *small_tables(int64_t base)
{
    kt_table *t = kt_table_new("rows");
    kt_table_add_col(t, "rank", KT_COL_INT, 0);
    kt_table_add_col(t, "ts", KT_COL_FLOAT, 3);
    kt_table_set_unit(t, 1, "us");
    kt_table_add_col(t, "name", KT_COL_STR, 0);
    for (int64_t i = 0; i < 3; i++) {
        kt_table_add_row(t);
        kt_table_set_int(t, 0, base + i);
        kt_table_set_float(t, 1, (double)(base * 1000 + 12345 + i) / 1e3);
        if (i != 1) kt_table_set_str(t, 2, i ? "two" : "zero");
    }
    const int64_t n = base + 1;
    kt_table_add_count_note(t, "%lld rows merged (100%%)", 1, &n);
    kt_table_add_note(t, "said once");
    kt_tables *ts = NULL;
    CHECK_INT(kt_tables_from(&t, 1, &ts), KT_OK);
    return ts;
}

TEST(stream_tables_append_concatenates_in_order)
{
    kt_tables *acc = NULL;
    CHECK_INT(kt_tables_append(&acc, small_tables(0)), KT_OK);
    CHECK_INT(kt_tables_append(&acc, small_tables(10)), KT_OK);
    const kt_table *t = kt_tables_find(acc, "rows");
    CHECK_INT(kt_table_nrows(t), 6);
    CHECK_INT(kt_table_int(t, 4, 0), 11);
    CHECK(kt_table_is_null(t, 4, 2));
    CHECK_STR(kt_table_str(t, 5, 2), "two");
    CHECK_STR(kt_table_col_unit(t, 1), "us");
    CHECK_INT(kt_table_nnotes(t), 2); /* counted notes summed, plain ones once */
    CHECK_STR(kt_table_note(t, 0), "12 rows merged (100%)");
    CHECK_STR(kt_table_note(t, 1), "said once");
    /* a table whose columns differ cannot be concatenated */
    kt_table *other = kt_table_new("rows");
    kt_table_add_col(other, "rank", KT_COL_FLOAT, 3);
    kt_tables *bad = NULL;
    CHECK_INT(kt_tables_from(&other, 1, &bad), KT_OK);
    CHECK_INT(kt_tables_append(&acc, bad), KT_EANALYSIS);
    kt_tables_free(acc);
}

TEST(stream_rebase_is_exact)
{
    /* 12345 ns after an origin of 1000 ns = 13345 ns after origin 0 */
    kt_tables *ts = small_tables(0);
    CHECK_INT(kt_tables_rebase_us(ts, "rows", "ts", 1000, 0), KT_OK);
    const kt_table *t = kt_tables_find(ts, "rows");
    CHECK(kt_table_float(t, 0, 1) == 13345 / 1e3);
    CHECK(kt_table_float(t, 2, 1) == 13347 / 1e3);
    /* large ns values (a day in ns) come back exactly */
    kt_table *big = (kt_table *)t;
    int64_t day = 86400LL * 1000000000LL + 7;
    kt_table_put_float(big, 0, 1, (double)day / 1e3);
    CHECK_INT(kt_tables_rebase_us(ts, "rows", "ts", 3, 0), KT_OK);
    CHECK(kt_table_float(t, 0, 1) == (double)(day + 3) / 1e3);
    CHECK_INT(kt_tables_rebase_us(ts, "nope", "ts", 3, 0), KT_OK); /* absent: untouched */
    kt_tables_free(ts);
}

TEST(stream_partials_wire_round_trip_and_damage)
{
    kt_tables *ts = small_tables(4);
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK_INT(kt_tables_serialize(ts, &buf, &len), KT_OK);
    kt_tables *back = NULL;
    CHECK_INT(kt_tables_deserialize(buf, len, &back), KT_OK);
    const kt_table *a = kt_tables_find(ts, "rows"), *b = back ? kt_tables_find(back, "rows") : NULL;
    CHECK(b != NULL);
    for (size_t r = 0; b && r < 3; r++) {
        CHECK_INT(kt_table_int(b, r, 0), kt_table_int(a, r, 0));
        CHECK(kt_table_float(b, r, 1) == kt_table_float(a, r, 1));
        CHECK_INT(kt_table_is_null(b, r, 2), kt_table_is_null(a, r, 2));
    }
    if (b) CHECK_STR(kt_table_col_unit(b, 1), "us");
    CHECK_INT(kt_table_nnotes(b), 2);
    const char *fmt = NULL;
    size_t ncounts = 0;
    const int64_t *counts = NULL;
    CHECK(kt_table_note_counts(b, 0, &fmt, &ncounts, &counts) && ncounts == 1 && counts[0] == 5);
    CHECK_STR(kt_table_note(b, 0), "5 rows merged (100%)");
    CHECK_STR(kt_table_note(b, 1), "said once");
    kt_tables_free(back);
    /* every truncation and a flipped magic are refused, never read past */
    for (size_t n = 0; n < len; n++) {
        kt_tables *cut = NULL;
        CHECK_INT(kt_tables_deserialize(buf, n, &cut), KT_EINPUT);
        CHECK(cut == NULL);
    }
    buf[0] ^= 1;
    CHECK_INT(kt_tables_deserialize(buf, len, &back), KT_EINPUT);
    free(buf);
    kt_tables_free(ts);
}
