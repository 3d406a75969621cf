/* test_event_locate.c — one event found from the loader's args offsets:
 * the same bounds as the walk over the whole array for every event with
 * args, whatever its strings hold (braces, brackets, escaped quotes,
 * "args" inside a string), with events without args between; offsets out
 * of order or outside traceEvents refused; a file changed under the
 * offsets answers false, not a wrong event.                              */
#include "output/event_locate.h"
#include "model/model.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEV 40

typedef struct doc {
    char text[16384];
    size_t len, open, close;
    uint64_t off[NEV];
    uint32_t len_of[NEV];
    uint64_t at[NEV];   /* kt_args_at of off and len_of */
} doc;

/* Event k: tricky strings before and inside args on some, none on others. */
static void put_event(doc *d, size_t k)
{
    static const char *const names[] = { "plain",     "br{ace}", "sq[uare]",
                                         "esc\\\"q{", "back\\\\", "has \\\"args\\\": {" };
    d->len += (size_t)sprintf(d->text + d->len, "%s{\"ph\": \"X\", \"name\": \"%s %zu\"", k ? ",\n" : "",
                              names[k % 6], k);
    if (k % 3 == 2) { /* no args: a flow-like event */
        d->len += (size_t)sprintf(d->text + d->len, ", \"id\": %zu}", k);
        return;
    }
    d->len += (size_t)sprintf(d->text + d->len, ", \"args\": ");
    d->off[k] = d->len;
    d->len += (size_t)sprintf(d->text + d->len, "{\"s\": \"}]%zu\\\"{\", \"n\": [1, {\"x\": 2}]}", k);
    d->len_of[k] = (uint32_t)(d->len - d->off[k]);
    d->at[k] = kt_args_at(d->off[k], d->len_of[k]);
    d->len += (size_t)sprintf(d->text + d->len, ", \"tail\": \"}\"}");
}

static void make_doc(doc *d)
{
    memset(d, 0, sizeof *d);
    d->len = (size_t)sprintf(d->text, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    d->open = d->len - 2;
    for (size_t k = 0; k < NEV; k++) put_event(d, k);
    d->close = d->len + 1;
    d->len += (size_t)sprintf(d->text + d->len, "\n], \"k\": {}}");
}

TEST(locate_event_matches_the_walk_for_every_event)
{
    doc d;
    make_doc(&d);
    CHECK_INT(d.text[d.open], '[');
    CHECK_INT(d.text[d.close], ']');
    kt_spans all = { 0 };
    CHECK(kt_find_event_spans(d.text, d.len, d.open, d.close, &all));
    CHECK_INT(all.n, NEV);
    kt_args_index a;
    CHECK(kt_args_index_init(&a, d.at, NEV, d.open, d.close));
    CHECK_INT(a.nwith, NEV - NEV / 3);
    size_t hint = 0, found = 0;
    for (size_t k = 0; k < NEV && all.n == NEV; k++) {
        if (!d.off[k]) continue;
        kt_span s = { 0, 0 }, r = { 0, 0 };
        CHECK(kt_locate_event(d.text, &a, d.off[k], &hint, &s));
        CHECK(kt_locate_event(d.text, &a, d.off[k], NULL, &r)); /* without the hint: the same */
        CHECK_INT(s.start, all.s[k].start);
        CHECK_INT(s.end, all.s[k].end);
        CHECK_INT(r.start, s.start);
        CHECK_INT(r.end, s.end);
        found++;
    }
    CHECK_INT(found, NEV - NEV / 3);
    kt_span s;
    CHECK(!kt_locate_event(d.text, &a, d.off[0] + 1, NULL, &s)); /* not an args offset */
    kt_args_index_free(&a);
    kt_spans_free(&all);
}

TEST(locate_event_refuses_offsets_that_do_not_fit)
{
    doc d;
    make_doc(&d);
    kt_args_index a;
    uint64_t swapped[NEV];
    memcpy(swapped, d.at, sizeof swapped);
    swapped[0] = d.at[1], swapped[1] = d.at[0];
    CHECK(!kt_args_index_init(&a, swapped, NEV, d.open, d.close));
    kt_args_index_free(&a);
    CHECK(!kt_args_index_init(&a, d.at, NEV, d.open, d.off[NEV - 2] + 3)); /* past the ']' */
    kt_args_index_free(&a);
    /* the file changed under the offsets: an event's head grew by a byte,
     * its args' '{' moved; a quote opened before an args object           */
    CHECK(kt_args_index_init(&a, d.at, NEV, d.open, d.close));
    kt_span s;
    doc moved = d;
    memmove(moved.text + d.off[4] - 9, moved.text + d.off[4] - 10, moved.len - (d.off[4] - 10));
    CHECK(!kt_locate_event(moved.text, &a, d.off[4], NULL, &s));
    doc quoted = d;
    quoted.text[d.off[4] - 2] = '"'; /* `"args": {` becomes `"args"" {` */
    CHECK(!kt_locate_event(quoted.text, &a, d.off[4], NULL, &s));
    CHECK(kt_locate_event(d.text, &a, d.off[4], NULL, &s));
    kt_args_index_free(&a);
}
