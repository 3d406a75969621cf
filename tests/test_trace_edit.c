/* test_trace_edit.c — the overlay writer on its own: marked events get
 * members first in their args and a new name (before or after the args,
 * escaped names, empty args, an event larger than the writer's 4 MiB
 * chunks), every other byte is the input's; events appended and unmarked
 * complete events left out; the input never overwritten; a traceEvents
 * that no longer matches the loader's offsets gives KT_EINPUT and no file
 * (damage the walk finds late leaves an earlier overlay as it was),
 * a copy that cannot be written KT_EANALYSIS and no file; edited events
 * found from the loader's args offsets give the walk's copy, and a walk
 * when the offsets no longer fit, and events larger than the window the
 * writer reads the file through; long unedited runs land where they
 * were; a file cut short while it is copied is an input error (no
 * crash, no file left); the sink's write-behind batches keep their
 * order. */
#include "fixture.h"
#include "model/model.h"
#include "output/trace_edit.h"
#include "output/trace_sink.h"
#include "load/load_internal.h"
#include "test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct scratch {
    char dir[32], in[300], out[300];
} scratch;

static void scratch_make(scratch *s, const char *text)
{
    strcpy(s->dir, "/tmp/kt_edit_XXXXXX");
    CHECK(mkdtemp(s->dir) != NULL);
    snprintf(s->in, sizeof s->in, "%s/in.json", s->dir);
    snprintf(s->out, sizeof s->out, "%s/out.json", s->dir);
    FILE *f = fopen(s->in, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* What every copy adds to its input: the member naming its source, after
 * the first '{' (trace_sink.c).                                          */
#define SOURCE_MEMBER "\"kinetaSource\": \"in.json\", "

/* A copy written from a scratch input, its source member checked and
 * taken out: the bytes the edit made (*len of them, when len).           */
static char *read_copy(const char *path, size_t *len)
{
    size_t n = 0, m = strlen(SOURCE_MEMBER);
    char *b = fx_read_file(path, &n), *brace = b ? strchr(b, '{') : NULL;
    CHECK(brace && !strncmp(brace + 1, SOURCE_MEMBER, m));
    if (brace && !strncmp(brace + 1, SOURCE_MEMBER, m)) {
        memmove(brace + 1, brace + 1 + m, n - (size_t)(brace + 1 - b) - m + 1);
        n -= m;
    }
    if (len) *len = n;
    return b;
}

static void scratch_remove(const scratch *s)
{
    unlink(s->in);
    unlink(s->out);
    rmdir(s->dir);
}

/* The offsets the loader would record: traceEvents' '[' and its ']' (the
 * first ']' followed by a ',' or the end of the object).                */
static kt_trace_edit edit_of(const scratch *s, const char *text)
{
    const char *open = strchr(strstr(text, "\"traceEvents\""), '['), *close = strstr(text, "],");
    if (!close) close = strstr(text, "]}");
    return (kt_trace_edit){ .in_path = s->in, .out_path = s->out, .events_open = (uint64_t)(open - text),
                            .events_end = (uint64_t)(close - text) };
}

/* Every marked event gets "x": 1; the one whose args hold "r" is renamed. */
typedef struct seen {
    const char *text;
    size_t calls;
    bool appended;    /* arrow() wrote its event */
} seen;

static void add_x(void *user, uint64_t args_off, kt_event_edit *e)
{
    seen *s = user;
    s->calls++;
    e->add_args = "\"x\": 1";
    e->add_args_len = 6;
    if (!strncmp(s->text + args_off, "{\"r\"", 4)) {
        e->name = "renamed";
        e->name_len = 7;
    }
}

/* The copy with add_x on the marked events; *sn counts the calls. */
static kt_status edit_marked(const scratch *s, const char *text, const uint64_t *marks, size_t n, seen *sn,
                             kt_edit_result *res)
{
    *sn = (seen){ text, 0, false };
    kt_trace_edit c = edit_of(s, text);
    c.marks = marks, c.nmarks = n, c.edit = add_x, c.user = sn;
    char err[256];
    return kt_write_trace_edit(&c, res, err, sizeof err);
}

static uint64_t args_of(const char *text, const char *event_start)
{
    return (uint64_t)(strstr(strstr(text, event_start), "\"args\": {") + 8 - text);
}

TEST(trace_edit_marks_renames_and_keeps_other_bytes)
{
    const char *text = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"args\": {\"r\": \"{}\\\"]\"}},\n"
                       "{\"ph\": \"X\", \"args\": {\"r\": 1}, \"name\": \"b\\\"q\"},\n"
                       "{\"ph\": \"i\", \"name\": \"c\", \"args\": {}},\n"
                       "{\"ph\": \"X\", \"cat\": \"name\", \"name\": \"d\\\\\", \"args\": {\"r\": 3}},\n"
                       "{\"ph\": \"X\", \"name\": \"e\", \"args\": {\"k\": 1}}], \"k\": [1]}";
    scratch s;
    scratch_make(&s, text);
    uint64_t marks[] = { args_of(text, "\"a\""), args_of(text, "\"ph\": \"X\", \"args\""), args_of(text, "\"c\""),
                         args_of(text, "\"cat\": \"name\"") };
    seen sn;
    kt_edit_result res;
    CHECK_INT(edit_marked(&s, text, marks, 4, &sn, &res), KT_OK);
    CHECK_INT(res.edited, 4);
    CHECK_INT(sn.calls, 4);
    size_t len = 0;
    char *out = read_copy(s.out, &len);
    CHECK(out != NULL);
    if (out) {
        CHECK_STR(out, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"renamed\", \"args\": {\"x\": 1, \"r\": \"{}\\\"]\"}},\n"
                       "{\"ph\": \"X\", \"args\": {\"x\": 1, \"r\": 1}, \"name\": \"renamed\"},\n"
                       "{\"ph\": \"i\", \"name\": \"c\", \"args\": {\"x\": 1}},\n"
                       "{\"ph\": \"X\", \"cat\": \"name\", \"name\": \"renamed\", \"args\": {\"x\": 1, \"r\": 3}},\n"
                       "{\"ph\": \"X\", \"name\": \"e\", \"args\": {\"k\": 1}}], \"k\": [1]}");
        CHECK_INT(res.json_bytes, len + strlen(SOURCE_MEMBER));
    }
    free(out);
    scratch_remove(&s);
}

/* An event of 5 MiB (the writer's chunks are 4 MiB) and its neighbours. */
TEST(trace_edit_event_larger_than_a_chunk)
{
    size_t big = 5u << 20;
    char *text = malloc(big + 256);
    CHECK(text != NULL);
    if (!text) return;
    int head = sprintf(text, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"");
    memset(text + head, 'n', big);
    sprintf(text + head + big, "\", \"args\": {\"k\": 2}},\n{\"name\": \"e\", \"args\": {}}]}");
    scratch s;
    scratch_make(&s, text);
    uint64_t marks[] = { args_of(text + head + big, "\"args\"") + head + big, args_of(text, "\"e\"") };
    seen sn;
    kt_edit_result res;
    CHECK_INT(edit_marked(&s, text, marks, 2, &sn, &res), KT_OK);
    CHECK_INT(res.edited, 2);
    size_t len = 0;
    char *out = read_copy(s.out, &len);
    CHECK(out && len == strlen(text) + 8 + 6);
    if (out && len == strlen(text) + 8 + 6) {
        CHECK(!memcmp(out, text, head + big));
        CHECK_STR(out + head + big, "\", \"args\": {\"x\": 1, \"k\": 2}},\n{\"name\": \"e\", \"args\": {\"x\": 1}}]}");
    }
    free(out);
    free(text);
    scratch_remove(&s);
}

/* One appended event, in the first call. */
static size_t arrow(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    seen *sn = user;
    (void)d, (void)cap;
    if (sn->appended) return 0;
    sn->appended = true;
    const char *t = ",\n{\"ph\": \"s\", \"id\": 7, \"name\": \"c\"}";
    memcpy(buf, t, strlen(t));
    return strlen(t);
}

/* only_marked: unmarked complete events go, except the kept categories;
 * the appended events come before the closing ']'.                      */
TEST(trace_edit_only_marked_and_appended)
{
    const char *text = "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"args\": {}},\n"
                       "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"o\", \"args\": {}},\n"
                       "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"u\"},\n"
                       "{\"ph\": \"i\", \"name\": \"i\"}\n], \"k\": 1}";
    scratch s;
    scratch_make(&s, text);
    static const char *const keep[] = { "user_annotation", NULL };
    uint64_t marks[] = { args_of(text, "\"o\"") };
    seen sn = { text, 0, false };
    kt_trace_edit c = edit_of(&s, text);
    c.marks = marks, c.nmarks = 1, c.edit = add_x, c.user = &sn;
    c.only_marked = true, c.keep_cats = keep, c.extra = arrow;
    kt_edit_result res;
    char err[256];
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_OK);
    char *out = read_copy(s.out, NULL);
    CHECK(out != NULL);
    if (out)
        CHECK_STR(out, "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"o\", \"args\": {\"x\": 1}},\n"
                       "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"u\"},\n"
                       "{\"ph\": \"i\", \"name\": \"i\"},\n{\"ph\": \"s\", \"id\": 7, \"name\": \"c\"}\n], \"k\": 1}");
    free(out);
    scratch_remove(&s);
}

TEST(trace_edit_refuses_the_input_and_changed_files)
{
    const char *text = "{\"traceEvents\": [{\"ph\": \"X\", \"args\": {}}]}";
    scratch s;
    scratch_make(&s, text);
    kt_trace_edit c = edit_of(&s, text);
    c.out_path = s.in;
    kt_edit_result res;
    char err[256];
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_EUSAGE);
    CHECK(strstr(err, "refusing to overwrite") != NULL);
    char *back = fx_read_file(s.in, NULL);
    CHECK(back && !strcmp(back, text));
    free(back);
    /* offsets that no longer fit the file: no '[' there, or a ']' inside a
     * string, or past the end */
    uint64_t bad[][2] = { { 1, 41 }, { 16, 30 }, { 16, 400 } };
    for (size_t k = 0; k < 3; k++) {
        c = edit_of(&s, text);
        c.events_open = bad[k][0], c.events_end = bad[k][1];
        CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_EINPUT);
        CHECK(strstr(err, "damaged or changed") != NULL);
        CHECK(access(s.out, F_OK) != 0);
    }
    scratch_remove(&s);
}

