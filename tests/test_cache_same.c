/* test_cache_same.c — a trace mapped from the columnar cache is the trace
 * as parsed: every shared trace gives the same model (columns, args, ids,
 * strings, counts, reports, indexes) and the same tables (info, kernels, temporal,
 * idle, launch, queue, counters; as written and under --hta-compat) from
 * its cache file as from its JSON, alone and beside other ranks (whose
 * strings give it other string ids than its cache file's).             */
#include "../programs/cli.h"
#include "fixture.h"
#include "model/index.h"
#include "model_compare.h"
#include "oracle.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static kt_status load_opt(const char *const *paths, size_t n, const char *cache_dir, bool compat,
                          kt_trace **t)
{
    kt_load_options o = { .size = sizeof o, .hta_compat = compat, .cache_dir = cache_dir };
    kt_diags *fail = NULL;
    kt_status st = kt_load(paths, n, &o, t, &fail);
    kt_diags_free(fail);
    return st;
}

static char *cache_dir_new(void)
{
    char *dir = strdup("/tmp/kineta-test-cache-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    return dir;
}

static void cache_dir_free(char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
    free(dir);
}

static bool all_mapped(const kt_trace *t)
{
    for (size_t i = 0; i < t->nranks; i++)
        if (!t->ranks[i]->cache_map) return false;
    return t->nranks > 0;
}

static bool same_strids(const kt_trace *a, const uint32_t *x, const kt_trace *b, const uint32_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((x[i] == KT_NONE) != (y[i] == KT_NONE) ||
            (x[i] != KT_NONE && strcmp(kt_strtab_get(a->strs, x[i]), kt_strtab_get(b->strs, y[i]))))
            return false;
    return true;
}

/* What kt_check_same_model leaves out: file facts, the id columns as
 * stored, the id table, raw categories, devices, backend. */
static void check_same_rank_facts(const kt_trace *a, const kt_rank *x, const kt_trace *b, const kt_rank *y)
{
    CHECK_INT(x->rank, y->rank);
    CHECK_STR(x->file, y->file);
    CHECK_INT(x->gzip, y->gzip);
    CHECK_INT(x->file_bytes, y->file_bytes);
    CHECK_INT(x->json_bytes, y->json_bytes);
    CHECK_INT(x->ns_resolution, y->ns_resolution);
    CHECK_INT(x->schema_version, y->schema_version);
    CHECK_INT(x->has_base_time, y->has_base_time);
    CHECK_INT(x->base_time_ns, y->base_time_ns);
    CHECK_INT(x->ids.n, y->ids.n);
    if (x->ev.n == y->ev.n) {
        size_t n = x->ev.n;
        CHECK(!memcmp(x->ev.corr, y->ev.corr, n * sizeof *x->ev.corr));
        CHECK(!memcmp(x->ev.ext_id, y->ev.ext_id, n * sizeof *x->ev.ext_id));
        CHECK(!memcmp(x->ev.thread, y->ev.thread, n * sizeof *x->ev.thread));
        CHECK_INT(x->ev.nthreads, y->ev.nthreads);
        CHECK(!memcmp(x->ev.threads, y->ev.threads, x->ev.nthreads * sizeof *x->ev.threads));
    }
    CHECK_INT(x->nxcat, y->nxcat);
    if (x->nxcat == y->nxcat) {
        CHECK(same_strids(a, x->xcat_id, b, y->xcat_id, x->nxcat));
        CHECK(!memcmp(x->xcat_count, y->xcat_count, x->nxcat * sizeof *x->xcat_count));
    }
    CHECK_INT(x->ndevices, y->ndevices);
    if (x->ndevices == y->ndevices) CHECK(same_strids(a, x->device_names, b, y->device_names, x->ndevices));
    CHECK(same_strids(a, &x->backend, b, &y->backend, 1));
}

static bool same_steps(const kt_step *a, const kt_step *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].num != b[i].num || a[i].ev != b[i].ev || a[i].ts != b[i].ts || a[i].dur != b[i].dur) return false;
    return true;
}

/* The indexes restored from the cache file are the ones built after parsing. */
static void check_same_index(const kt_rank *x, const kt_rank *y)
{
    const kt_index *a = x->idx, *b = y->idx;
    CHECK(a && b);
    if (!a || !b) return;
    CHECK_INT(a->nstreams, b->nstreams);
    for (size_t i = 0; i < a->nstreams && i < b->nstreams; i++) {
        CHECK_INT(a->streams[i].device, b->streams[i].device);
        CHECK_INT(a->streams[i].stream, b->streams[i].stream);
        CHECK_INT(a->streams[i].n, b->streams[i].n);
        if (a->streams[i].n == b->streams[i].n)
            CHECK(!memcmp(a->streams[i].ev, b->streams[i].ev, a->streams[i].n * sizeof *a->streams[i].ev));
    }
    CHECK(!memcmp(a->link, b->link, x->ev.n * sizeof *a->link));
    CHECK_INT(a->launched_len, b->launched_len);
    if (a->launched_len == b->launched_len) CHECK(!memcmp(a->launched, b->launched, a->launched_len * 4));
    CHECK_INT(a->ncpu_steps, b->ncpu_steps);
    CHECK_INT(a->ngpu_steps, b->ngpu_steps);
    if (a->ncpu_steps == b->ncpu_steps) CHECK(same_steps(a->cpu_steps, b->cpu_steps, a->ncpu_steps));
    if (a->ngpu_steps == b->ngpu_steps) CHECK(same_steps(a->gpu_steps, b->gpu_steps, a->ngpu_steps));
    CHECK_INT(a->cpu_step_maxdur, b->cpu_step_maxdur);
    CHECK_INT(a->gpu_step_maxdur, b->gpu_step_maxdur);
}

