/* test_overlay_write.c — an analysis's kt_overlay written by the one
 * writer of trace copies (output/overlay_write.h): each kind of mark by
 * its exact bytes, the arrows after the last event and the counter
 * samples right before the ']', as HTA places them.                     */
#include "fixture.h"
#include "oracle.h"
#include "analysis/structure/patterns_overlay.h"
#include "output/overlay_write.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char trace_text[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10.75, \"dur\": 5.5, "
    "\"args\": {\"device\": 0, \"stream\": 7}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"o\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 30, "
    "\"args\": {}}\n"
    "], \"traceName\": \"t\"}\n";

/* The copy of trace_text with ov applied, as text (NULL on failure). */
static char *written(kt_overlay *ov, kt_overlay_written *res)
{
    char dir[] = "/tmp/kt_ovw_XXXXXX", in[64], out[64], err[256] = "";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/trace.json", dir);
    snprintf(out, sizeof out, "%s/copy.json", dir);
    FILE *f = fopen(in, "w");
    CHECK(f != NULL);
    if (!f) return NULL;
    fputs(trace_text, f);
    fclose(f);
    kt_trace *t = fx_load_path(in, false);
    char *text = NULL;
    if (t) {
        kt_status st = kt_write_overlay(t, t->ranks[0], ov, out, res, err, sizeof err);
        CHECK_INT(st, KT_OK);
        if (st != KT_OK) fprintf(stderr, "  %s\n", err);
        text = st == KT_OK ? fx_read_file(out, NULL) : NULL;
        kt_trace_free(t);
    }
    unlink(out);
    unlink(in);
    rmdir(dir);
    return text;
}

/* The offset of the args object of the event named name ('{'). */
static uint64_t args_of(const char *name)
{
    const char *e = strstr(trace_text, name);
    return (uint64_t)(strstr(e, "\"args\": {") + 8 - trace_text);
}

static const char source[] = "{\"kinetaSource\": \"trace.json\", ";

/* An edit (members and a new name) and an arrow from the kernel's end,
 * less 1 µs, read from the file's float µs, to the op's start.          */
TEST(overlay_write_edits_and_arrows)
{
    kt_overlay ov = { .arrow_cat = "critical_path" };
    kt_overlay_edit *e = kt_overlay_add_edit(&ov, args_of("\"k\""));
    e->args = kt_overlay_text(&ov, "\"critical\": 1", 13), e->args_len = 13;
    e->name = kt_overlay_text(&ov, "3", 1), e->name_len = 1, e->rename = true;
    kt_overlay_arrow *a = kt_overlay_add_arrow(&ov);
    *a = (kt_overlay_arrow){ .from = { .args_off = args_of("\"k\""), .ts_us = 99, .at_end = true, .inset_us = 1, .tid = 7 },
                             .to = { .args_off = 0, .ts_us = 42, .pid = 1, .tid = 1 },
                             .weight_us = 5, .critical = true, .type = "critical_path_dependency" };
    CHECK(!ov.failed);
    kt_overlay_written res;
    char *text = written(&ov, &res);
    CHECK(text != NULL);
    if (text) {
        CHECK_INT(res.edited, 1);
        CHECK(!strncmp(text, source, sizeof source - 1));
        CHECK_STR(text + sizeof source - 1,
                  "\"traceEvents\": [\n"
                  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"3\", \"pid\": 0, \"tid\": 7, \"ts\": 10.75, \"dur\": 5.5, "
                  "\"args\": {\"critical\": 1, \"device\": 0, \"stream\": 7}},\n"
                  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"o\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 30, "
                  "\"args\": {}},\n"
                  "{\"ph\": \"s\", \"id\": 0, \"pid\": 0, \"tid\": 7, \"ts\": 15, \"cat\": \"critical_path\", "
                  "\"name\": \"critical_path\", \"args\": {\"weight\": 5, \"critical\": true, \"type\": "
                  "\"critical_path_dependency\"}},\n"
                  "{\"ph\": \"f\", \"id\": 0, \"pid\": 1, \"tid\": 1, \"ts\": 42, \"cat\": \"critical_path\", "
                  "\"name\": \"critical_path\", \"args\": {\"weight\": 5, \"critical\": true, \"type\": "
                  "\"critical_path_dependency\"}, \"bp\": \"e\"}\n"
                  "], \"traceName\": \"t\"}\n");
    }
    free(text);
    kt_overlay_free(&ov);
}

/* Edits reserved for are added without the array moving (a patterns
 * overlay reserves its ~250 k edits at once), each as it was given.     */
TEST(overlay_reserve_edits_keeps_room)
{
    kt_overlay ov = { 0 };
    kt_overlay_reserve_edits(&ov, 1000);
    kt_overlay_edit *at = ov.edits;
    CHECK(at != NULL && ov.cap_edits >= 1000 && ov.nedits == 0);
    for (uint64_t k = 0; k < 1000; k++) CHECK(kt_overlay_add_edit(&ov, 10 * k + 1) == at + k);
    CHECK(ov.edits == at && !ov.failed);
    CHECK_INT(ov.nedits, 1000);
    CHECK_INT(ov.edits[999].args_off, 9991);
    kt_overlay_free(&ov);
}