/* The array is walked while it is copied: damage far into it shows only
 * after much of the copy is written.  The copy goes under a name of its
 * own, so an overlay already at out_path stays as it was, and neither a
 * cut file nor the partial one is left.                                  */
TEST(trace_edit_damage_late_in_the_array_keeps_an_earlier_overlay)
{
    enum { N = 20000 };
    char *text = malloc(N * 40 + 64);
    CHECK(text != NULL);
    if (!text) return;
    size_t n = (size_t)sprintf(text, "{\"traceEvents\": [");
    for (int i = 0; i < N; i++) n += (size_t)sprintf(text + n, "%s{\"ph\": \"X\", \"args\": {\"i\": %d}}", i ? ", " : "", i);
    n += (size_t)sprintf(text + n, "]}");
    char *last = text + n - 3; /* the last event's '}' ... */
    CHECK(*last == '}');
    scratch s;
    scratch_make(&s, text);
    kt_trace_edit c = edit_of(&s, text);
    FILE *f = fopen(s.out, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("an earlier overlay", f);
        fclose(f);
    }
    /* ... made a '{' in the file: the array no longer balances at its end */
    FILE *in = fopen(s.in, "r+b");
    CHECK(in != NULL);
    if (in) {
        fseek(in, (long)(last - text), SEEK_SET);
        fputc('{', in);
        fclose(in);
    }
    kt_edit_result res;
    char err[256];
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_EINPUT);
    CHECK(strstr(err, "damaged or changed") != NULL);
    char *back = fx_read_file(s.out, NULL);
    CHECK(back && !strcmp(back, "an earlier overlay"));
    free(back);
    char partial[320];
    snprintf(partial, sizeof partial, "%s.partial", s.out);
    CHECK(access(partial, F_OK) != 0);
    /* undamaged, the copy replaces it */
    scratch_remove(&s);
    scratch_make(&s, text);
    c = edit_of(&s, text);
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_OK);
    back = read_copy(s.out, NULL);
    CHECK(back && !strcmp(back, text));
    free(back);
    CHECK(access(partial, F_OK) != 0);
    scratch_remove(&s);
    free(text);
}