TEST(cache_maps_the_same_model_for_every_shared_trace)
{
    NEED_SHARED();
    size_t n = 0, compared = 0;
    char **files = fx_shared_trace_files(&n);
    char *dir = cache_dir_new();
    for (size_t i = 0; i < n; i++) {
        const char *p[] = { files[i] };
        kt_trace *fresh = NULL, *written = NULL, *mapped = NULL;
        kt_status st = load_opt(p, 1, NULL, false, &fresh);
        CHECK_INT(load_opt(p, 1, dir, false, &written), st);
        CHECK_INT(load_opt(p, 1, dir, false, &mapped), st);
        if (st == KT_OK && fresh && written && mapped) {
            CHECK(!written->ranks[0]->cache_map);
            CHECK(all_mapped(mapped));
            kt_check_same_model(fresh, mapped, true);
            check_same_rank_facts(fresh, fresh->ranks[0], mapped, mapped->ranks[0]);
            check_same_index(fresh->ranks[0], mapped->ranks[0]);
            compared++;
        }
        kt_trace_free(fresh);
        kt_trace_free(written);
        kt_trace_free(mapped);
    }
    CHECK(compared >= 30);
    cache_dir_free(dir);
    fx_free_paths(files, n);
}

/* ---- tables ------------------------------------------------------------------- */
static char *csv_of(const kt_tables *ts)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; ts && i < kt_tables_count(ts); i++) print_table_csv(kt_tables_get(ts, i), f);
    fclose(f);
    return buf;
}

static kt_status run_kernels(const kt_trace *t, kt_tables **out)
{
    kt_kernels_options o = kt_kernels_defaults();
    o.top = 0;
    return kt_kernels(t, NULL, &o, out);
}
static kt_status run_info(const kt_trace *t, kt_tables **out) { return kt_info(t, NULL, out); }
static kt_status run_temporal(const kt_trace *t, kt_tables **out) { return kt_temporal(t, NULL, NULL, out); }
static kt_status run_idle(const kt_trace *t, kt_tables **out) { return kt_idle(t, NULL, NULL, out); }
static kt_status run_launch(const kt_trace *t, kt_tables **out) { return kt_launch(t, NULL, NULL, out); }
static kt_status run_queue(const kt_trace *t, kt_tables **out) { return kt_queue(t, NULL, NULL, out); }

typedef kt_status (*analysis)(const kt_trace *t, kt_tables **out);
static const analysis analyses[] = { run_info, run_kernels, run_temporal, run_idle, run_launch, run_queue };

static void check_same_tables(const kt_trace *a, const kt_trace *b, const char *what)
{
    for (size_t k = 0; k < sizeof analyses / sizeof *analyses; k++) {
        kt_tables *x = NULL, *y = NULL;
        kt_status sx = analyses[k](a, &x), sy = analyses[k](b, &y);
        CHECK_INT(sx, sy);
        char *cx = csv_of(x), *cy = csv_of(y);
        if (strcmp(cx, cy)) kt_test_fail(__FILE__, __LINE__, "%s: analysis %zu differs with the cache", what, k);
        free(cx);
        free(cy);
        kt_tables_free(x);
        kt_tables_free(y);
    }
}

/* The counters command copies the input with its counters added: the same
 * bytes from a mapped trace (events_end, raw text read from the input).  */
static void check_same_counters(const kt_trace *a, const kt_trace *b, const char *cache)
{
    char da[256], db[256], cmd[2200];
    snprintf(da, sizeof da, "%s/counters-a", cache);
    snprintf(db, sizeof db, "%s/counters-b", cache);
    CHECK(mkdir(da, 0700) == 0 && mkdir(db, 0700) == 0);
    kt_counters_options oa = { .size = sizeof oa, .out_dir = da }, ob = { .size = sizeof ob, .out_dir = db };
    kt_tables *x = NULL, *y = NULL;
    CHECK_INT(kt_counters(a, NULL, &oa, &x, NULL), KT_OK);
    CHECK_INT(kt_counters(b, NULL, &ob, &y, NULL), KT_OK);
    const kt_table *tx = fx_table(x, "files"), *ty = fx_table(y, "files");
    CHECK_INT(kt_table_nrows(tx), kt_table_nrows(ty));
    CHECK_INT(fx_num(tx, 0, "counter_events"), fx_num(ty, 0, "counter_events"));
    CHECK_INT(fx_num(tx, 0, "uncompressed_bytes"), fx_num(ty, 0, "uncompressed_bytes"));
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null && rm -rf '%s' '%s'", da, db, da, db);
    CHECK_INT(system(cmd), 0);
    kt_tables_free(x);
    kt_tables_free(y);
}