/* Counter samples: an integer track with ids and µs decimals only when
 * needed, a float track (shortest round trip), a two-value track with
 * three decimals always; a negative time keeps its sign on the whole µs
 * (-1500 ns is -2 µs + 0.5: "-1.500" would be wrong, "-1.-500" was).   */
TEST(overlay_write_counter_samples_before_the_close)
{
    kt_overlay ov = { 0 };
    uint32_t q = kt_overlay_add_track(&ov, "Queue Length", 12, (kt_counter_track){ .keys = { "Queue Length" }, .with_id = true });
    uint32_t b = kt_overlay_add_track(&ov, "Memcpy HtoD", 11, (kt_counter_track){ .keys = { "Memcpy BW" }, .floats = true });
    uint32_t m = kt_overlay_add_track(&ov, "Memory cuda:0", 13,
                                      (kt_counter_track){ .keys = { "Allocated", "Reserved" }, .ts_decimals = true });
    *kt_overlay_add_sample(&ov) = (kt_counter_sample){ .ts = 100000, .pid = 0, .id = 7, .v[0].i = 1, .track = q };
    *kt_overlay_add_sample(&ov) = (kt_counter_sample){ .ts = 100250, .pid = 0, .id = 7, .v[0].i = 0, .track = q };
    *kt_overlay_add_sample(&ov) = (kt_counter_sample){ .ts = -1500, .pid = 0, .v[0].f = 0.1, .track = b };
    *kt_overlay_add_sample(&ov) = (kt_counter_sample){ .ts = 2000, .pid = 1, .v = { { .i = 512 }, { .i = 2048 } },
                                                       .track = m };
    CHECK(!ov.failed);
    kt_overlay_written res;
    char *text = written(&ov, &res);
    CHECK(text != NULL);
    if (text) {
        CHECK_INT(res.edited, 0);
        CHECK_INT(res.json_bytes, strlen(text));
        CHECK_STR(text + sizeof source - 1,
                  "\"traceEvents\": [\n"
                  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10.75, \"dur\": 5.5, "
                  "\"args\": {\"device\": 0, \"stream\": 7}},\n"
                  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"o\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 30, "
                  "\"args\": {}}\n"
                  ",\n  {\"ph\": \"C\", \"name\": \"Queue Length\", \"pid\": 0, \"ts\": 100, \"id\": 7, "
                  "\"args\": {\"Queue Length\": 1}}"
                  ",\n  {\"ph\": \"C\", \"name\": \"Queue Length\", \"pid\": 0, \"ts\": 100.250, \"id\": 7, "
                  "\"args\": {\"Queue Length\": 0}}"
                  ",\n  {\"ph\": \"C\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"ts\": -2.500, \"args\": {\"Memcpy BW\": 0.1}}"
                  ",\n  {\"ph\": \"C\", \"name\": \"Memory cuda:0\", \"pid\": 1, \"ts\": 2.000, "
                  "\"args\": {\"Allocated\": 512, \"Reserved\": 2048}}"
                  "], \"traceName\": \"t\"}\n");
    }
    free(text);
    kt_overlay_free(&ov);
}

/* What the patterns analysis hands its writer: the text each marked event
 * gets, and how much text the plan holds.                                */
typedef struct plan_seen {
    size_t marked, marked_text, text, distinct;
} plan_seen;
static plan_seen last_plan;

static kt_status look_at_plan(const kt_trace *t, const kt_rank *r, const kt_overlay *o, const char *out_path,
                              kt_overlay_written *res, char *err, size_t errlen)
{
    (void)t, (void)r, (void)out_path, (void)err, (void)errlen;
    plan_seen p = { .text = o->ntext };
    for (size_t k = 0; k < o->nedits; k++) {
        const kt_overlay_edit *e = &o->edits[k];
        if (e->args_len < 12 || memcmp(o->text + e->args, "\"Patterns\": ", 12)) continue;
        p.marked++;
        p.marked_text += e->args_len;
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = o->edits[j].args == e->args && o->edits[j].args_len == e->args_len;
        p.distinct += !seen;
    }
    last_plan = p;
    *res = (kt_overlay_written){ 0 };
    return KT_OK;
}

/* Events marked with the same patterns share one text in the plan: a
 * label can be kilobytes, and adding it once per event held gigabytes
 * for a trace whose overlay is a few (alexnet: 287 events marked, the
 * top 5 patterns).                                                       */
TEST(patterns_overlay_text_once_per_set_of_patterns)
{
    const char *rel = "traces/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz";
    kt_trace *t = fx_load_shared(rel, false);
    if (!t) return;
    kt_patterns_options o = kt_patterns_defaults();
    o.out_dir = "/tmp";
    kt_tables *ts = NULL;
    last_plan = (plan_seen){ 0 };
    CHECK_INT(kt_patterns_writing(t, NULL, &o, look_at_plan, &ts, NULL), KT_OK);
    CHECK_INT(last_plan.marked, 287);
    CHECK(last_plan.distinct >= 1 && last_plan.distinct <= 5 * 4);
    CHECK(last_plan.text < last_plan.marked_text / 10);
    kt_tables_free(ts);
    kt_trace_free(t);
}
