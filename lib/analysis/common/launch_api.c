/*
 * launch_api.c — see launch_api.h.  HTA compares exact names; ours are
 * patterns, because every CUDA/HIP version adds variants and suffixes
 * (_v2, _ptsz, _v10000, Ex, ExC, cooperative launches).
 */
#include "analysis/common/launch_api.h"
#include "model/model.h"

#include <string.h>

#define MTIA_LAUNCH "runFunction - job_prep_and_submit_for_execution"

static bool has(const char *s, const char *p) { return strstr(s, p) != NULL; }

static bool in_list(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list)) return true;
    return false;
}

bool kt_is_launch_api(const char *n)
{
    if (!strcmp(n, MTIA_LAUNCH)) return true;
    if (!kt_starts_with(n, "cu") && !kt_starts_with(n, "hip")) return false;
    if (has(n, "LaunchKernel") || has(n, "LaunchCooperativeKernel") || has(n, "GraphLaunch"))
        return true;
    return (has(n, "Memcpy") || has(n, "Memset")) && (has(n, "Async") || has(n, "WithStream"));
}

bool kt_is_hta_launch_stats_api(const char *name)
{
    static const char *const list[] = { "cudaLaunchKernel", "cudaLaunchKernelExC", MTIA_LAUNCH,
                                        "cudaMemsetAsync", "cudaMemcpyAsync", NULL };
    return in_list(name, list);
}

bool kt_is_hta_runtime_launch_api(const char *name)
{
    static const char *const list[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
        "cudaMemcpyAsync", "cudaMemsetAsync", MTIA_LAUNCH, "hipLaunchKernel",
        "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream", NULL
    };
    return in_list(name, list);
}

bool kt_is_hta_aten_delay_launch_api(const char *name)
{
    return (kt_starts_with(name, "cuda") && has(name + 4, "LaunchKernel")) ||
           kt_starts_with(name, "cuLaunchKernel") || kt_starts_with(name, "runFunction");
}
