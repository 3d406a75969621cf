/* test_collectives_synth.c — `collectives` and `stragglers` on kineta-synth
 * --collectives traces against the generator's truth.json, to the
 * nanosecond: matching (every instance complete, none unmatched), clock
 * offsets, per-instance waits, skews and latencies, per-rank waits and
 * arrival counts, and the straggler verdicts (a late rank, a slow rank).   */
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct synth_run {
    char dir[64];
    char *truth;
    kt_trace *t;
} synth_run;

static bool synth_load(synth_run *s, const char *args)
{
    const char *synth = getenv("KINETA_SYNTH");
    memset(s, 0, sizeof *s);
    if (!synth || access(synth, X_OK) != 0) {
        kt_test_skip("kineta-synth not built (KINETA_SYNTH)");
        return false;
    }
    char cmd[1024], path[1100];
    snprintf(s->dir, sizeof s->dir, "/tmp/kineta-test-coll-XXXXXX");
    CHECK(mkdtemp(s->dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s %s -o %s/trace > /dev/null", synth, args, s->dir);
    CHECK_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/trace/truth.json", s->dir);
    s->truth = fx_read_file(path, NULL);
    snprintf(path, sizeof path, "%s/trace/rank-*", s->dir);
    glob_t g;
    CHECK_INT(glob(path, 0, NULL, &g), 0);
    kt_diags *fail = NULL;
    CHECK_INT(kt_load((const char *const *)g.gl_pathv, g.gl_pathc, NULL, &s->t, &fail), KT_OK);
    kt_diags_free(fail);
    globfree(&g);
    return s->truth && s->t;
}

static void synth_free(synth_run *s)
{
    char cmd[128];
    kt_trace_free(s->t);
    free(s->truth);
    snprintf(cmd, sizeof cmd, "rm -rf %s", s->dir);
    CHECK_INT(system(cmd), 0);
}

/* Integer after "name": in text (the idx-th element of a list). */
static int64_t field(const char *obj, const char *name, int idx)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *p = obj ? strstr(obj, key) : NULL;
    if (!p) return INT64_MIN;
    p += strlen(key);
    if (*p == '"') p++;
    if (*p == '[') {
        p++;
        for (int i = 0; i < idx; i++) p = strchr(p, ',') + 1;
    }
    return strtoll(p, NULL, 10);
}

/* The integers of the list "name": [a, b, ...]; returns how many. */
static int int_list(const char *obj, const char *name, int64_t *v, int cap)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": [", name);
    const char *p = strstr(obj, key);
    int n = 0;
    for (p = p ? p + strlen(key) : ""; *p && *p != ']' && n < cap;) {
        char *end;
        v[n++] = strtoll(p, &end, 10);
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    return n;
}

static int64_t ns(double us)
{
    return (int64_t)llround(us * 1e3);
}

/* Row of table tb whose int column col is v, or -1. */
static long row_where(const kt_table *tb, const char *col, int64_t v)
{
    long c = kt_table_col_index(tb, col);
    for (size_t i = 0; c >= 0 && i < kt_table_nrows(tb); i++)
        if (kt_table_int(tb, i, (size_t)c) == v) return (long)i;
    return -1;
}

static void check_offsets(const synth_run *s, const kt_tables *ts)
{
    const char *c = strstr(s->truth, "\"collectives\"");
    const kt_table *tb = fx_table(ts, "clock_offsets");
    CHECK(c != NULL);
    for (size_t r = 0; c && r < s->t->nranks; r++) {
        long row = row_where(tb, "rank", (int64_t)r);
        CHECK(row >= 0);
        CHECK_INT(ns(fx_num(tb, (size_t)row, "offset_us")), field(c, "clock_offset_ns", (int)r));
        CHECK_INT(ns(fx_num(tb, (size_t)row, "spread_us")), 0); /* all ranks leave together */
    }
}

static void check_per_rank(const synth_run *s, const kt_tables *ts)
{
    const char *p = strstr(s->truth, "\"per_rank\"");
    const kt_table *tb = fx_table(ts, "stragglers");
    for (size_t r = 0; p && r < s->t->nranks; r++) {
        char key[32];
        snprintf(key, sizeof key, "{\"rank\": %zu,", r);
        const char *o = strstr(p, key);
        long row = row_where(tb, "rank", (int64_t)r);
        CHECK(o != NULL && row >= 0);
        if (!o || row < 0) return;
        CHECK_INT(ns(fx_num(tb, (size_t)row, "total_wait_time_us")), field(o, "total_wait_ns", 0));
        CHECK_INT(fx_num(tb, (size_t)row, "times_arrived_last"), field(o, "arrived_last", 0));
        CHECK_INT(fx_num(tb, (size_t)row, "times_arrived_first"), field(o, "arrived_first", 0));
        CHECK_INT(fx_num(tb, (size_t)row, "num_collectives"), field(o, "implicit_sync", 0));
    }
}