static size_t no_extra(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    (void)user, (void)d, (void)buf, (void)cap;
    return SIZE_MAX;
}

/* The child's findings as exit bits: CHECK cannot report from a fork. */
static int write_past_a_file_size_limit(const scratch *s, const char *text)
{
    struct rlimit lim = { 1024, 1024 };
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) return 1;
    kt_trace_edit c = edit_of(s, text);
    kt_edit_result res;
    char err[512];
    kt_status st = kt_write_trace_edit(&c, &res, err, sizeof err);
    return (st != KT_EANALYSIS) << 1 | (strstr(err, s->out) == NULL) << 2 | (strstr(err, "cannot write") == NULL) << 3 |
           (access(s->out, F_OK) == 0) << 4;
}

/* A copy that cannot be finished leaves no file behind and says why,
 * naming it: a full disk (here the file size limit) or appended events
 * that could not be made.                                                */
TEST(trace_edit_failed_write_removes_the_copy)
{
    size_t n = 200;
    char *text = malloc(n * 64 + 64);
    CHECK(text != NULL);
    if (!text) return;
    size_t len = (size_t)sprintf(text, "{\"traceEvents\": [");
    for (size_t k = 0; k < n; k++)
        len += (size_t)sprintf(text + len, "%s{\"ph\": \"X\", \"name\": \"event %03zu\", \"args\": {}}", k ? ",\n" : "", k);
    strcpy(text + len, "]}");
    scratch s;
    scratch_make(&s, text);
    pid_t pid = fork();
    if (pid == 0) _exit(write_past_a_file_size_limit(&s, text));
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 0);
    kt_trace_edit c = edit_of(&s, text);
    c.extra = no_extra;
    kt_edit_result res;
    char err[512];
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_EANALYSIS);
    CHECK(strstr(err, s.out) != NULL);
    CHECK(strstr(err, "events to append") != NULL);
    CHECK(access(s.out, F_OK) != 0);
    scratch_remove(&s);
    free(text);
}

