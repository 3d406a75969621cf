/*
 * test_index_limits.c — a rank's events and typed args are indexed with
 * 32-bit ids, KT_NONE excluded: the model refuses to pass KT_EVENTS_MAX
 * and KT_ARGS_MAX instead of truncating an index (an arg index that wraps
 * reads another event's args, or none: KT_NONE means "no args"), and a
 * load that would pass them fails, saying so.  The ranks near the limit
 * hold their args in a sparse mapping of ~48 GiB (MAP_NORESERVE) of which
 * only the last pages are touched.
 */
#include "test.h"
#include "load/load_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A rank whose args are a sparse mapping of cap args, the first n used. */
static kt_rank *rank_with_args(size_t cap, size_t n)
{
    void *mem = mmap(NULL, cap * sizeof(kt_arg), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        kt_test_skip("cannot map 48 GiB of address space");
        return NULL;
    }
    kt_rank *r = kt_rank_new();
    CHECK(r != NULL);
    if (!r) {
        munmap(mem, cap * sizeof(kt_arg));
        return NULL;
    }
    r->args = mem;
    r->cap_args = cap;
    r->nargs = n;
    return r;
}

static void release(kt_rank *r)
{
    munmap(r->args, r->cap_args * sizeof(kt_arg));
    r->args = NULL;
    r->nargs = r->cap_args = 0;
    kt_rank_free(r);
}

TEST(rank_append_stops_at_the_typed_arg_index_limit)
{
    kt_rank *dst = rank_with_args(KT_ARGS_MAX + 8, KT_ARGS_MAX - 1);
    if (!dst) return;
    kt_rank *src = kt_rank_new();
    for (int i = 0; i < 3; i++) {
        CHECK(kt_events_push(&src->ev) != KT_NONE);
        CHECK(kt_rank_push_arg(src, KT_ARG_DEVICE, KT_ARGT_INT, 10 + i, 0, 0));
    }
    /* appended, the third event's arg would be at index UINT32_MAX: KT_NONE,
     * "no args" (the second's is one past KT_ARGS_MAX args already)        */
    CHECK(!kt_rank_fits(dst, 3, 3));
    CHECK(!kt_rank_append(dst, src));
    CHECK_INT(dst->ev.n, 0);
    CHECK_INT(dst->nargs, KT_ARGS_MAX - 1);
    dst->nargs = KT_ARGS_MAX - 3; /* room for all three: the last index is KT_NONE - 2 */
    CHECK(kt_rank_fits(dst, 3, 3));
    CHECK(kt_rank_append(dst, src));
    CHECK_INT(dst->nargs, KT_ARGS_MAX);
    CHECK_INT(dst->ev.argi[2], (uint32_t)KT_NONE - 2);
    for (uint32_t i = 0; i < 3; i++) CHECK_INT(kt_event_arg_int(dst, i, KT_ARG_DEVICE, -1), 10 + i);
    kt_rank_free(src);
    release(dst);
}

TEST(rank_reserve_refuses_past_the_index_limits)
{
    kt_rank *r = kt_rank_new();
    CHECK(!kt_rank_reserve_args(r, KT_ARGS_MAX + 1));
    CHECK(!kt_events_reserve(&r->ev, KT_EVENTS_MAX + 1));
    CHECK(r->args == NULL && r->cap_args == 0 && r->ev.cap == 0); /* nothing allocated */
    kt_rank_free(r);
}

/* A kernel with typed args (device, grid...) parsed into a rank holding
 * KT_ARGS_MAX - 1 args already: the load fails as input it cannot hold,
 * naming the limit, not as out of memory and not with args lost.        */
TEST(load_past_the_typed_arg_limit_fails_saying_so)
{
    const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                       "\"ts\":1,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3,"
                       "\"grid\":[4,1,1],\"block\":[128,1,1]}}]}";
    kt_rank *r = rank_with_args(KT_ARGS_MAX, KT_ARGS_MAX - 1);
    if (!r) return;
    kt_strtab *strs = kt_strtab_new();
    kt_icache *cache = kt_icache_new();
    kt_window w;
    kt_parser p;
    kt_src *src = NULL;
    CHECK(strs && cache && kt_window_init(&w, 0));
    CHECK(kt_parser_init(&p, r, strs, cache, "big.json", &w));
    CHECK_INT(kt_src_open_mem(json, strlen(json), &src), KT_OK);
    bool ok = kt_parse_stream(&p, src);
    kt_file_job j = { .path = "big.json", .rank = r, .dist_rank = -1 };
    CHECK_INT(kt_finish_job(&j, &p, ok, strlen(json)), KT_EINPUT);
    const kt_diag *d = kt_diags_count(&j.diags) ? kt_diags_get(&j.diags, kt_diags_count(&j.diags) - 1) : NULL;
    CHECK(d && d->level == KT_DIAG_ERROR && strstr(d->message, "more than 4294967294 typed args in one file"));
    kt_diags_clear(&j.diags);
    kt_src_close(src);
    kt_parser_free(&p);
    kt_window_free(&w);
    free(cache);
    kt_strtab_free(strs);
    release(r);
}