/* One truth instance against its implicit_sync row ("<pg>_<seq>"). */
static void check_instance(const kt_table *tb, const char *o, size_t *checked)
{
    char id[64];
    const char *pg = strstr(o, "\"pg\": \"");
    snprintf(id, sizeof id, "%lld_%lld", (long long)field(pg, "pg", 0), (long long)field(o, "seq", 0));
    long row = fx_row(tb, "collective_id", id, -1);
    CHECK(row >= 0);
    if (row < 0) return;
    int64_t ranks[64], start[64], max = INT64_MIN, min = INT64_MAX;
    int n = int_list(o, "ranks", ranks, 64);
    CHECK_INT(int_list(o, "start_ns", start, 64), n);
    for (int i = 0; i < n; i++) {
        max = start[i] > max ? start[i] : max;
        min = start[i] < min ? start[i] : min;
    }
    CHECK_INT(ns(fx_num(tb, (size_t)row, "skew in start time")), max - min);
    CHECK_INT(ns(fx_num(tb, (size_t)row, "skew in end time")), 0);
    CHECK_INT(ns(fx_num(tb, (size_t)row, "comm_latency")), field(o, "latency_ns", 0));
    CHECK_INT(fx_num(tb, (size_t)row, "latest arrival rank"), field(o, "last_rank", 0));
    CHECK_INT(fx_num(tb, (size_t)row, "earliest arrival rank"), field(o, "first_rank", 0));
    for (int i = 0; i < n; i++) {
        char col[64];
        snprintf(col, sizeof col, "rank_%lld_wait_time", (long long)ranks[i]);
        CHECK_INT(ns(fx_num(tb, (size_t)row, col)), max - start[i]);
    }
    (*checked)++;
}

static size_t check_instances(const synth_run *s, const kt_tables *ts)
{
    const kt_table *tb = fx_table(ts, "implicit_sync");
    size_t checked = 0, want = 0;
    for (const char *o = strstr(s->truth, "{\"slot\": "); o; o = strstr(o + 1, "{\"slot\": ")) {
        const char *end = strchr(o, '}');
        char obj[8192];
        size_t len = (size_t)(end - o) < sizeof obj - 1 ? (size_t)(end - o) : sizeof obj - 1;
        memcpy(obj, o, len);
        obj[len] = 0;
        if (!strstr(obj, "\"implicit_sync\": true")) continue;
        want++;
        check_instance(tb, obj, &checked);
    }
    CHECK(want > 0);
    CHECK_INT(checked, want);
    CHECK_INT(kt_table_nrows(tb), want);
    return checked;
}

TEST(collectives_synth_skew_straggler_match_truth)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 3 --clock-skew 500 --straggler 2:800")) {
        synth_free(&s);
        return;
    }
    kt_tables *ts;
    CHECK_INT(kt_collectives(s.t, NULL, NULL, &ts), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "unmatched")), 0);
    check_offsets(&s, ts);
    check_per_rank(&s, ts);
    check_instances(&s, ts);
    /* every rank of 4 has a record for every kernel: 3 steps x slots */
    const kt_table *ranks = fx_table(ts, "ranks");
    CHECK_INT(fx_num(ranks, 0, "with_seq"), fx_num(ranks, 0, "comm_kernels"));
    CHECK_INT(kt_table_nrows(fx_table(ts, "all2allv")), 3);
    /* each heatmap row sums the rank's bytes over the all-to-all-v rows */
    const kt_table *a2a = fx_table(ts, "all2allv"), *hm = fx_table(ts, "all2allv_heatmap");
    for (size_t r = 0; r < 4; r++) {
        char col[32];
        double sent = 0, row = 0;
        snprintf(col, sizeof col, "rank_%zu_bytes", r);
        for (size_t i = 0; i < kt_table_nrows(a2a); i++) sent += fx_num(a2a, i, col);
        for (size_t d = 1; d < kt_table_ncols(hm); d++) row += kt_table_float(hm, r, d);
        CHECK(sent > 0);
        CHECK_NEAR(row, sent, 0);
    }
    kt_tables_free(ts);

    CHECK_INT(kt_stragglers(s.t, NULL, NULL, &ts), KT_OK);
    const kt_table *v = fx_table(ts, "verdict");
    CHECK_INT(kt_table_nrows(v), 1);
    CHECK_INT(fx_num(v, 0, "rank"), 2);
    CHECK_STR(kt_table_str(v, 0, 1), "arrives last");
    kt_tables_free(ts);
    synth_free(&s);
}