/* 64 events, every third without args; the texts of the last lookups. */
typedef struct located {
    char text[8192];
    uint64_t off[64];
    uint64_t at[64]; /* kt_args_at of each offset and length */
    double ts_seen[2];
    bool found[2];
} located;

static void make_located(located *l)
{
    memset(l, 0, sizeof *l);
    size_t n = (size_t)sprintf(l->text, "{\"traceEvents\": [\n");
    for (size_t k = 0; k < 64; k++) {
        n += (size_t)sprintf(l->text + n, "%s{\"ph\": \"X\", \"name\": \"e{%zu\\\"\", \"ts\": %zu.5", k ? ",\n" : "", k,
                             1000 + k);
        if (k % 3 == 1) {
            n += (size_t)sprintf(l->text + n, "}");
            continue;
        }
        n += (size_t)sprintf(l->text + n, ", \"args\": ");
        l->off[k] = n;
        n += (size_t)sprintf(l->text + n, "{\"k\": \"]%zu\"}", k);
        l->at[k] = kt_args_at(l->off[k], n - l->off[k]);
        n += (size_t)sprintf(l->text + n, "}");
    }
    strcpy(l->text + n, "\n], \"k\": 1}");
}

/* The extra callback: the file's ts of events 5 and 60, neither marked. */
static size_t lookup_ts(void *user, const kt_edit_doc *d, char *buf, size_t cap)
{
    located *l = user;
    (void)buf, (void)cap;
    l->found[0] = kt_edit_event_number(d, l->off[5], "ts", &l->ts_seen[0]);
    l->found[1] = kt_edit_event_number(d, l->off[60], "ts", &l->ts_seen[1]);
    return 0;
}

