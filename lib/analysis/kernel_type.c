/*
 * kernel_type.c — see kernel_type.h.  The HTA rules are regexes matched at
 * the start of the name (Python re.match); they are spelled out here as
 * prefix/substring tests, which is what they amount to.
 */
#include "kernel_type.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
static bool has(const char *s, const char *p) { return strstr(s, p) != NULL; }

/* (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) */
static bool hta_comm(const char *n)
{
    return starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || has(n, "ncclKernel");
}

/* (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
static bool hta_memory(const char *n)
{
    return starts(n, "Memcpy") || starts(n, "hipMemcpy") || starts(n, "Memset") ||
           starts(n, "hipMemset") || starts(n, "dma");
}

/* ROCm 7.1 runs copies and fills as kernels named after the rocclr blit
 * (7.2 emits gpu_memcpy/gpu_memset again).                                 */
static bool rocm_blit(const char *n)
{
    return starts(n, "__amd_rocclr_copyBuffer") || starts(n, "__amd_rocclr_fillBuffer") ||
           starts(n, "MEMORY_COPY_");
}

/* The negated COMPUTATION pattern: names that are not computation. */
static bool hta_not_compute(const char *n)
{
    static const char *const prefixes[] = { "nccl", "Stream Wait Event", "runFunction", "hip",
                                            "job_exe", "packet", "pe_exe", "cpum_exe_subgraph",
                                            "hccl", "collective_subgraph_execution" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(n, prefixes[i])) return true;
    if (has(n, "Memcpy") || has(n, "Memset") || has(n, "dma") || has(n, "Sync")) return true;
    return starts(n, "cuda") && has(n + 4, "LaunchKernel");
}

bool kt_is_comm_kernel_name(const char *n)
{
    return starts(n, "nccl") || starts(n, "rccl") || starts(n, "hccl") || has(n, "ncclKernel") ||
           has(n, "ncclDevKernel") || has(n, "rccl_") || has(n, "rcclGenericKernel") ||
           starts(n, "msccl") || has(n, "cross_device_reduce") || has(n, "multimem_all_reduce");
}

kt_kernel_type kt_kernel_type_of(const char *name, uint8_t kind, bool hta_compat)
{
    if (hta_compat) {
        if (hta_comm(name)) return KT_TYPE_COMMUNICATION;
        if (hta_memory(name)) return KT_TYPE_MEMORY;
        return hta_not_compute(name) ? KT_TYPE_OTHER : KT_TYPE_COMPUTATION;
    }
    if (kind == KT_K_MEMCPY || kind == KT_K_MEMSET) return KT_TYPE_MEMORY;
    if (kind != KT_K_KERNEL) return KT_TYPE_OTHER;
    if (kt_is_comm_kernel_name(name)) return KT_TYPE_COMMUNICATION;
    if (hta_memory(name) || rocm_blit(name)) return KT_TYPE_MEMORY;
    return hta_not_compute(name) ? KT_TYPE_OTHER : KT_TYPE_COMPUTATION;
}

const char *kt_kernel_type_name(kt_kernel_type t)
{
    static const char *const names[] = { "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" };
    return names[t];
}

const char *kt_memory_kernel_type(const char *name, char *buf, size_t n)
{
    if (starts(name, "Memset")) return "Memset";
    if (!starts(name, "Memcpy")) return "Memcpy Unknown";
    snprintf(buf, n, "%.11s", name);
    return buf;
}
