/* test_index_traces.c — indexes, `info` and --hta-compat on the real traces
 * in ../shared: counts computed from the JSON with Python, and HTA's own
 * rows-after-load, origin and profiler steps from ../shared/oracle/hta.  */
#include "fixture.h"
#include "oracle.h"
#include "test.h"
#include "model/index.h"
#include "model/model.h"
#include "table/table.h"

#include <stdlib.h>

static kt_trace *load_shared(const char *rel, int hta_compat)
{
    const char *path = kt_test_shared_path(rel);
    kt_load_options opt = { .size = sizeof opt, .jobs = 2, .hta_compat = hta_compat };
    kt_trace *t = NULL;
    kt_diags *failure = NULL;
    kt_status s = kt_load(&path, 1, &opt, &t, &failure);
    kt_diags_free(failure);
    if (s != KT_OK) kt_test_fail(__FILE__, __LINE__, "cannot load %s: %s", rel, kt_status_str(s));
    return s == KT_OK ? t : NULL;
}

static const kt_table *info_table(kt_tables *ts, const char *name) { return kt_tables_find(ts, name); }

static int64_t cell(const kt_table *t, size_t row, const char *col)
{
    return kt_table_int(t, row, (size_t)kt_table_col_index(t, col));
}

/* nccl_parser_config rank 0 of 2: counts as written, streams, launch APIs. */
TEST(traces_info_nccl)
{
    NEED_SHARED();
    kt_trace *t = load_shared("traces/hta/nccl_parser_config/nccl_data.json.gz", 0);
    if (!t) return;
    kt_tables *ts = NULL;
    CHECK_INT(kt_info(t, NULL, &ts), KT_OK);
    const kt_table *ranks = info_table(ts, "ranks");
    CHECK_INT(cell(ranks, 0, "rank"), 0);
    CHECK_INT(cell(ranks, 0, "world_size"), 2);
    CHECK_INT(cell(ranks, 0, "events"), 40573);
    CHECK_INT(cell(ranks, 0, "first_ts_ns"), 4458676388068751);
    CHECK_INT(cell(ranks, 0, "last_end_ns"), 4458677117099727);
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->by_ph['X'], 26933);
    CHECK_INT(r->by_ph['s'], 4405);
    const kt_table *st = info_table(ts, "streams");
    CHECK_INT(kt_table_nrows(st), 2);
    CHECK_INT(cell(st, 0, "stream"), 7);
    CHECK_INT(cell(st, 0, "kernels"), 2679);
    CHECK_INT(cell(st, 0, "memcpy"), 960);
    CHECK_INT(cell(st, 0, "memset"), 114);
    CHECK_INT(cell(st, 1, "stream"), 40);
    CHECK_INT(cell(st, 1, "kernels"), 21);
    const kt_table *la = info_table(ts, "launch_apis");
    int64_t calls = 0, exc = 0;
    for (size_t i = 0; i < kt_table_nrows(la); i++) {
        calls += cell(la, i, "calls");
        if (!strcmp(kt_table_str(la, i, 1), "cudaLaunchKernelExC")) exc = cell(la, i, "gpu_events");
    }
    CHECK_INT(calls, 2550 + 960 + 150 + 114);
    CHECK_INT(exc, 150);
    CHECK_INT(kt_table_nrows(info_table(ts, "steps")), 3);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* cudaGraphLaunch: 70 calls launch 345 kernels between them. */
TEST(traces_graph_launch_fan_out)
{
    NEED_SHARED();
    kt_trace *t = load_shared("traces/hta/negative_queue_length_values_check/rank0.json.gz", 0);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    size_t calls = 0, kernels = 0;
    for (uint32_t i = 0; i < r->ev.n; i++) {
        const uint32_t *evs;
        size_t n = kt_launched_events(r, i, &evs);
        if (!n || !kt_is_graph_launch(r, t->strs, i)) continue;
        calls++;
        kernels += n;
        for (size_t k = 1; k < n; k++) CHECK(r->ev.ts[evs[k - 1]] <= r->ev.ts[evs[k]]);
    }
    CHECK_INT(calls, 70);
    CHECK_INT(kernels, 345);
    CHECK_INT(r->idx->ncpu_steps, 5);
    CHECK_INT(r->idx->cpu_steps[4].num, 554);
    kt_trace_free(t);
}