/* Without alignment the waits carry the clock offsets: rank 1's clock is
 * 352 µs behind, so the raw skews differ from the truth's.               */
TEST(collectives_synth_align_none_keeps_clock_offsets)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 2 --clock-skew 500")) {
        synth_free(&s);
        return;
    }
    kt_collectives_options o = kt_collectives_defaults();
    kt_tables *aligned, *raw;
    CHECK_INT(kt_collectives(s.t, NULL, &o, &aligned), KT_OK);
    o.align = KT_ALIGN_NONE;
    CHECK_INT(kt_collectives(s.t, NULL, &o, &raw), KT_OK);
    const kt_table *a = fx_table(aligned, "implicit_sync"), *r = fx_table(raw, "implicit_sync");
    const kt_table *off = fx_table(raw, "clock_offsets");
    CHECK_INT(kt_table_nrows(a), kt_table_nrows(r));
    /* end skew: 0 aligned, the offsets' spread raw */
    double lo = 1e300, hi = -1e300;
    for (size_t i = 0; i < kt_table_nrows(off); i++) {
        lo = fmin(lo, fx_num(off, i, "offset_us"));
        hi = fmax(hi, fx_num(off, i, "offset_us"));
    }
    CHECK_INT(fx_num(off, 0, "applied"), 0);
    CHECK_INT(ns(fx_num(a, 0, "skew in end time")), 0);
    if (kt_table_nrows(r) && fx_num(r, 0, "ranks") == 4) CHECK_INT(ns(fx_num(r, 0, "skew in end time")), ns(hi - lo));
    kt_tables_free(aligned);
    kt_tables_free(raw);
    synth_free(&s);
}

/* TraceLens's matching (position in the process group) finds the same
 * instances as Seq when no rank misses one.                               */
TEST(collectives_synth_position_matching_equals_seq)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 2 --ns --collectives")) {
        synth_free(&s);
        return;
    }
    kt_collectives_options o = kt_collectives_defaults();
    kt_tables *seq, *pos;
    CHECK_INT(kt_collectives(s.t, NULL, &o, &seq), KT_OK);
    o.tracelens = 1;
    CHECK_INT(kt_collectives(s.t, NULL, &o, &pos), KT_OK);
    const kt_table *a = fx_table(seq, "implicit_sync"), *b = fx_table(pos, "implicit_sync");
    CHECK_INT(kt_table_nrows(a), kt_table_nrows(b));
    CHECK(kt_table_nrows(a) > 0);
    CHECK_STR(kt_table_str(a, 0, 1), "seq");
    CHECK_STR(kt_table_str(b, 0, 1), "position");
    for (size_t i = 0; i < kt_table_nrows(a) && i < kt_table_nrows(b); i++)
        CHECK_NEAR(fx_num(a, i, "skew in start time"), fx_num(b, i, "skew in start time"), 0);
    CHECK_INT(kt_table_nrows(fx_table(pos, "unmatched")), 0);
    kt_tables_free(seq);
    kt_tables_free(pos);
    synth_free(&s);
}

TEST(collectives_synth_slow_rank_verdict)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 3 --slow-rank 1:40")) {
        synth_free(&s);
        return;
    }
    kt_tables *ts;
    CHECK_INT(kt_stragglers(s.t, NULL, NULL, &ts), KT_OK);
    const kt_table *v = fx_table(ts, "verdict"), *c = fx_table(ts, "compute");
    long row = fx_row(v, "verdict", "slow compute", -1);
    CHECK(row >= 0);
    if (row >= 0) CHECK_INT(fx_num(v, (size_t)row, "rank"), 1);
    CHECK_INT(kt_table_nrows(v), 1 + (fx_row(v, "verdict", "arrives last", -1) >= 0));
    /* the slow rank's compute time per step is its truth total / steps */
    for (size_t r = 0; r < kt_table_nrows(c); r++) {
        char key[32];
        snprintf(key, sizeof key, "\"rank\": %d,", (int)fx_num(c, r, "rank"));
        const char *o = strstr(s.truth, key);
        CHECK_NEAR(fx_num(c, r, "compute_us_per_step") * 3, field(o, "compute_kernel_ns", 0) / 1e3, 1e-6);
    }
    kt_tables_free(ts);
    synth_free(&s);
}

