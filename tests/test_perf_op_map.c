/* test_perf_op_map.c — the perf map of one rank (op_kernels.h) on a
 * hand-built stack: launchers, a modelled op owning the kernels below it,
 * the unified row's op, time-ordered event lists, busy times as unions of
 * overlapping kernels, and the GPU span.                                 */
#include "analysis/perf/op_kernels.h"
#include "fixture.h"
#include "test.h"

#include <string.h>

/* "outer" is modelled (family 0), nothing else. */
static int outer_family(void *ctx, uint32_t name)
{
    const kt_trace *t = ctx;
    return name != KT_NONE && !strcmp(kt_strtab_get(t->strs, name), "outer") ? 0 : -1;
}

/* outer [0,100) µs ⊃ inner [10,50) ⊃ launches of k1 [100,110) and
 * k2 [105,120) (written first, starting later: k1 is listed first);
 * outer launches k3 [200,205) itself.                                    */
TEST(perf_op_map_roles_lists_and_busy_times)
{
    kt_trace *t = fx_trace();
    kt_rank *r = fx_rank(t, 0);
    uint32_t outer = fx_event(t, r, 'X', "cpu_op", "outer", 0, 100000, 1, 1, -1, -1);
    uint32_t inner = fx_event(t, r, 'X', "cpu_op", "inner", 10000, 40000, 1, 1, -1, -1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 12000, 2000, 1, 1, -1, 1);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 20000, 2000, 1, 1, -1, 2);
    fx_event(t, r, 'X', "cuda_runtime", "cudaLaunchKernel", 60000, 2000, 1, 1, -1, 3);
    uint32_t k2 = fx_event(t, r, 'X', "kernel", "k2", 105000, 15000, 0, 7, 7, 2);
    uint32_t k1 = fx_event(t, r, 'X', "kernel", "k1", 100000, 10000, 0, 7, 7, 1);
    uint32_t k3 = fx_event(t, r, 'X', "kernel", "k3", 200000, 5000, 0, 7, 7, 3);
    fx_finish(t);
    kt_op_map m;
    CHECK_INT(kt_op_map_build(t, r, outer_family, t, &m), KT_OK);
    CHECK_INT(m.n, 2);
    if (m.n == 2) {
        const kt_op_rec *o = &m.ops[0], *i = &m.ops[1];
        CHECK_INT(o->ev, outer);
        CHECK_INT(o->role, KT_OPK_LAUNCHER | KT_OPK_MODELLED | KT_OPK_UNIFIED);
        CHECK_INT(o->family, 0);
        CHECK_INT(o->nk, 3);
        uint32_t want[] = { k1, k2, k3 };
        uint8_t direct[] = { 0, 0, 1 };
        for (uint32_t j = 0; j < 3 && o->nk == 3; j++) {
            CHECK_INT(m.kev[o->kfirst + j], want[j]);
            CHECK_INT(m.kdirect[o->kfirst + j], direct[j]);
        }
        CHECK_NEAR(o->subtree_us, 25, 1e-9); /* [100,120) and [200,205) */
        CHECK_NEAR(o->direct_us, 5, 1e-9);
        CHECK_INT(i->ev, inner);
        CHECK_INT(i->role, KT_OPK_LAUNCHER); /* under a modelled op: not its own unified row */
        CHECK_INT(i->family, -1);
        CHECK_INT(i->nk, 2);
        CHECK_NEAR(i->subtree_us, 20, 1e-9);
        CHECK_NEAR(i->direct_us, 20, 1e-9);
    }
    CHECK_NEAR(m.gpu_first_us, 100, 1e-9);
    CHECK_NEAR(m.gpu_last_us, 205, 1e-9);
    kt_op_map_free(&m);
    kt_trace_free(t);
}
