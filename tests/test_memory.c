/* test_memory.c — `kineta memory`: [memory] events of a small trace
 * written here (expectations by hand), the counter-track copy, PyTorch's
 * memory timeline file (hand-made and the shared example), and the
 * [memory] events of the shared df_index_resolver trace (expectations
 * computed independently with Python's json module when the test was
 * written).                                                              */
#include "fixture.h"
#include "oracle.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t col(const kt_table *t, const char *name)
{
    long c = kt_table_col_index(t, name);
    CHECK(c >= 0);
    return c < 0 ? 0 : (size_t)c;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fputs(text, f);
    return fclose(f) == 0;
}

#define MEM(ts, addr, bytes, total, reserved)                                                          \
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, " \
    "\"tid\": 1, \"ts\": " #ts ", \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": " #addr     \
    ", \"Bytes\": " #bytes ", \"Total Allocated\": " #total ", \"Total Reserved\": " #reserved "}}"

/* aten::empty allocates A (100 B), aten::mm allocates B (50 B) and frees
 * A, C (300 B) is allocated outside any op: the peak is 350 B at 400 µs
 * with B and C live; the last event's totals are negative (ignored).    */
static const char *const mem_trace =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 100},\n"
    MEM(10, 1, 100, 100, 1000) ",\n" MEM(210, 2, 50, 150, 1000) ",\n" MEM(250, 1, -100, 50, 1000) ",\n"
    MEM(400, 3, 300, 350, 2000) ",\n" MEM(500, 3, -300, 50, 2000) ",\n" MEM(600, 9, 0, -5, -5) "\n]}\n";

TEST(memory_events_peak_and_ops)
{
    char dir[] = "/tmp/kt_memory_XXXXXX", in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/mem.json", dir);
    CHECK(write_text(in, mem_trace));
    kt_trace *t = fx_load_path(in, false);
    if (!t) return;
    kt_memory_options o = kt_memory_defaults();
    o.out_dir = dir;
    kt_tables *ts;
    CHECK_INT(kt_memory(t, NULL, &o, &ts, NULL), KT_OK);
    const kt_table *d = fx_table(ts, "devices");
    CHECK_INT(kt_table_nrows(d), 1);
    CHECK_STR(kt_table_str(d, 0, col(d, "device")), "cuda:0");
    CHECK_INT(fx_num(d, 0, "allocations"), 3);
    CHECK_INT(fx_num(d, 0, "frees"), 2);
    CHECK_INT(fx_num(d, 0, "bytes_allocated"), 450);
    CHECK_INT(fx_num(d, 0, "peak_allocated"), 350);
    CHECK_NEAR(fx_num(d, 0, "peak_ts"), 400, 0);
    CHECK_INT(fx_num(d, 0, "peak_reserved"), 2000);
    CHECK_INT(fx_num(d, 0, "final_allocated"), 50);
    CHECK_INT(fx_num(d, 0, "negative_totals"), 1);
    CHECK_INT(kt_table_nrows(fx_table(ts, "series")), 5);
    const kt_table *p = fx_table(ts, "peak_ops");
    CHECK_INT(kt_table_nrows(p), 2);
    CHECK_STR(kt_table_str(p, 0, col(p, "op")), "(no op)");
    CHECK_INT(fx_num(p, 0, "bytes_held"), 300);
    CHECK_STR(kt_table_str(p, 1, col(p, "op")), "aten::mm");
    CHECK_INT(fx_num(p, 1, "bytes_held"), 50);
    /* the copy: 5 counter events (the negative one left out), valid JSON */
    const kt_table *f = fx_table(ts, "files");
    CHECK_INT(fx_num(f, 0, "counter_events"), 5);
    char *out = f && kt_table_nrows(f) ? strdup(kt_table_str(f, 0, col(f, "output"))) : NULL;
    char *text = out ? fx_read_file(out, NULL) : NULL;
    CHECK(text && strstr(text, "{\"ph\": \"C\", \"name\": \"Memory cuda:0\", \"pid\": 1, \"ts\": 400.000, "
                               "\"args\": {\"Allocated\": 350, \"Reserved\": 2000}}"));
    kt_trace *copy = out ? fx_load_path(out, false) : NULL;
    CHECK(copy != NULL);
    kt_trace_free(copy);
    free(text);
    if (out) unlink(out);
    free(out);
    unlink(in);
    rmdir(dir);
    kt_tables_free(ts);
    kt_trace_free(t);
}

#define DEV_MEM(type, id, ts, total)                                                                  \
    "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"args\": "          \
    "{\"Device Type\": " #type ", \"Device Id\": " #id ", \"Addr\": 1, \"Bytes\": 0, \"Total Allocated\": " #total \
    ", \"Total Reserved\": 0}}"