static void mark_x(void *user, uint64_t args_off, kt_event_edit *e)
{
    (void)user, (void)args_off;
    e->add_args = "\"x\": 1";
    e->add_args_len = 6;
}

/* The copy of l's text with event 30 marked, found from the args offsets
 * (args true) or by the walk; the extra callback looks two events up.   */
static char *located_copy(located *l, const scratch *s, bool args, kt_status *st)
{
    uint64_t marks[] = { l->off[30] };
    kt_trace_edit c = edit_of(s, l->text);
    c.marks = marks, c.nmarks = 1, c.edit = mark_x, c.extra = lookup_ts, c.user = l;
    if (args) c.args_at = l->at, c.nargs = 64;
    kt_edit_result res;
    char err[256];
    *st = kt_write_trace_edit(&c, &res, err, sizeof err);
    return *st == KT_OK ? read_copy(s->out, NULL) : NULL;
}

/* Few edits: the edited event is found from the loader's args offsets,
 * the copy is the walk's byte for byte, and the appended events' lookups
 * of other events still read the file's numbers.                         */
TEST(trace_edit_located_events_equal_the_walk)
{
    located l;
    make_located(&l);
    scratch s;
    scratch_make(&s, l.text);
    kt_status st;
    char *walked = located_copy(&l, &s, false, &st);
    CHECK_INT(st, KT_OK);
    char *found = located_copy(&l, &s, true, &st);
    CHECK_INT(st, KT_OK);
    CHECK(walked && found && !strcmp(walked, found));
    CHECK(found && strstr(found, "\"args\": {\"x\": 1, \"k\": \"]30\"}") != NULL);
    CHECK(l.found[0] && l.found[1]);
    CHECK(l.ts_seen[0] == 1005.5 && l.ts_seen[1] == 1060.5);
    free(walked);
    free(found);
    /* the file changed under the offsets (event 30's args moved by a
     * byte): the walk over the whole array writes the copy as before    */
    memmove(l.text + l.off[30] + 1, l.text + l.off[30], strlen(l.text + l.off[30]) + 1);
    l.text[l.off[30]] = ' ';
    scratch_remove(&s);
    scratch_make(&s, l.text);
    uint64_t events_end = (uint64_t)(strstr(l.text, "],") - l.text);
    found = located_copy(&l, &s, true, &st);
    CHECK_INT(st, KT_OK);
    CHECK(found && strlen(found) == events_end + strlen("], \"k\": 1}"));
    free(found);
    scratch_remove(&s);
}

/* Runs of unedited events longer than the sink writes in one piece
 * (KT_SINK_DIRECT): the copy holds them where they were, between the
 * edited events, found either way; every byte is counted.  The file
 * (5 MB) spans several of the writer's windows, the later ones read in
 * part by the write-behind thread, with edits in each.                  */
static bool long_run_mark(size_t k) { return k == 7 || k == 5900 || k % 1000 == 900; }

