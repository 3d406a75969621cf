/*
 * kernel_launcher.c — see kernel_launcher.h.
 */
#include "analysis/common/kernel_launcher.h"
#include "model/index.h"

static uint64_t key_of(kt_launch_kind kind, uint32_t name)
{
    return (uint64_t)kind << 32 | name;
}

kt_launch_kind kt_launch_link(const kt_trace *t, const kt_rank *r, uint32_t gpu_ev, kt_launch_memo *memo,
                              uint32_t *rt)
{
    *rt = kt_gpu_launcher(r, gpu_ev);
    if (*rt == KT_NONE) return KT_LAUNCH_UNLINKED;
    uint32_t name = r->ev.name[*rt];
    if (name != memo->name) {
        memo->name = name;
        memo->graph = name != KT_NONE && kt_is_graph_launch(r, t->strs, *rt);
    }
    return memo->graph ? KT_LAUNCH_GRAPH : KT_LAUNCH_LINKED;
}

uint64_t kt_launcher_key(const kt_trace *t, const kt_rank *r, uint32_t gpu_ev, kt_launch_memo *memo)
{
    uint32_t rt;
    kt_launch_kind k = kt_launch_link(t, r, gpu_ev, memo, &rt);
    if (k != KT_LAUNCH_LINKED) return key_of(k, rt == KT_NONE ? KT_NONE : r->ev.name[rt]);
    uint32_t op = kt_launcher_op(r, gpu_ev);
    return op == KT_NONE ? key_of(KT_LAUNCH_RUNTIME, r->ev.name[rt]) : key_of(KT_LAUNCH_OP, r->ev.name[op]);
}

const char *kt_launcher_label(const kt_trace *t, uint64_t key)
{
    if (kt_launcher_kind(key) == KT_LAUNCH_UNLINKED) return "(unlinked)";
    uint32_t name = (uint32_t)key;
    return name < kt_strtab_count(t->strs) ? kt_strtab_get(t->strs, name) : "";
}