static const char *const table_traces[] = {
    "traces/hta/trace_filter",                /* two ranks: string ids remapped */
    "traces/hta/ns_resolution_trace",         /* compat rounds its times         */
    "traces/hta/amd_trace",
    "traces/hta/negative_queue_length_values_check",
    "traces/hta/nccl_parser_config",
    "traces/hta/mtia_trace_single_rank",
    "traces/tracelens/h100",                  /* several files, one directory    */
    "traces/legacy_tbplugin_resnet50.pt.trace.json.gz",
};

TEST(cache_gives_the_same_tables_as_parsing)
{
    NEED_SHARED();
    char *dir = cache_dir_new();
    for (size_t i = 0; i < sizeof table_traces / sizeof *table_traces; i++)
        for (int compat = 0; compat <= 1; compat++) {
            const char *p[] = { kt_test_shared_path(table_traces[i]) };
            kt_trace *fresh = NULL, *written = NULL, *mapped = NULL;
            kt_status st = load_opt(p, 1, NULL, compat, &fresh);
            CHECK_INT(load_opt(p, 1, dir, compat, &written), st);
            CHECK_INT(load_opt(p, 1, dir, compat, &mapped), st);
            if (st == KT_OK && fresh && mapped) {
                CHECK(all_mapped(mapped));
                CHECK_INT(mapped->nranks, fresh->nranks);
                CHECK_INT(mapped->min_ts, fresh->min_ts);
                check_same_tables(fresh, mapped, table_traces[i]);
                check_same_tables(fresh, written, table_traces[i]);
                if (!compat) check_same_counters(fresh, mapped, dir);
            }
            kt_trace_free(fresh);
            kt_trace_free(written);
            kt_trace_free(mapped);
        }
    cache_dir_free(dir);
}

/* A rank's cache file read beside other ranks: its strings get ids the
 * other ranks' strings leave free, so its columns are rewritten. */
TEST(cache_remaps_string_ids_beside_other_ranks)
{
    NEED_SHARED();
    char *dir = cache_dir_new();
    const char *d = kt_test_shared_path("traces/hta/trace_filter");
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/sampled_rank-0.json.gz", d);
    snprintf(b, sizeof b, "%s/sampled_rank-1.json.gz", d);
    const char *only_b[] = { b }, *both[] = { a, b };
    kt_trace *t1 = NULL, *fresh = NULL, *mixed = NULL;
    CHECK_INT(load_opt(only_b, 1, dir, false, &t1), KT_OK); /* rank 1 cached alone */
    CHECK_INT(load_opt(both, 2, NULL, false, &fresh), KT_OK);
    /* one thread: rank 0 parsed first, then rank 1 mapped after its strings */
    kt_load_options o = { .size = sizeof o, .jobs = 1, .cache_dir = dir };
    kt_diags *fail = NULL;
    CHECK_INT(kt_load(both, 2, &o, &mixed, &fail), KT_OK);
    kt_diags_free(fail);
    if (mixed && fresh && mixed->nranks == 2) {
        CHECK(!mixed->ranks[0]->cache_map);
        CHECK(mixed->ranks[1]->cache_map != NULL);
        check_same_tables(fresh, mixed, "rank 1 mapped beside rank 0");
    }
    kt_trace_free(t1);
    kt_trace_free(fresh);
    kt_trace_free(mixed);
    cache_dir_free(dir);
}

/* A cache file written under --hta-compat (the model as parsed, no indexes:
 * compat builds them after filtering) serves a plain run, and the reverse. */
TEST(cache_is_shared_by_plain_and_hta_compat_runs)
{
    NEED_SHARED();
    const char *p[] = { kt_test_shared_path("traces/hta/ns_resolution_trace") };
    for (int first = 0; first <= 1; first++) {
        char *dir = cache_dir_new();
        kt_trace *writer = NULL, *fresh = NULL, *mapped = NULL;
        CHECK_INT(load_opt(p, 1, dir, first, &writer), KT_OK);
        CHECK_INT(load_opt(p, 1, NULL, !first, &fresh), KT_OK);
        CHECK_INT(load_opt(p, 1, dir, !first, &mapped), KT_OK);
        if (fresh && mapped) {
            CHECK(all_mapped(mapped));
            check_same_tables(fresh, mapped, first ? "plain run on a compat run's cache" : "compat run on a plain run's cache");
        }
        kt_trace_free(writer);
        kt_trace_free(fresh);
        kt_trace_free(mapped);
        cache_dir_free(dir);
    }
}