TEST(trace_edit_long_runs_copied_from_the_file)
{
    enum { N = 60000 };
    size_t cap = (size_t)N * 96 + 64;
    char *text = malloc(cap), *want = malloc(cap + 64);
    uint64_t *off = calloc(N, sizeof *off);
    uint64_t *args_at = calloc(N, sizeof *args_at);
    CHECK(text && want && off && args_at);
    if (!text || !want || !off || !args_at) return;
    size_t n = (size_t)sprintf(text, "{\"traceEvents\": [\n"), w = n;
    memcpy(want, text, n);
    for (size_t k = 0; k < N; k++) {
        size_t at = n;
        n += (size_t)sprintf(text + n, "%s{\"ph\": \"X\", \"name\": \"event %04zu\", \"ts\": %zu, \"args\": ",
                             k ? ",\n" : "", k, 1000 + k);
        off[k] = n;
        n += (size_t)sprintf(text + n, "{\"k\": %zu}}", k);
        args_at[k] = kt_args_at(off[k], n - off[k] - 1);
        memcpy(want + w, text + at, off[k] + 1 - at); /* up to the args' '{' */
        w += off[k] + 1 - at;
        if (long_run_mark(k)) w += (size_t)sprintf(want + w, "\"x\": 1, ");
        memcpy(want + w, text + off[k] + 1, n - off[k] - 1);
        w += n - off[k] - 1;
    }
    w += (size_t)sprintf(want + w, "\n]}");
    strcpy(text + n, "\n]}");
    CHECK(n > 4 * (1 << 20));
    scratch s;
    scratch_make(&s, text);
    uint64_t *marks = malloc(N * sizeof *marks);
    size_t nmarks = 0;
    CHECK(marks != NULL);
    for (size_t k = 0; marks && k < N; k++)
        if (long_run_mark(k)) marks[nmarks++] = off[k];
    for (int located_run = 0; located_run < 2; located_run++) {
        kt_trace_edit c = edit_of(&s, text);
        c.marks = marks, c.nmarks = nmarks, c.edit = mark_x;
        if (located_run) c.args_at = args_at, c.nargs = N;
        kt_edit_result res;
        char err[256];
        CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_OK);
        size_t got_len = 0;
        char *got = read_copy(s.out, &got_len);
        CHECK(got && got_len == w && !memcmp(got, want, w));
        CHECK_INT((int)res.json_bytes, (int)(w + strlen(SOURCE_MEMBER)));
        CHECK_INT((int)res.edited, 61);
        free(got);
    }
    scratch_remove(&s);
    free(marks);
    free(text);
    free(want);
    free(off);
    free(args_at);
}

/* Edited events found from the offsets as the copy goes, through the
 * writer's window on the file (1 MiB): events and args larger than it
 * (strings full of brackets), edited or just before an edited one, and
 * half of all events edited give the walk's copy byte for byte.         */
TEST(trace_edit_located_events_larger_than_the_window)
{
    enum { N = 40, BIG = (1 << 20) + (300 << 10) };
    size_t cap = (size_t)N * 160 + 6 * (size_t)BIG + 64, n;
    char *text = malloc(cap);
    uint64_t *args_at = calloc(N, sizeof *args_at), marks[N];
    CHECK(text && args_at);
    if (!text || !args_at) return;
    n = (size_t)sprintf(text, "{\"traceEvents\": [\n");
    size_t nmarks = 0;
    for (size_t k = 0; k < N; k++) {
        n += (size_t)sprintf(text + n, "%s{\"ph\": \"X\", \"name\": \"e%zu\", \"args\": ", k ? ",\n" : "", k);
        size_t off = n;
        n += (size_t)sprintf(text + n, "{\"k\": %zu, \"pad\": \"", k);
        size_t pad = k % 7 == 3 ? (size_t)BIG : 40; /* events 3, 10, ... larger than the window */
        for (size_t i = 0; i < pad; i++) text[n + i] = "a{]}[\"x"[i % 6];
        for (size_t i = 5; i < pad; i += 6) text[n + i] = ' '; /* no quote inside the string */
        n += pad;
        n += (size_t)sprintf(text + n, "\"}");
        args_at[k] = kt_args_at(off, n - off);
        n += (size_t)sprintf(text + n, ", \"ts\": %zu}", 1000 + k);
        if (k % 2 == 0 || k % 7 == 3) marks[nmarks++] = off;
    }
    strcpy(text + n, "\n], \"k\": 1}"); /* "]," only here: edit_of's end of traceEvents */
    scratch s;
    scratch_make(&s, text);
    char *copies[2] = { NULL, NULL };
    for (int located_run = 0; located_run < 2; located_run++) {
        kt_trace_edit c = edit_of(&s, text);
        c.marks = marks, c.nmarks = nmarks, c.edit = mark_x;
        if (located_run) c.args_at = args_at, c.nargs = N;
        kt_edit_result res;
        char err[256];
        CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_OK);
        CHECK_INT((int)res.edited, (int)nmarks);
        CHECK(res.walked == !located_run);
        copies[located_run] = read_copy(s.out, NULL);
    }
    CHECK(copies[0] && copies[1] && !strcmp(copies[0], copies[1]));
    CHECK(copies[1] && strstr(copies[1], "\"args\": {\"x\": 1, \"k\": 3, \"pad\"") != NULL);
    CHECK(copies[1] && strlen(copies[1]) == n + strlen("\n], \"k\": 1}") + nmarks * strlen("\"x\": 1, "));
    free(copies[0]);
    free(copies[1]);
    scratch_remove(&s);
    free(text);
    free(args_at);
}

