/*
 * test_threads.c — where an event ran (pid, tid, stream) as a slot in the
 * rank's table of threads (model.h, kt_events.threads): equal triples
 * share a slot, the values come back as they went in past the table's
 * growth, a selection keeps them, a new stream gets its own slot, and a
 * load keeps every pid, tid and stream the file wrote.
 */
#include "test.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

TEST(threads_equal_triples_share_a_slot_past_growth)
{
    kt_rank *r = kt_rank_new(); /* kt_rank_free frees the columns and the table */
    CHECK(r != NULL);
    if (!r) return;
    kt_events *e = &r->ev;
    CHECK(kt_events_reserve(e, 4000));
    for (uint32_t i = 0; i < 4000; i++) {
        int32_t pid = (int32_t)(i % 1000) - 500, tid = (int32_t)(i % 1000) * 7; /* 1000 triples, each 4 times */
        e->thread[i] = kt_events_thread(e, pid, tid, (int32_t)(i % 1000) % 3 - 1);
        e->n++;
    }
    CHECK_INT(e->nthreads, 1000);
    size_t bad = 0;
    for (uint32_t i = 0; i < 4000; i++)
        bad += kt_ev_pid(e, i) != (int32_t)(i % 1000) - 500 || kt_ev_tid(e, i) != (int32_t)(i % 1000) * 7 ||
               kt_ev_stream(e, i) != (int32_t)(i % 1000) % 3 - 1 || e->thread[i] != e->thread[i % 1000];
    CHECK_INT(bad, 0);
    CHECK_INT(kt_events_thread(e, 1, 2, -1), 1000); /* (1, 2, -1) is new; (2, 1, -1), (1, 2, 0) others */
    CHECK_INT(kt_events_thread(e, 2, 1, -1), 1001);
    CHECK_INT(kt_events_thread(e, 1, 2, 0), 1002);
    CHECK_INT(kt_events_thread(e, 1, 2, -1), 1000);
    CHECK(kt_events_set_stream(e, 3999, 42)); /* (499, 6993, 42): a new slot, same thread */
    CHECK_INT(e->thread[3999], 1003);
    CHECK_INT(kt_ev_pid(e, 3999), 999 - 500);
    CHECK_INT(kt_ev_stream(e, 3999), 42);
    CHECK_INT(kt_ev_stream(e, 999), -1);
    uint32_t pick[] = { 3999, 5, 5 };
    CHECK(kt_events_select(e, pick, 3, 1));
    CHECK_INT(e->n, 3);
    CHECK_INT(kt_ev_pid(e, 0), 999 - 500);
    CHECK_INT(kt_ev_tid(e, 0), 999 * 7);
    CHECK_INT(kt_ev_stream(e, 0), 42);
    CHECK_INT(kt_ev_pid(e, 1), 5 - 500);
    CHECK_INT(e->thread[1], e->thread[2]);
    kt_events_clear_threads(e);
    CHECK_INT(e->nthreads, 0);
    CHECK_INT(kt_events_thread(e, 7, 7, 7), 0);
    kt_rank_free(r);
}

#define HEAD "{\"schemaVersion\": 1, \"traceEvents\": [\n"

/* Every pid and tid as written (small, negative, beyond 32 bits, strings),
 * and the stream arg wherever the args put it.                          */
TEST(threads_load_keeps_every_pid_tid_and_stream)
{
    const char *json = HEAD
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"pid\": 4294967296, \"tid\": -5, \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"c\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 3, \"dur\": 1, "
        "\"args\": {\"device\": 0, \"stream\": 7}},\n"
        "{\"args\": {\"stream\": 9}, \"cat\": \"kernel\", \"dur\": 1, \"name\": \"c2\", \"ph\": \"X\", \"pid\": 0, "
        "\"tid\": \"stream 7\", \"ts\": 3},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"d\", \"pid\": 1, \"tid\": 2, \"ts\": 4, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e\", \"pid\": 2, \"tid\": 1, \"ts\": 5, \"dur\": 1}\n"
        "]}";
    kt_trace *t = NULL;
    kt_diags *fail = NULL;
    CHECK_INT(kt_load_buffer("rank0.json", json, strlen(json), NULL, &t, &fail), KT_OK);
    kt_diags_free(fail);
    if (!t) return;
    const kt_rank *r = t->ranks[0];
    CHECK_INT(r->ev.n, 6);
    CHECK_INT(r->ev.nthreads, 5);
    CHECK_INT(kt_event_pid(r, 0), 1);
    CHECK_INT(kt_event_tid(r, 0), 2);
    CHECK_INT(kt_event_pid(r, 1), 4294967296LL);
    CHECK_INT(kt_event_tid(r, 1), -5);
    CHECK_INT(kt_event_pid(r, 2), 0);
    int64_t tid = kt_event_tid(r, 2);
    CHECK(kt_id_is_str(tid));
    CHECK_STR(kt_strtab_get(t->strs, kt_id_str(tid)), "stream 7");
    CHECK_INT(kt_ev_stream(&r->ev, 2), 7);
    CHECK_INT(kt_ev_stream(&r->ev, 3), 9); /* sorted keys: args read after the event */
    CHECK_INT(kt_event_tid(r, 3), tid);
    CHECK_INT(kt_ev_stream(&r->ev, 0), -1);
    CHECK_INT(r->ev.thread[4], r->ev.thread[0]);
    CHECK_INT(kt_event_pid(r, 5), 2);
    CHECK_INT(kt_event_tid(r, 5), 1);
    kt_trace_free(t);
}
