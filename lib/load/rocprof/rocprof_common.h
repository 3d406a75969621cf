/*
 * rocprof_common.h — what rocprofv3's JSON and CSV outputs share: which
 * model kind a trace domain is, the copy names Kineto writes for a copy
 * direction, and agents numbered as devices.
 */
#ifndef KT_ROCPROF_COMMON_H
#define KT_ROCPROF_COMMON_H

#include "model/model_build.h"

/* A host-side domain (HIP_RUNTIME_API, HSA_CORE_API, MARKER_CORE_API,
 * RCCL_API, ...) as a kind: HIP calls are runtime calls (they launch GPU
 * work), HSA calls driver calls, markers annotations, RCCL calls CPU ops;
 * KT_K_OTHER for domains with no host range (skipped).                  */
kt_kind kt_rocprof_domain_kind(const char *domain, size_t n);

/* The Kineto name of a copy in direction "MEMORY_COPY_HOST_TO_DEVICE"
 * (also without the prefix): "Memcpy HtoD (Host -> Device)".           */
const char *kt_rocprof_copy_name(const char *direction, size_t n);

/* Agents (their handles or CSV ids) to device indices: GPU agents by the
 * index the file gives or, without one, in order of first use.        */
typedef struct kt_agent_map {
    int64_t handle[256], device[256];
    bool gpu[256];
    size_t n;
} kt_agent_map;
void kt_agent_add(kt_agent_map *m, int64_t handle, int64_t device, bool gpu);
/* The device of a GPU agent (-1: not a known GPU). */
int64_t kt_agent_device(const kt_agent_map *m, int64_t handle);
/* As kt_agent_device, numbering an unknown agent as a new GPU. */
int64_t kt_agent_gpu(kt_agent_map *m, int64_t handle);

#endif
