/*
 * test_read_xla_trace.c — JAX's Chrome trace (`<host>.trace.json.gz`, pids
 * named after XLA's planes, no `cat`) into the model: a small hand-written
 * trace (detection by content, devices, streams, ps→ns times, launches and
 * their XLA ops), and both shared JAX profiles written out as the trace
 * jax.profiler puts beside them (tests/xplane_to_trace_json.py), whose
 * kernels, temporal, idle, launch and categories tables must equal the
 * .xplane.pb's.
 */
#include "test.h"
#include "read_check.h"
#include "load/readers.h"
#include "model/index.h"
#include "model/model_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* GPU 3 (pid 4): "Stream #17(Kernel)" with fusion.1 (ts 1000.0015 µs,
 * dur 2.5 µs, correlation 42, hlo_op and module) and a copy on a
 * MemcpyD2D line; an "XLA Ops" line (derived, not read).  The host (pid
 * 701): thread 583 with the launch (correlation 42, no op of its own:
 * it comes from the kernel) and an annotation.  "Task Environment" is
 * neither.                                                             */
static const char SMALL[] =
    "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:3\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":17,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #17(Kernel)\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":8,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream #8(MemcpyD2D)\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":99,\"name\":\"thread_name\",\"args\":{\"name\":\"XLA Ops\"}},"
    "{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
    "{\"ph\":\"M\",\"pid\":701,\"tid\":583,\"name\":\"thread_name\",\"args\":{\"name\":\"Host Threads/583\"}},"
    "{\"ph\":\"M\",\"pid\":9,\"name\":\"process_name\",\"args\":{\"name\":\"Task Environment\"}},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":583,\"ts\":995.25,\"dur\":3,\"name\":\"hipModuleLaunchKernel\","
    "\"args\":{\"correlation_id\":\"42\"}},"
    "{\"ph\":\"X\",\"pid\":701,\"tid\":583,\"ts\":990,\"dur\":20,\"name\":\"PjitFunction(f)\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":17,\"ts\":1000.0015,\"dur\":2.5,\"name\":\"fusion_1.kd\","
    "\"args\":{\"correlation_id\":\"42\",\"hlo_op\":\"fusion.1\",\"hlo_module\":\"jit_f\"}},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":8,\"ts\":1004.000999,\"dur\":0.000999,\"name\":\"CopyDeviceToDevice\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":99,\"ts\":1000,\"dur\":3,\"name\":\"fusion.1\"},"
    "{\"ph\":\"X\",\"pid\":9,\"tid\":1,\"ts\":1000,\"dur\":3,\"name\":\"env\"},"
    "{}]}";

static uint32_t find(const kt_trace *t, const kt_rank *r, uint8_t kind, const char *name)
{
    for (uint32_t i = 0; i < r->ev.n; i++)
        if (r->ev.kind[i] == kind && !strcmp(kt_strtab_get(t->strs, r->ev.name[i]), name)) return i;
    return KT_NONE;
}