/* Loads text as a trace file and runs kt_memory on it (NULL on failure). */
static kt_tables *memory_of_text(const char *text)
{
    char dir[] = "/tmp/kt_memory_XXXXXX", in[300];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/mem.json", dir);
    CHECK(write_text(in, text));
    kt_trace *t = fx_load_path(in, false);
    kt_tables *ts = NULL;
    if (t) CHECK_INT(kt_memory(t, NULL, NULL, &ts, NULL), KT_OK);
    kt_trace_free(t);
    unlink(in);
    rmdir(dir);
    return ts;
}

/* Devices interleaved in the file, listed by (type, id); each device's
 * events by time, file order at equal times: cuda:1 comes in two runs
 * (300 ends the first, 300 again in the second), cuda:0 in three.  The
 * totals say which event a series row is.                               */
TEST(memory_events_devices_in_order)
{
    kt_tables *ts = memory_of_text("{\"traceEvents\": [\n"
        DEV_MEM(1, 1, 300, 1) ",\n" DEV_MEM(0, -1, 100, 10) ",\n" DEV_MEM(1, 0, 50, 20) ",\n"
        DEV_MEM(1, 1, 100, 2) ",\n" DEV_MEM(1, 1, 300, 3) ",\n" DEV_MEM(1, 0, 40, 21) ",\n"
        DEV_MEM(1, 0, 60, 22) ",\n" DEV_MEM(1, 0, 10, 23) "\n]}\n");
    if (!ts) return;
    const kt_table *d = fx_table(ts, "devices");
    CHECK_INT(kt_table_nrows(d), 3);
    static const char *const devices[] = { "cpu", "cuda:0", "cuda:1" };
    for (size_t i = 0; i < 3 && i < kt_table_nrows(d); i++) CHECK_STR(kt_table_str(d, i, col(d, "device")), devices[i]);
    const kt_table *s = fx_table(ts, "series");
    static const int totals[] = { 10, 23, 21, 20, 22, 2, 1, 3 };
    CHECK_INT(kt_table_nrows(s), 8);
    for (size_t i = 0; i < 8 && i < kt_table_nrows(s); i++) CHECK_INT(fx_num(s, i, "allocated"), totals[i]);
    kt_tables_free(ts);
}

/* More devices than the per-device dealing takes (70, one event each, in
 * descending order): still listed by id.                                 */
TEST(memory_events_many_devices)
{
    size_t cap = 70 * 200 + 64, n = 0;
    char *text = malloc(cap);
    if (!text) return;
    n += (size_t)snprintf(text + n, cap - n, "{\"traceEvents\": [\n");
    for (int id = 69; id >= 0; id--)
        n += (size_t)snprintf(text + n, cap - n, "%s" DEV_MEM(1, %d, %d, %d), id == 69 ? "" : ",\n", 100 - id, id, id);
    snprintf(text + n, cap - n, "\n]}\n");
    kt_tables *ts = memory_of_text(text);
    free(text);
    if (!ts) return;
    const kt_table *d = fx_table(ts, "devices");
    CHECK_INT(kt_table_nrows(d), 70);
    char want[32];
    for (size_t i = 0; i < 70 && i < kt_table_nrows(d); i++) {
        snprintf(want, sizeof want, "cuda:%zu", i);
        CHECK_STR(kt_table_str(d, i, col(d, "device")), want);
        CHECK_INT(fx_num(d, i, "peak_allocated"), (double)i);
    }
    kt_tables_free(ts);
}

/* One device's events in `repeats` descending sweeps of times 5..1, the
 * total of each its place in the file: the series lists them by time and
 * in file order at equal times.  3 sweeps make 13 runs (merged), 70 make
 * 281 (more than the merge takes: radix-sorted).                         */
static void check_sweeps(int repeats)
{
    size_t cap = 64 + (size_t)repeats * 5 * 200, n = 0;
    char *text = malloc(cap);
    if (!text) return;
    n += (size_t)snprintf(text + n, cap - n, "{\"traceEvents\": [\n");
    for (int k = 0; k < repeats * 5; k++)
        n += (size_t)snprintf(text + n, cap - n, "%s" DEV_MEM(1, 0, %d, %d), k ? ",\n" : "", 5 - k % 5, k + 1);
    snprintf(text + n, cap - n, "\n]}\n");
    kt_tables *ts = memory_of_text(text);
    free(text);
    if (!ts) return;
    const kt_table *s = fx_table(ts, "series");
    CHECK_INT(kt_table_nrows(s), repeats * 5);
    for (int t = 1, row = 0; t <= 5; t++)
        for (int r = 0; r < repeats && (size_t)row < kt_table_nrows(s); r++, row++)
            CHECK_INT(fx_num(s, (size_t)row, "allocated"), r * 5 + (5 - t) + 1);
    kt_tables_free(ts);
}