/* The edit of a file another program cuts short while it is copied:
 * "x": 1 on the marked event, and the file cut to 100 bytes then.       */
static void mark_and_cut(void *user, uint64_t args_off, kt_event_edit *e)
{
    (void)args_off;
    CHECK_INT(truncate((const char *)user, 100), 0);
    e->add_args = "\"x\": 1";
    e->add_args_len = 6;
}

/* One copy of a 4 MB trace whose file is cut short at the edit,
 * in a child (a SIGBUS there fails the test instead of ending it), with
 * the loader's offsets or without them (the walk): KT_EINPUT naming the
 * file, no copy, nothing ".partial".  0 when all was so.                 */
static int copy_while_cut(const scratch *s, const char *text, const uint64_t *args_at, size_t nargs, uint64_t mark)
{
    kt_trace_edit c = edit_of(s, text);
    c.marks = &mark, c.nmarks = 1, c.edit = mark_and_cut, c.user = (void *)s->in;
    c.args_at = args_at, c.nargs = nargs;
    kt_edit_result res;
    char err[512] = "", partial[320];
    kt_status st = kt_write_trace_edit(&c, &res, err, sizeof err);
    snprintf(partial, sizeof partial, "%s.partial", s->out);
    if (access(partial, F_OK) == 0) return 1;
    bool said = strstr(err, s->in) && strstr(err, "cut short");
    return st == KT_EINPUT && said && access(s->out, F_OK) != 0 ? 0 : 3;
}

TEST(trace_edit_input_cut_short_while_copied)
{
    enum { N = 60000 };
    char *text = malloc((size_t)N * 96 + 64);
    uint64_t *args_at = calloc(N, sizeof *args_at), mark = 0, late = 0;
    CHECK(text && args_at);
    if (!text || !args_at) return;
    size_t n = (size_t)sprintf(text, "{\"traceEvents\": [\n");
    for (size_t k = 0; k < N; k++) {
        n += (size_t)sprintf(text + n, "%s{\"ph\": \"X\", \"name\": \"event %05zu\", \"ts\": %zu, \"args\": ",
                             k ? ",\n" : "", k, 1000 + k);
        uint64_t off = n;
        n += (size_t)sprintf(text + n, "{\"k\": %zu}}", k);
        args_at[k] = kt_args_at(off, n - off - 1);
        if (k == 3) mark = off;
        if (k == 50000) late = off; /* in a window read partly on the write-behind thread */
    }
    strcpy(text + n, "\n]}");
    CHECK(n > 4 * (1u << 20));
    for (int run = 0; run < 4; run++) {
        bool with_offsets = run % 2;
        scratch s;
        scratch_make(&s, text);
        pid_t pid = fork();
        if (pid == 0)
            _exit(copy_while_cut(&s, text, with_offsets ? args_at : NULL, with_offsets ? N : 0, run < 2 ? mark : late));
        int status = -1;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status)); /* not killed by SIGBUS */
        CHECK_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
        scratch_remove(&s);
    }
    /* cut before the copy starts: the offsets no longer fit, an input error */
    scratch s;
    scratch_make(&s, text);
    CHECK_INT(truncate(s.in, 100), 0);
    kt_trace_edit c = edit_of(&s, text);
    c.marks = &mark, c.nmarks = 1, c.edit = mark_x, c.args_at = args_at, c.nargs = N;
    kt_edit_result res;
    char err[512];
    CHECK_INT(kt_write_trace_edit(&c, &res, err, sizeof err), KT_EINPUT);
    CHECK(strstr(err, s.in) != NULL);
    CHECK(access(s.out, F_OK) != 0);
    scratch_remove(&s);
    free(text);
    free(args_at);
}

