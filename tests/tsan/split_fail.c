/*
 * split_fail.c — a split load whose range in the middle fails while the
 * other parser threads go on, run under ThreadSanitizer by
 * tests/tsan_check.sh (make tsan).
 *
 * Why a program of its own: through files, a range fails only on a read
 * error or out of memory, and its commit then takes microseconds, so the
 * other threads never read the shared "failed" flag during it and
 * ThreadSanitizer had nothing to see.  Here the ranges come from memory
 * through the loader's range interface (kt_parse_ranges): range FAIL_K is
 * guessed inside an event, so its commit parses it again from the end of
 * the prefix, and that read fails only after SLOW_MS, long enough for the
 * other threads to finish their small ranges and read the flag.  Nothing
 * here synchronizes the threads (the counters are relaxed atomics), so a
 * write of the flag outside the parsers' lock is reported as a race.
 */
#include "load/load_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVENTS 4000
#define RANGES 64
#define FAIL_K 20
#define SLOW_MS 300

typedef struct mem_ranges {
    char *buf;
    size_t len;
    uint64_t starts[RANGES];
    atomic_int slow_reads; /* relaxed: must not order the threads */
} mem_ranges;

static kt_range_kind mem_start(void *ctx, size_t k, uint64_t *off)
{
    mem_ranges *m = ctx;
    if (k >= RANGES) return KT_RANGE_END;
    *off = m->starts[k];
    return KT_RANGE_AT;
}

/* Range FAIL_K cannot be read: at its guess at once, from anywhere else in
 * it (its commit's second parse) after SLOW_MS.                         */
static kt_status mem_open(void *ctx, uint64_t off, kt_src **out)
{
    mem_ranges *m = ctx;
    if (off >= m->starts[FAIL_K] && off < m->starts[FAIL_K + 1]) {
        if (off != m->starts[FAIL_K]) {
            atomic_fetch_add_explicit(&m->slow_reads, 1, memory_order_relaxed);
            nanosleep(&(struct timespec){ .tv_nsec = SLOW_MS * 1000000L }, NULL);
        }
        return KT_EINPUT;
    }
    return kt_src_open_mem(m->buf + off, m->len - off, out);
}

static void mem_release(void *ctx, uint64_t end, size_t next)
{
    (void)ctx, (void)end, (void)next;
}

/* EVENTS small events; range k guessed at an event start, FAIL_K's at
 * the middle of one.                                                     */
static bool make_trace(mem_ranges *m)
{
    size_t cap = (size_t)EVENTS * 128 + 256;
    if (!(m->buf = calloc(1, cap + KT_WIN_PAD))) return false;
    size_t n = (size_t)snprintf(m->buf, cap, "{\"traceEvents\": [");
    for (int i = 0; i < EVENTS; i++) {
        if (i % (EVENTS / RANGES) == 0) m->starts[i / (EVENTS / RANGES)] = n + (i ? 2 : 0); /* after ", " */
        n += (size_t)snprintf(m->buf + n, cap - n,
                              "%s{\"ph\": \"X\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}",
                              i ? ", " : "", i, 10 * i);
    }
    n += (size_t)snprintf(m->buf + n, cap - n, "]}");
    m->starts[0] = 0;
    m->starts[FAIL_K] += 10;
    m->len = n;
    return true;
}

int main(void)
{
    mem_ranges m = { 0 };
    if (!make_trace(&m)) return 2;
    kt_load_options opt = kt_load_defaults();
    kt_load_ctx ctx = { .strs = kt_strtab_new(), .opt = &opt, .njobs = 1, .threads = 4,
                        .range_bytes = m.len / RANGES };
    kt_file_job job = { .path = "split_fail", .explicit_rank = -1, .file_bytes = m.len,
                        .rank = kt_rank_new() };
    kt_icache *cache = kt_icache_new();
    if (!ctx.strs || !job.rank || !cache) return 2;
    kt_range_io io = { &m, mem_start, mem_open, mem_release };
    uint64_t json_bytes = m.len;
    kt_status st = kt_parse_ranges(&ctx, &job, cache, &io, &json_bytes);
    int slow = atomic_load_explicit(&m.slow_reads, memory_order_relaxed);
    int rc = 0;
    if (st != KT_EINPUT) {
        fprintf(stderr, "split_fail: status %d, want %d (input unreadable)\n", (int)st, (int)KT_EINPUT);
        rc = 1;
    }
    if (slow == 0) {
        fprintf(stderr, "split_fail: range %d was not read again in its commit: the test no longer "
                        "holds a commit open while the other threads run\n", FAIL_K);
        rc = 1;
    }
    kt_diags_clear(&job.diags);
    kt_rank_free(job.rank);
    free(cache);
    kt_strtab_free(ctx.strs);
    free(m.buf);
    return rc;
}