/* One step and a 7% slower rank among 8: no verdict, "inconclusive" with
 * the numbers; the thresholds lowered, the same evidence is a verdict.   */
TEST(stragglers_synth_small_effect_is_inconclusive)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 8 --steps 1 --slow-rank 4:7")) {
        synth_free(&s);
        return;
    }
    kt_stragglers_options o = kt_stragglers_defaults();
    o.z_threshold = 1.0; /* rank 4 is an outlier by z alone */
    kt_tables *ts;
    CHECK_INT(kt_stragglers(s.t, NULL, &o, &ts), KT_OK);
    const kt_table *v = fx_table(ts, "verdict"), *c = fx_table(ts, "compute");
    long c4 = row_where(c, "rank", 4);
    CHECK(c4 >= 0 && fx_num(c, (size_t)c4, "robust_z") > 1.0);
    CHECK_INT(fx_row(v, "verdict", "slow compute", -1), -1);
    CHECK_INT(fx_row(v, "verdict", "arrives last", -1), -1); /* 5 collectives < 10 */
    long r4 = -1;
    for (size_t i = 0; i < kt_table_nrows(v); i++)
        if (!kt_table_is_null(v, i, 0) && fx_num(v, i, "rank") == 4) r4 = (long)i;
    CHECK(r4 >= 0);
    if (r4 >= 0) {
        CHECK_STR(kt_table_str(v, (size_t)r4, 1), "inconclusive");
        CHECK_STR(kt_table_str(v, (size_t)r4, 3), "compute");
        CHECK(strstr(kt_table_str(v, (size_t)r4, 2), "over 1 steps") != NULL);
        CHECK(strstr(kt_table_str(v, (size_t)r4, 2), "(min_steps)") != NULL);
        CHECK(strstr(kt_table_str(v, (size_t)r4, 2), "(min_effect_pct)") != NULL);
    }
    CHECK_INT(kt_table_nnotes(v), 4); /* thresholds, arrivals, compute, HTA */
    CHECK(strstr(kt_table_note(v, 3), "hta_stragglers (ranks ") == kt_table_note(v, 3));
    kt_tables_free(ts);
    o.min_steps = 1;
    o.min_effect_pct = 0;
    CHECK_INT(kt_stragglers(s.t, NULL, &o, &ts), KT_OK);
    v = fx_table(ts, "verdict");
    long slow = fx_row(v, "verdict", "slow compute", -1);
    CHECK(slow >= 0);
    kt_tables_free(ts);
    synth_free(&s);
}

/* --gpus-per-node: the half-world reducescatter groups of 8 ranks on 2
 * nodes of 4 stay on one node, the world collectives span both.          */
TEST(collectives_synth_gpus_per_node)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 8 --steps 1 --collectives")) {
        synth_free(&s);
        return;
    }
    kt_collectives_options o = kt_collectives_defaults();
    o.gpus_per_node = 4;
    kt_tables *ts;
    CHECK_INT(kt_collectives(s.t, NULL, &o, &ts), KT_OK);
    const kt_table *tb = fx_table(ts, "implicit_sync");
    size_t intra = 0, inter = 0;
    for (size_t i = 0; i < kt_table_nrows(tb); i++) {
        bool half = fx_num(tb, i, "Group size") == 4;
        CHECK_INT(fx_num(tb, i, "node_span"), half ? 1 : 2);
        CHECK_INT(fx_num(tb, i, "intra_node"), half);
        intra += half;
        inter += !half;
    }
    CHECK_INT(intra, 2); /* one reducescatter per half */
    CHECK(inter > 0);
    const kt_table *st = fx_table(ts, "stragglers");
    for (size_t i = 0; i < kt_table_nrows(st); i++) CHECK_INT(fx_num(st, i, "node_id"), fx_num(st, i, "rank") / 4);
    kt_tables_free(ts);
    synth_free(&s);
}

/* New NCCL names (ncclDevKernel_*): HTA's metric under --hta-compat finds
 * no communication kernel (its [BUG]) and says why; the default metric
 * finds them and flags the late rank.                                     */
