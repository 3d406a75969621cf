/*
 * op_name_norm.h — op names as the call-tree diff compares them.
 *
 * Two runs of one model on different vendors or steps name the same work
 * differently: ProfilerStep#3 vs ProfilerStep#17, cudaLaunchKernel vs
 * hipLaunchKernel, aten::cudnn_convolution vs aten::miopen_convolution.
 * The merge aligns children by these normalised names so that such pairs
 * line up; tables still show each run's own name.
 */
#ifndef KT_OP_NAME_NORM_H
#define KT_OP_NAME_NORM_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the normalised form of name into buf (truncated to cap - 1):
 *  - "ProfilerStep#N" → "ProfilerStep#";
 *  - runtime/driver calls (runtime_call): the vendor prefix dropped
 *    ("cudaMemcpyAsync", "hipMemcpyAsync" → "MemcpyAsync") and a
 *    "_v2"-style suffix too; every kernel launch API is "LaunchKernel"
 *    (cudaLaunchKernel[ExC], cuLaunchKernel, hip[Ext]ModuleLaunchKernel:
 *    cuBLAS on CUDA and hipBLASLt on ROCm launch the same GEMM through
 *    different APIs);
 *  - "cudnn" and "miopen" anywhere → "dnn" (aten::cudnn_batch_norm and
 *    aten::miopen_batch_norm are the same op).
 * Returns buf.                                                            */
const char *kt_norm_op_name(const char *name, bool runtime_call, char *buf, size_t cap);

#endif