/* ROCm: 14 kernels and 2 memcpy on device 2 stream 0, every one linked to
 * its hip* call; the GPU-side ProfilerStep#1 is on device 2.              */
TEST(traces_rocm_stream_zero)
{
    NEED_SHARED();
    kt_trace *t = load_shared("traces/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->idx->nstreams, 1);
    const kt_gpu_stream *s = &r->idx->streams[0];
    CHECK_INT(s->device, 2);
    CHECK_INT(s->stream, 0);
    CHECK_INT(s->n, 16);
    size_t linked = 0, with_op = 0;
    for (size_t k = 0; k < s->n; k++) {
        linked += kt_gpu_launcher(r, s->ev[k]) != KT_NONE;
        with_op += kt_launcher_op(r, s->ev[k]) != KT_NONE;
    }
    CHECK_INT(linked, 16);
    CHECK(with_op > 0);
    CHECK_INT(r->idx->ngpu_steps, 1);
    CHECK_INT(r->idx->gpu_steps[0].num, 1);
    CHECK_INT(kt_event_pid(r, r->idx->gpu_steps[0].ev), 2);
    CHECK_INT(kt_event_step(r, s->ev[0]), 1);
    kt_trace_free(t);
}

/* kt_event_step_at with one cursor equals kt_event_step on every event of
 * every shared trace, walked the ways analyses walk them: each stream in
 * time order, the file in order, and the file backwards.                  */
static size_t cursor_mismatches(const kt_rank *r)
{
    size_t bad = 0;
    kt_step_cursor c = { 0 };
    for (size_t i = 0; i < r->idx->nstreams; i++)
        for (size_t k = 0; k < r->idx->streams[i].n; k++) {
            uint32_t ev = r->idx->streams[i].ev[k];
            bad += kt_event_step_at(r, ev, &c) != kt_event_step(r, ev);
        }
    kt_step_cursor forward = { 0 }, backward = { 0 };
    for (uint32_t ev = 0; ev < r->ev.n; ev++) {
        bad += kt_event_step_at(r, ev, &forward) != kt_event_step(r, ev);
        uint32_t back = (uint32_t)r->ev.n - 1 - ev;
        bad += kt_event_step_at(r, back, &backward) != kt_event_step(r, back);
    }
    return bad;
}

TEST(traces_step_cursor_equals_fresh_lookups)
{
    NEED_SHARED();
    size_t nfound = 0, with_steps = 0;
    char **found = fx_shared_trace_files(&nfound);
    for (size_t i = 0; i < nfound; i++) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        const char *path = found[i];
        if (kt_load(&path, 1, NULL, &t, &fail) == KT_OK)
            for (size_t k = 0; k < t->nranks; k++) {
                const kt_rank *r = t->ranks[k];
                with_steps += r->idx->ncpu_steps + r->idx->ngpu_steps > 0;
                size_t bad = cursor_mismatches(r);
                if (bad) kt_test_fail(__FILE__, __LINE__, "%s rank %zu: %zu answers differ", path, k, bad);
            }
        kt_trace_free(t);
        kt_diags_free(fail);
    }
    CHECK(with_steps >= 10);
    fx_free_paths(found, nfound);
}

/* ---- --hta-compat against HTA's own load (../shared/oracle/hta) -------- */
/* status.json: "events_after_load": {"0": 17952, ...} and "min_ts": 4458676416789.0 */
static size_t oracle_rows(const char *status, int64_t *rows, size_t max, int64_t *min_ts_us)
{
    const char *p = strstr(status, "\"events_after_load\"");
    size_t n = 0;
    for (p = p ? strchr(p, '{') : NULL; p && *p != '}' && n < max; p++)
        if (*p == ':') rows[n++] = strtoll(p + 1, NULL, 10);
    const char *m = strstr(status, "\"min_ts\":");
    *min_ts_us = m ? (int64_t)strtod(m + 9, NULL) : -1;
    return n;
}

/* profiler_steps.csv: "step\n4\n5\n" → bitmap of steps seen */
static size_t oracle_steps(const char *csv, int64_t *steps, size_t max)
{
    size_t n = 0;
    for (const char *p = strchr(csv, '\n'); p && p[1] && n < max; p = strchr(p + 1, '\n'))
        steps[n++] = strtoll(p + 1, NULL, 10);
    return n;
}