TEST(stragglers_synth_hta_names_miss_new_nccl)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 3 --straggler 3:900")) {
        synth_free(&s);
        return;
    }
    kt_stragglers_options o = kt_stragglers_defaults();
    o.candidates = 1;
    kt_tables *ts;
    CHECK_INT(kt_stragglers(s.t, NULL, &o, &ts), KT_OK);
    const kt_table *h = fx_table(ts, "hta_stragglers");
    CHECK_INT(kt_table_nrows(h), 1);
    CHECK_INT(fx_num(h, 0, "rank"), 3);
    kt_tables_free(ts);
    s.t->hta_compat = true; /* only the comm-kernel name rule differs here */
    CHECK_INT(kt_stragglers(s.t, NULL, &o, &ts), KT_EANALYSIS);
    s.t->hta_compat = false;
    synth_free(&s);
}

/* Keep only rank r's events that start at or after `from` and end by `to`
 * (a profiler started late or stopped early), then re-index.              */
static void cut_rank(kt_trace *t, kt_rank *r, int64_t from, int64_t to)
{
    uint32_t *keep = malloc(r->ev.n * sizeof *keep);
    size_t n = 0;
    for (uint32_t i = 0; keep && i < r->ev.n; i++)
        if (r->ev.ts[i] >= from && r->ev.ts[i] + (r->ev.dur[i] > 0 ? r->ev.dur[i] : 0) <= to) keep[n++] = i;
    CHECK(keep && kt_events_select(&r->ev, keep, n, 1));
    free(keep);
    kt_summary_scan(r, t->strs);
    CHECK_INT(kt_index_build(r, t->strs), KT_OK);
}

/* Start of the k-th communication kernel of a rank, from its end (k < 0). */
static int64_t comm_kernel_ts(const kt_rank *r, const kt_strtab *strs, int k)
{
    int64_t ts[4096];
    int n = 0;
    for (uint32_t i = 0; i < r->ev.n && n < 4096; i++)
        if (r->ev.kind[i] == KT_K_KERNEL && kt_starts_with(kt_strtab_get(strs, r->ev.name[i]), "ncclDevKernel"))
            ts[n++] = r->ev.ts[i];
    for (int i = 1; i < n; i++) /* insertion sort: a few dozen kernels */
        for (int j = i; j > 0 && ts[j] < ts[j - 1]; j--) {
            int64_t x = ts[j];
            ts[j] = ts[j - 1];
            ts[j - 1] = x;
        }
    return k >= 0 ? ts[k] : ts[n + k];
}

/* Rank 2's profiler starts at its 4th collective, rank 3's stops before its
 * last 2: Seq matching keeps every other instance exact and reports the 6
 * instances that lost a rank, never pairing the wrong kernels.            */
TEST(collectives_synth_ranks_start_and_end_mid_run)
{
    synth_run s;
    if (!synth_load(&s, "--ranks 4 --steps 3 --clock-skew 300")) {
        synth_free(&s);
        return;
    }
    kt_rank *r2 = s.t->ranks[2], *r3 = s.t->ranks[3];
    cut_rank(s.t, r2, comm_kernel_ts(r2, s.t->strs, 4), INT64_MAX);
    cut_rank(s.t, r3, INT64_MIN, comm_kernel_ts(r3, s.t->strs, -2));
    kt_tables *ts;
    CHECK_INT(kt_collectives(s.t, NULL, NULL, &ts), KT_OK);
    const kt_table *un = fx_table(ts, "unmatched"), *sync = fx_table(ts, "implicit_sync");
    CHECK_INT(kt_table_nrows(un), 4 + 2);
    for (size_t i = 0; i < kt_table_nrows(un); i++) {
        CHECK_STR(kt_table_str(un, i, 5), "missing ranks");
        CHECK_STR(kt_table_str(un, i, 1), "seq");
    }
    check_offsets(&s, ts);
    /* every implicit-sync row still matches its truth instance exactly */
    size_t checked = 0;
    for (const char *o = strstr(s.truth, "{\"slot\": "); o; o = strstr(o + 1, "{\"slot\": ")) {
        char obj[8192], id[64];
        size_t len = (size_t)(strchr(o, '}') - o);
        len = len < sizeof obj - 1 ? len : sizeof obj - 1;
        memcpy(obj, o, len);
        obj[len] = 0;
        snprintf(id, sizeof id, "%lld_%lld", (long long)field(strstr(obj, "\"pg\": \""), "pg", 0),
                 (long long)field(obj, "seq", 0));
        if (strstr(obj, "\"implicit_sync\": true") && fx_row(sync, "collective_id", id, -1) >= 0)
            check_instance(sync, obj, &checked);
    }
    CHECK_INT(checked, kt_table_nrows(sync));
    CHECK(checked > 10);
    kt_tables_free(ts);
    synth_free(&s);
}