TEST(xla_trace_small_exact)
{
    CHECK_INT(kt_format_of(SMALL, sizeof SMALL - 1), KT_FMT_XLA_TRACE);
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("host.trace.json", SMALL, sizeof SMALL - 1, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    int64_t total;
    CHECK_INT(rd_count_kind(r, KT_K_KERNEL, &total), 1);
    CHECK_INT(rd_count_kind(r, KT_K_MEMCPY, &total), 1);
    CHECK_INT(total, 1); /* [1004000999, 1004001998] ps: ns 1004000 to 1004001 */
    CHECK_INT(rd_count_kind(r, KT_K_RUNTIME, &total), 1);
    CHECK_INT(rd_count_kind(r, KT_K_USER_ANNOTATION, &total), 1);
    CHECK_INT(rd_count_kind(r, KT_K_CPU_OP, &total), 2); /* the launch's hlo_op in its hlo_module */
    uint32_t k = find(t, r, KT_K_KERNEL, "fusion_1.kd");
    CHECK(k != KT_NONE);
    if (k != KT_NONE) {
        CHECK_INT(r->ev.ts[k], 1000001); /* 1000001500 ps floored */
        CHECK_INT(r->ev.dur[k], 2500);   /* 1000004000 ps: 1000004 - 1000001 */
        CHECK_INT(kt_event_pid(r, k), 3);
        CHECK_INT(kt_ev_stream(&r->ev, k), 17);
        CHECK_INT(kt_event_corr(r, k), 42);
        uint32_t call = kt_gpu_launcher(r, k);
        CHECK(call != KT_NONE && !strcmp(kt_strtab_get(t->strs, r->ev.name[call]), "hipModuleLaunchKernel"));
        if (call != KT_NONE) CHECK_INT(kt_event_tid(r, call), 583);
        CHECK_INT(kt_index_call_tree(r), KT_OK);
        uint32_t op = kt_launcher_op(r, k);
        CHECK(op != KT_NONE);
        if (op != KT_NONE) {
            CHECK_STR(kt_strtab_get(t->strs, r->ev.name[op]), "fusion.1");
            CHECK_INT(r->ev.ts[op], 995250);
            CHECK_INT(r->ev.dur[op], 3000);
        }
    }
    char buf[64];
    CHECK_STR(kt_rank_source(r, "kineta_format", buf, sizeof buf), "JAX Chrome trace JSON");
    kt_trace_free(t);
}

/* Cut short: the events before the break are kept, with a warning. */
TEST(xla_trace_cut_short)
{
    const char *cut = strstr(SMALL, "{\"ph\":\"X\",\"pid\":4,\"tid\":8");
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("host.trace.json", SMALL, (size_t)(cut - SMALL) + 20, NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    int64_t total;
    CHECK_INT(rd_count_kind(t->ranks[0], KT_K_KERNEL, &total), 1);
    CHECK_INT(rd_count_kind(t->ranks[0], KT_K_MEMCPY, &total), 0);
    CHECK(kt_diags_count(kt_trace_diags(t)) >= 1);
    kt_trace_free(t);
}

/* Both files of one run: the same events and the same tables. */
static void xplane_vs_trace_json(const char *rel)
{
    char pb[1024], json[64], cmd[2048];
    if (!rd_xplane_as_trace_json(rel, pb, sizeof pb, json, sizeof json)) return;
    /* Python's count of the GPU planes' stream events */
    long long v[1];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import gzip,json,sys\n"
             "ev=json.load(gzip.open(sys.argv[1]))['traceEvents']\n"
             "gpu={e['pid'] for e in ev if e.get('name')=='process_name' and e['args']['name'].startswith('/device:GPU:')}\n"
             "st={(e['pid'],e['tid']) for e in ev if e.get('name')=='thread_name' and e['args']['name'].startswith('Stream #')}\n"
             "print(sum(1 for e in ev if e.get('ph')=='X' and e['pid'] in gpu and (e['pid'],e['tid']) in st))\" %s",
             json);
    CHECK(rd_command_ints(cmd, v, 1) && v[0] > 0);
    kt_status st;
    kt_trace *a = rd_load_path(pb, &st, NULL), *b = rd_load_path(json, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (a && b) {
        int64_t ns;
        CHECK_INT(rd_count_kind(b->ranks[0], KT_K_KERNEL, &ns) + rd_count_kind(b->ranks[0], KT_K_MEMCPY, &ns) +
                      rd_count_kind(b->ranks[0], KT_K_MEMSET, &ns),
                  v[0]);
        int64_t ta, tb;
        CHECK(rd_count_kind(a->ranks[0], KT_K_KERNEL, &ta) > 0);
        CHECK_INT(rd_count_kind(b->ranks[0], KT_K_KERNEL, &tb), rd_count_kind(a->ranks[0], KT_K_KERNEL, &ta));
        CHECK_INT(tb, ta);
        CHECK_INT(rd_count_kind(b->ranks[0], KT_K_RUNTIME, &tb), rd_count_kind(a->ranks[0], KT_K_RUNTIME, &ta));
        CHECK_INT(rd_count_kind(b->ranks[0], KT_K_CPU_OP, &tb), rd_count_kind(a->ranks[0], KT_K_CPU_OP, &ta));
        rd_same_answers(a, b);
        kt_tables *x = NULL, *y = NULL;
        kt_categories_options co = kt_categories_defaults();
        CHECK_INT(kt_categories(a, NULL, &co, &x), KT_OK);
        CHECK_INT(kt_categories(b, NULL, &co, &y), KT_OK);
        CHECK(x && kt_table_nrows(kt_tables_get(x, 0)) > 0);
        rd_same_tables(x, y);
        kt_tables_free(x), kt_tables_free(y);
    }
    kt_trace_free(a);
    kt_trace_free(b);
    unlink(json);
}

TEST(xla_trace_json_equals_its_xplane)
{
    xplane_vs_trace_json("traces/other/jax/jax_conv_minimal_08/tw003.xplane.pb");
    xplane_vs_trace_json("traces/other/jax/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
}

/* A profile directory as jax.profiler leaves it: host.xplane.pb and
 * host.trace.json side by side are one profile, read once (the .xplane.pb). */
TEST(xla_trace_beside_its_xplane_read_once)
{
    char dir[] = "/tmp/kt_xla_dir_XXXXXX", path[256], cmd[512];
    if (!mkdtemp(dir)) return;
    snprintf(cmd, sizeof cmd, "cp fuzz/seeds/small.xplane.pb %s/host.xplane.pb", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(path, sizeof path, "%s/host.trace.json", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(SMALL, f);
        fclose(f);
    }
    kt_status st;
    kt_trace *t = rd_load_path(dir, &st, NULL);
    CHECK_INT(st, KT_OK);
    if (t) {
        CHECK_INT(t->nranks, 1);
        char buf[64];
        CHECK_STR(kt_rank_source(t->ranks[0], "kineta_format", buf, sizeof buf), "XLA XSpace protobuf");
    }
    kt_trace_free(t);
    unlink(path);
    snprintf(path, sizeof path, "%s/host.xplane.pb", dir);
    unlink(path);
    rmdir(dir);
}

/* Hostile traces: cut at every few bytes, wrong types, absurd numbers.
 * Never a crash; what cannot be read is skipped with a warning.       */
TEST(xla_trace_hostile)
{
    static const char *const bad[] = {
        "{\"traceEvents\":{\"/device:GPU:0\":1}}",
        "{\"traceEvents\":[1,\"x\",null,[],{\"ph\":7},{\"ph\":\"M\",\"pid\":\"a\",\"name\":\"process_name\","
        "\"args\":{\"name\":\"/device:GPU:0\"}}]}",
        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:99999999\"}},"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{\"name\":[1]}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":\"18446744073709551615\",\"ts\":{},\"dur\":1,\"name\":5},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1e300,\"dur\":1},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":99999999999999999999999,\"dur\":1},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":922337203685477,\"dur\":922337203685477},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":-5,\"args\":{\"correlation_id\":{\"a\":1}}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":\"7.5\",\"dur\":\"1.0000001\",\"name\":\"k\",\"args\":[1,2]}]}",
        "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"launch\","
        "\"args\":{\"correlation_id\":\"-3\",\"hlo_op\":7,\"hlo_module\":null}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(kt_format_of(bad[i], strlen(bad[i])), KT_FMT_XLA_TRACE);
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        kt_status st = kt_load_buffer("host.trace.json", bad[i], strlen(bad[i]), NULL, &t, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        CHECK((st == KT_OK) == (t != NULL));
        kt_diags_free(fail);
        kt_trace_free(t);
    }
    for (size_t n = 40; n < sizeof SMALL - 1; n += 7) {
        kt_trace *t = NULL;
        kt_diags *fail = NULL;
        kt_status st = kt_load_buffer("host.trace.json", SMALL, n, NULL, &t, &fail);
        CHECK(st == KT_OK || st == KT_EINPUT);
        kt_diags_free(fail);
        kt_trace_free(t);
    }
}