/* Distinct ProfilerStep numbers left in every rank, sorted. */
static size_t compat_steps(const kt_trace *t, int64_t *steps, size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nranks; k++) {
        const kt_events *e = &t->ranks[k]->ev;
        for (uint32_t i = 0; i < e->n; i++) {
            int64_t s = kt_profiler_step_number(kt_strtab_get(t->strs, e->name[i]));
            size_t j = 0;
            while (s >= 0 && j < n && steps[j] < s) j++;
            if (s < 0 || (j < n && steps[j] == s) || n == max) continue;
            memmove(steps + j + 1, steps + j, (n - j) * sizeof *steps);
            steps[j] = s;
            n++;
        }
    }
    return n;
}

static void check_compat(const char *oracle, const char *trace)
{
    char path[512];
    snprintf(path, sizeof path, "oracle/hta/%s/status.json", oracle);
    char *status = fx_read_file(kt_test_shared_path(path), NULL);
    snprintf(path, sizeof path, "oracle/hta/%s/profiler_steps.csv", oracle);
    char *csv = fx_read_file(kt_test_shared_path(path), NULL);
    snprintf(path, sizeof path, "traces/hta/%s", trace);
    kt_trace *t = status && csv ? load_shared(path, 1) : NULL;
    if (!t) kt_test_fail(__FILE__, __LINE__, "%s: missing oracle or trace", oracle);
    int64_t rows[8], min_ts_us, want_steps[16], got_steps[16];
    size_t nr = t ? oracle_rows(status, rows, 8, &min_ts_us) : 0;
    if (t) CHECK_INT(t->nranks, nr);
    for (size_t k = 0; t && k < nr && k < t->nranks; k++) {
        if ((int64_t)t->ranks[k]->ev.n != rows[k])
            kt_test_fail(__FILE__, __LINE__, "%s rank %zu: %zu rows, HTA %lld", oracle, k,
                         t->ranks[k]->ev.n, (long long)rows[k]);
    }
    if (t) CHECK_INT(t->min_ts, min_ts_us * 1000);
    size_t nw = csv ? oracle_steps(csv, want_steps, 16) : 0;
    size_t ng = t ? compat_steps(t, got_steps, 16) : 0;
    if (t) CHECK_INT(ng, nw);
    for (size_t i = 0; i < ng && i < nw; i++) CHECK_INT(got_steps[i], want_steps[i]);
    kt_trace_free(t);
    free(status);
    free(csv);
}

/* A2.3 verified on HTA: nccl_parser_config after load has 575 rows with
 * dur < 0 and 1995 with dur == 0 (float64 ns rounding). */
TEST(traces_hta_compat_ns_rounding_durations)
{
    NEED_SHARED();
    kt_trace *t = load_shared("traces/hta/nccl_parser_config/nccl_data.json.gz", 1);
    if (!t) return;
    const kt_events *e = &t->ranks[0]->ev;
    size_t negative = 0, zero = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        negative += e->dur[i] < 0;
        zero += e->dur[i] == 0;
        CHECK_INT(e->ts[i] % 1000, 0);
    }
    CHECK_INT(negative, 575);
    CHECK_INT(zero, 1995);
    kt_trace_free(t);
}

/* Every oracle trace but the five largest (mtia_trace_single_rank,
 * df_index_resolver, both trace_diff, negative_queue_length_values_check:
 * 26-87 MB, seconds under the sanitizers); they matched too when checked
 * once by hand, and the Python emulation of these rules matches all 17.   */
TEST(traces_hta_compat_rows_steps_origin)
{
    NEED_SHARED();
    static const char *const cases[][2] = {
        { "amd_trace", "amd_trace" },
        { "cp_alexnet", "critical_path/alexnet" },
        { "cp_cuda_event_sync", "critical_path/cuda_event_sync" },
        { "cp_cuda_event_sync_multi_stream", "critical_path/cuda_event_sync_multi_stream" },
        { "cp_simple_add", "critical_path/simple_add" },
        { "cupti_profiler", "cupti_profiler" },
        { "execution_trace", "execution_trace/benchmark_simple_add_trace.json.gz" },
        { "nccl_parser_config", "nccl_parser_config" },
        { "ns_resolution_trace", "ns_resolution_trace" },
        { "timeline_analysis", "timeline_analysis" },
        { "trace_filter_2ranks", "trace_filter" },
        { "triton_example", "triton_example" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_compat(cases[i][0], cases[i][1]);
}
