/*
 * launch_api.h — which runtime/driver calls enqueue GPU work.
 *
 * Launch statistics and queue lengths both start from "the calls that put
 * work on a stream".  HTA recognizes two different, CUDA-centric name lists
 * (spec A4.5 and A3); we recognize every launch API (CUDA runtime and
 * driver, HIP, graph launches, async copies/sets) so AMD and Triton traces
 * are analyzed too.  The lists live here so both analyses agree.
 */
#ifndef KT_LAUNCH_API_H
#define KT_LAUNCH_API_H

#include <stdbool.h>

/* Ours: kernel launches of every API (cudaLaunchKernel[ExC],
 * cuLaunchKernel[Ex], cudaLaunchCooperativeKernel, hipLaunchKernel,
 * hip[Ext]ModuleLaunchKernel, ...), graph launches, async memcpy/memset
 * (cudaMemcpyAsync, cuMemcpyHtoDAsync_v2, hipMemcpyWithStream, ...) and
 * MTIA's runFunction.  Synchronous copies are not launches: the call
 * returns after the copy, so its duration and delay mean something else.  */
bool kt_is_launch_api(const char *name);

/* HTA get_cuda_kernel_launch_stats (A4.5): cudaLaunchKernel,
 * cudaLaunchKernelExC, runFunction, cudaMemcpyAsync, cudaMemsetAsync.     */
bool kt_is_hta_launch_stats_api(const char *name);

/* HTA get_runtime_launch_events_mask (A3), used for queue length.        */
bool kt_is_hta_runtime_launch_api(const char *name);

/* HTA KERNEL_LAUNCH_CATEGORY_PATTERN (A3), used for ATen-op delays:
 * re.match of (cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction).      */
bool kt_is_hta_aten_delay_launch_api(const char *name);

#endif