/* The sink alone: batches handed to the write-behind thread land in
 * order, whatever mix of gathered bytes, the caller's bytes (reused for
 * the next batch only after the flush that follows) and large pieces
 * written at once makes them; every byte is counted.                    */
TEST(sink_write_behind_keeps_the_order)
{
    enum { ROUNDS = 64, PIECE = 5000 };
    scratch f;
    scratch_make(&f, "unused");
    char err[256], *bufs[2], *big = malloc(KT_SINK_DIRECT);
    char *want = malloc((size_t)ROUNDS * (2 * PIECE + 8 + KT_SINK_DIRECT));
    bufs[0] = malloc(PIECE), bufs[1] = malloc(PIECE);
    CHECK(big && want && bufs[0] && bufs[1]);
    if (!big || !want || !bufs[0] || !bufs[1]) return;
    kt_sink s;
    CHECK(kt_sink_open(&s, f.out, false, NULL, err, sizeof err));
    size_t w = 0;
    for (int r = 0; r < ROUNDS; r++) {
        char *b = bufs[r % 2]; /* free again: its batch went out before the last flush */
        memset(b, 'a' + r % 26, PIECE);
        char tag[8];
        int t = snprintf(tag, sizeof tag, "<%d>", r);
        kt_sink_emit_ref(&s, b, PIECE);
        kt_sink_emit(&s, tag, (size_t)t);
        kt_sink_emit_ref(&s, b, PIECE);
        memcpy(want + w, b, PIECE), w += PIECE;
        memcpy(want + w, tag, (size_t)t), w += (size_t)t;
        memcpy(want + w, b, PIECE), w += PIECE;
        if (r % 5 == 4) {
            memset(big, 'A' + r % 26, KT_SINK_DIRECT);
            kt_sink_emit(&s, big, KT_SINK_DIRECT); /* written at once, after the gathered bytes */
            memcpy(want + w, big, KT_SINK_DIRECT), w += KT_SINK_DIRECT;
        }
        kt_sink_flush(&s);
    }
    CHECK_INT((int)s.json_bytes, (int)w);
    CHECK(kt_sink_close(&s));
    size_t n = 0;
    char *out = fx_read_file(f.out, &n);
    CHECK(out && n == w && !memcmp(out, want, w));
    free(out);
    free(want);
    free(big);
    free(bufs[0]);
    free(bufs[1]);
    scratch_remove(&f);
}

/* A copy names its source right after its first '{', however the bytes
 * come (the caller's or gathered ones), and discovery finds it; a
 * trace that merely mentions the key later is not taken for a copy. */
TEST(sink_names_the_source_after_the_first_brace)
{
    scratch f;
    scratch_make(&f, " {\"traceEvents\": []}");
    char err[256], source[64];
    kt_sink s;
    CHECK(kt_sink_open(&s, f.out, false, "some/dir/in \"1\".json", err, sizeof err));
    kt_sink_emit_ref(&s, " {\"tr", 5);
    kt_sink_emit(&s, "aceEvents\": []}", 15);
    CHECK(kt_sink_close(&s));
    char *out = fx_read_file(f.out, NULL);
    CHECK(out && !strcmp(out, " {\"kinetaSource\": \"in \\\"1\\\".json\", \"traceEvents\": []}"));
    free(out);
    CHECK(kt_derived_trace(f.out, source, sizeof source));
    CHECK_STR(source, "in \\\"1\\\".json"); /* as written: the note quotes it */
    CHECK(!kt_derived_trace(f.in, source, sizeof source));
    scratch_remove(&f);
    scratch_make(&f, "{\"traceEvents\": [], \"kinetaSource\": \"x\"}");
    CHECK(!kt_derived_trace(f.in, source, sizeof source));
    scratch_remove(&f);
}
