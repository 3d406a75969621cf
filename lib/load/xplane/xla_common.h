/*
 * xla_common.h — what JAX/XLA's two outputs share: the `.xplane.pb`
 * (xplane.c) and its Chrome-trace companion `<host>.trace.json.gz`
 * (xla_trace_json.c) name planes, streams and host threads the same way,
 * and both carry hlo_op / hlo_module with each launch.  One set of rules
 * here, so the two files of one run load into the same model.
 */
#ifndef KT_XLA_COMMON_H
#define KT_XLA_COMMON_H

#include "load/readers.h"

/* The host process's pid: one host process drives every GPU plane. */
#define KT_XLA_HOST_PID ((int64_t)1 << 20)

/* "/device:GPU:7" -> 7, "/host:CPU" -> KT_XLA_HOST, anything else -1. */
#define KT_XLA_HOST (-2)
int64_t kt_xla_plane(const char *s, size_t n);
/* "Stream #17(Kernel)" -> 17; -1 for lines that are not streams (XLA Ops,
 * XLA Modules, Steps: they repeat the stream events grouped by op).     */
int64_t kt_xla_stream(const char *s, size_t n);
/* The kind of a stream event: a copy or set when its line or its name
 * says so, else a kernel.                                            */
kt_kind kt_xla_gpu_kind(const char *line, size_t line_n, const char *name);

/* The XLA op and module of a launch (strtab ids, KT_NONE when absent). */
typedef struct kt_xla_op {
    uint32_t op, module;
} kt_xla_op;

/* A host event: a runtime call when it carries a correlation id (the
 * launch of GPU work), else an annotation.  A launch with an op is
 * written inside a cpu_op named by its hlo_op, itself inside one named by
 * its hlo_module (both spanning the call), so per-op tables, categories
 * and perf group kernels by the XLA op that launched them.             */
void kt_xla_host_event(kt_build *b, const kt_host_op *call, kt_xla_op op);

/* Each GPU event's op by correlation id, for launches that do not carry
 * their op themselves (older JAX names the launch after the kernel and
 * puts hlo_op on the GPU event only).                                 */
typedef struct kt_xla_corr_op {
    int64_t corr;
    kt_xla_op op;
} kt_xla_corr_op;
typedef struct kt_xla_ops {
    kt_xla_corr_op *v;
    size_t n, cap;
    bool sorted;
} kt_xla_ops;

bool kt_xla_ops_add(kt_xla_ops *m, int64_t corr, kt_xla_op op);
/* The op of corr (both KT_NONE when unknown). */
kt_xla_op kt_xla_ops_get(kt_xla_ops *m, int64_t corr);
void kt_xla_ops_free(kt_xla_ops *m);
#endif
