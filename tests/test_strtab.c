/* test_strtab.c — interning: same string same id, ids stable, growth. */
#include "test.h"
#include "model/model.h"

TEST(strtab_interns_and_finds)
{
    kt_strtab *t = kt_strtab_new();
    uint32_t a = kt_strtab_intern(t, "kernel", 6);
    uint32_t b = kt_strtab_intern(t, "cpu_op", 6);
    CHECK(a != b);
    CHECK_INT(kt_strtab_intern(t, "kernel", 6), a);
    CHECK_INT(kt_strtab_find(t, "cpu_op", 6), b);
    CHECK_INT(kt_strtab_find(t, "nope", 4), KT_NONE);
    CHECK_STR(kt_strtab_get(t, a), "kernel");
    kt_strtab_free(t);
}

TEST(strtab_survives_growth)
{
    kt_strtab *t = kt_strtab_new();
    char buf[32];
    for (int i = 0; i < 100000; i++) {
        int n = snprintf(buf, sizeof buf, "name%d", i);
        CHECK_INT(kt_strtab_intern(t, buf, (size_t)n), i);
    }
    CHECK_STR(kt_strtab_get(t, 77777), "name77777");
    CHECK_INT(kt_strtab_count(t), 100000);
    kt_strtab_free(t);
}

TEST(events_typed_args)
{
    kt_rank *r = kt_rank_new();
    kt_events_push(&r->ev);
    kt_events_push(&r->ev);
    CHECK(kt_rank_push_arg(r, KT_ARG_GRID_X, KT_ARGT_INT, 128, 0, 0));
    CHECK(kt_rank_push_arg(r, KT_ARG_MEMORY_BW_GBPS, KT_ARGT_FLOAT, 0, 1.5, 0));
    CHECK_INT(kt_event_arg_int(r, 1, KT_ARG_GRID_X, -1), 128);
    CHECK_NEAR(kt_event_arg_float(r, 1, KT_ARG_MEMORY_BW_GBPS, 0), 1.5, 0);
    CHECK_INT(kt_event_arg_int(r, 0, KT_ARG_GRID_X, -1), -1);
    CHECK_INT(r->ev.dur[0], -1);
    kt_rank_free(r);
}
