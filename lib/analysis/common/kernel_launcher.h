/*
 * kernel_launcher.h — which CPU op launched a GPU event, as one key.
 *
 * Kernel tables group by launcher (TraceLens's "Parent cpu_op"): the
 * runtime call found by correlation, then up the call tree to the nearest
 * cpu_op.  Kernels of a graph launch are attributed to the graph launch
 * call itself (one launch, N kernels), kernels whose launching call has no
 * enclosing op to that call, and kernels with no launch link to
 * "(unlinked)" — never dropped.
 */
#ifndef KT_KERNEL_LAUNCHER_H
#define KT_KERNEL_LAUNCHER_H

#include "model/model.h"

typedef enum {
    KT_LAUNCH_OP = 1,      /* a cpu_op encloses the launching call          */
    KT_LAUNCH_GRAPH,       /* cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch */
    KT_LAUNCH_RUNTIME,     /* a launching call with no enclosing cpu_op     */
    KT_LAUNCH_UNLINKED,    /* no launching call found                       */
    KT_LAUNCH_LINKED       /* kt_launch_link: a non-graph launching call     */
} kt_launch_kind;

/* Remembers the last launching call's name, which repeats from kernel to
 * kernel, so telling graph launches apart costs no string compare.       */
typedef struct kt_launch_memo {
    uint32_t name;
    bool graph;
} kt_launch_memo;

/* How gpu_ev was launched, without looking for the op (cheap): LINKED
 * (by a normal launch call), GRAPH or UNLINKED; *rt = the launching call. */
kt_launch_kind kt_launch_link(const kt_trace *t, const kt_rank *r, uint32_t gpu_ev, kt_launch_memo *memo,
                              uint32_t *rt);
/* Launcher of gpu_ev as a key: kind << 32 | strtab id of the op or call
 * name (KT_NONE for unlinked).  memo starts as { KT_NONE, false }.       */
uint64_t kt_launcher_key(const kt_trace *t, const kt_rank *r, uint32_t gpu_ev, kt_launch_memo *memo);
static inline kt_launch_kind kt_launcher_kind(uint64_t key) { return (kt_launch_kind)(key >> 32); }
/* Display name of a launcher key ("aten::mm", "cudaGraphLaunch", "(unlinked)"). */
const char *kt_launcher_label(const kt_trace *t, uint64_t key);

#endif