TEST(memory_events_few_runs_merged_in_file_order_at_ties)
{
    check_sweeps(3);
}

TEST(memory_events_many_runs_sorted_in_file_order_at_ties)
{
    check_sweeps(70);
}

#define RAW_MEM(ts, args)                                                                              \
    "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"args\": {" args "}}"

/* Args read where each event has them: the same keys as the event before
 * but a total written as a float, then as a string (not a number: the
 * event's totals are unknown, counted as negative), then in another order
 * with an arg more, and a key twice (the first counts).                   */
TEST(memory_events_args_whatever_their_layout)
{
    kt_tables *ts = memory_of_text("{\"traceEvents\": [\n"
        RAW_MEM(1, "\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": 10, \"Total Reserved\": 0") ",\n"
        RAW_MEM(2, "\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": 20.0, \"Total Reserved\": 0") ",\n"
        RAW_MEM(3, "\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": \"x\", \"Total Reserved\": 0") ",\n"
        RAW_MEM(4, "\"Total Reserved\": 5, \"Extra\": 1, \"Total Allocated\": 40, \"Device Id\": 0, "
                   "\"Device Type\": 1") ",\n"
        RAW_MEM(5, "\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": 50, \"Total Allocated\": 7, "
                   "\"Total Reserved\": 0") "\n]}\n");
    if (!ts) return;
    const kt_table *d = fx_table(ts, "devices");
    CHECK_INT(kt_table_nrows(d), 1);
    CHECK_INT(fx_num(d, 0, "negative_totals"), 1);
    const kt_table *s = fx_table(ts, "series");
    static const int totals[] = { 10, 20, 40, 50 }, reserved[] = { 0, 0, 5, 0 };
    CHECK_INT(kt_table_nrows(s), 4);
    for (size_t i = 0; i < 4 && i < kt_table_nrows(s); i++) {
        CHECK_INT(fx_num(s, i, "allocated"), totals[i]);
        CHECK_INT(fx_num(s, i, "reserved"), reserved[i]);
    }
    kt_tables_free(ts);
}

/* No [memory] events: empty tables, no error. */
TEST(memory_events_none)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cpu_op", "aten::mm", 0, 10, 1, 1, -1, -1);
    fx_finish(t);
    kt_tables *ts;
    CHECK_INT(kt_memory(t, NULL, NULL, &ts, NULL), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "devices")), 0);
    CHECK(kt_tables_find(ts, "files") == NULL);
    kt_tables_free(ts);
    kt_trace_free(t);
}

/* t = -1 becomes the smallest positive t (5); one sample per timestamp
 * with the totals after it; a free without its allocation makes a
 * category negative (diagnosed); a malformed entry is skipped.          */
TEST(memory_timeline_file_by_hand)
{
    char path[] = "/tmp/kt_memtl_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    CHECK(write_text(path, "[[-1, 1, 100, 0], [5, 2, 50, 3], [5, 2, 25, 3], [\"x\", 1, 2, 3], "
                           "[9, 4, -50, 3], [10, 4, -200, 1]]"));
    kt_tables *ts;
    kt_diags *d = NULL;
    CHECK_INT(kt_memory_timeline_file(path, NULL, &ts, &d), KT_OK);
    const kt_table *tl = fx_table(ts, "timeline");
    CHECK_INT(kt_table_nrows(tl), 3);
    CHECK_INT(fx_num(tl, 0, "ts_ns"), 5);
    CHECK_INT(fx_num(tl, 0, "Parameter"), 100);
    CHECK_INT(fx_num(tl, 0, "Temporary"), 75);
    CHECK_INT(fx_num(tl, 0, "total"), 175);
    CHECK_INT(fx_num(tl, 1, "Temporary"), 25);
    CHECK_INT(fx_num(tl, 2, "Optimizer state"), -200);
    const kt_table *pk = fx_table(ts, "peaks");
    long tot = fx_row(pk, "category", "total", -1);
    CHECK(tot >= 0);
    CHECK_INT(fx_num(pk, (size_t)tot, "peak_bytes"), 175);
    CHECK_INT(fx_num(pk, (size_t)tot, "peak_ts_ns"), 5);
    CHECK_INT(kt_diags_count(d), 2); /* the skipped entry, the negative category */
    kt_diags_free(d);
    kt_tables_free(ts);
    /* -o DIR: a Chrome counter trace, one event per sample, loadable */
    char dir[] = "/tmp/kt_memtl_dir_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(kt_memory_timeline_file(path, dir, &ts, NULL), KT_OK);
    const kt_table *f = fx_table(ts, "files");
    CHECK_INT(fx_num(f, 0, "counter_events"), 3);
    char *trace = f && kt_table_nrows(f) ? strdup(kt_table_str(f, 0, col(f, "output"))) : NULL;
    char *text = trace ? fx_read_file(trace, NULL) : NULL;
    CHECK(text && strstr(text, "{\"ph\": \"C\", \"name\": \"Memory by category\", \"pid\": 0, \"ts\": 0.005, "
                               "\"args\": {\"Parameter\": 100, \"Optimizer state\": 0, \"Input\": 0, "
                               "\"Temporary\": 75,"));
    kt_trace *back = trace ? fx_load_path(trace, false) : NULL;
    CHECK(back != NULL);
    kt_trace_free(back);
    free(text);
    if (trace) unlink(trace);
    free(trace);
    rmdir(dir);
    kt_tables_free(ts);
    /* cut off inside an entry: the entries before the cut, two warnings */
    CHECK(write_text(path, "[[1, 1, 10, 0], [2, 1, 5"));
    CHECK_INT(kt_memory_timeline_file(path, NULL, &ts, &d), KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "timeline")), 1);
    CHECK_INT(kt_diags_count(d), 2);
    kt_diags_free(d);
    kt_tables_free(ts);
    /* not a list: refused with a reason */
    CHECK(write_text(path, "{\"traceEvents\": []}"));
    CHECK_INT(kt_memory_timeline_file(path, NULL, &ts, &d), KT_EINPUT);
    CHECK(ts == NULL && kt_diags_count(d) == 1);
    kt_diags_free(d);
    unlink(path);
    CHECK_INT(kt_memory_timeline_file(path, NULL, &ts, NULL), KT_EINPUT);
}

