/* test_gpu_file_order.c — kt_gpu_events_file_order: the GPU work events
 * of the index's streams, filtered, back in file order, with CPU events
 * and stream-bearing cuda_sync left out.                                 */
#include "analysis/common/gpu_file_order.h"
#include "fixture.h"
#include "test.h"

#include <stdlib.h>

#define US 1000

/* File order: 0 a CPU op, 1 kB (stream 8, at 5), 2 kA (stream 7, at 20),
 * 3 a memcpy (stream 7, at 0), 4 a cuda_sync (stream 7), 5 kC (stream 8,
 * at 1: before kB in time, after it in the file).                        */
static kt_trace *order_trace(void)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    fx_event(t, r, 'X', "cpu_op", "aten::mm", 0, 50 * US, 1, 1, -1, -1);
    fx_event(t, r, 'X', "kernel", "kB", 5 * US, 2 * US, 0, 8, 8, -1);
    fx_event(t, r, 'X', "kernel", "kA", 20 * US, 2 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 3 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "cuda_sync", "Stream Wait Event", 30 * US, 1 * US, 0, 7, 7, -1);
    fx_event(t, r, 'X', "kernel", "kC", 1 * US, 1 * US, 0, 8, 8, -1);
    fx_finish(t);
    return t;
}

static bool kernels_only(void *ctx, const kt_rank *r, uint32_t ev)
{
    (void)ctx;
    return r->ev.kind[ev] == KT_K_KERNEL;
}

TEST(gpu_file_order_all_and_filtered)
{
    kt_trace *t = order_trace();
    size_t n = 0;
    uint64_t *ev = kt_gpu_events_file_order(t->ranks[0], NULL, NULL, &n);
    CHECK(ev && n == 4);
    if (ev && n == 4) CHECK(ev[0] == 1 && ev[1] == 2 && ev[2] == 3 && ev[3] == 5);
    free(ev);
    ev = kt_gpu_events_file_order(t->ranks[0], kernels_only, NULL, &n);
    CHECK(ev && n == 3);
    if (ev && n == 3) CHECK(ev[0] == 1 && ev[1] == 2 && ev[2] == 5);
    free(ev);
    kt_trace_free(t);
}