TEST(memory_timeline_shared_example)
{
    NEED_SHARED();
    kt_tables *ts;
    CHECK_INT(kt_memory_timeline_file(kt_test_shared_path("traces/hta/memory_analysis/memory_timeline.raw.gz"), NULL,
                                      &ts, NULL),
              KT_OK);
    CHECK_INT(kt_table_nrows(fx_table(ts, "timeline")), 7720);
    const kt_table *pk = fx_table(ts, "peaks");
    long tot = fx_row(pk, "category", "total", -1), act = fx_row(pk, "category", "Activation", -1);
    CHECK(tot >= 0 && act >= 0);
    CHECK_INT(fx_num(pk, (size_t)tot, "peak_bytes"), 3082832104LL);
    CHECK_INT(kt_table_int(pk, (size_t)tot, 2), 1696966047194486198LL);
    CHECK_INT(fx_num(pk, (size_t)act, "peak_bytes"), 2746497024LL);
    kt_tables_free(ts);
}

TEST(memory_events_df_index_resolver)
{
    NEED_SHARED();
    const kt_trace *t = fx_shared_trace("traces/hta/df_index_resolver", false);
    if (!t) return;
    kt_memory_options o = kt_memory_defaults();
    o.top = 0;
    kt_tables *ts;
    CHECK_INT(kt_memory(t, NULL, &o, &ts, NULL), KT_OK);
    const kt_table *d = fx_table(ts, "devices");
    long cuda = fx_row(d, "device", "cuda:1", -1);
    CHECK(cuda >= 0);
    CHECK_INT(fx_num(d, (size_t)cuda, "allocations") + fx_num(d, (size_t)cuda, "frees"), 26770);
    CHECK_INT(fx_num(d, (size_t)cuda, "peak_allocated"), 6629508096LL);
    CHECK_INT(fx_num(d, (size_t)cuda, "peak_reserved"), 12782141440LL);
    CHECK_INT(fx_num(d, (size_t)cuda, "final_allocated"), 4096614400LL);
    /* 725 live allocations hold 2532893696 B at the peak; the rest was
     * allocated before the trace started                                 */
    const kt_table *p = fx_table(ts, "peak_ops");
    int64_t held = 0, allocs = 0;
    size_t dev = col(p, "device");
    for (size_t i = 0; i < kt_table_nrows(p); i++) {
        if (strcmp(kt_table_str(p, i, dev), "cuda:1")) continue;
        held += (int64_t)fx_num(p, i, "bytes_held");
        allocs += (int64_t)fx_num(p, i, "allocations");
    }
    CHECK_INT(held, 6629508096LL);
    CHECK_INT(allocs, 725);
    long before = fx_row(p, "op", "(allocated before the trace)", -1);
    CHECK(before >= 0);
    CHECK_INT(fx_num(p, (size_t)before, "bytes_held"), 6629508096LL - 2532893696LL);
    kt_tables_free(ts);
}
