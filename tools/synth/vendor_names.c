/*
 * vendor_names.c — what CUDA and ROCm call things: the GPU operation catalogue
 * (kernel, copy and fill names, launch geometry, durations) and the runtime API
 * names and callback ids.
 */
#include "synth.h"

#define ELEMENTWISE(functor, n)                                                                \
    "void at::native::vectorized_elementwise_kernel<4, " functor ", at::detail::Array<char*, " \
    #n "> >(int, " functor ", at::detail::Array<char*, " #n ">)"

#define GELU_FWD_FUNCTOR                                                                       \
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}" \
    "::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}"
#define GELU_BWD_FUNCTOR                                                                       \
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"   \
    "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}"
#define SUM_REDUCE_OP                                                                          \
    "at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<"    \
    "float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "         \
    "unsigned int, float, 4>"
#define FOREACH_ADD_ARGS                                                                       \
    "at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "         \
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float"
#define FUSED_ADAM_ARGS                                                                        \
    "at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous "         \
    "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, "     \
    "double, double, double, double, double, bool, float*, float*"
#define ROCBLAS_TAIL                                                                           \
    "_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_"      \
    "LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_"     \
    "NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_"     \
    "SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1"

/* Names must never contain '"' or '\\': they are written verbatim into JSON. */
const GpuOpTpl GPU_OPS[NUM_GPU_OPS] = {
    [K_LN_FWD] = {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
                  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
                  GPU_COMPUTE, false, 6000, 14000, {2048, 1, 1}, {128, 1, 1}, 32, 0, NULL},
    [K_GEMM_QKV] = {"ampere_sgemm_128x64_tn",
                    "Cijk_Ailk_Bljk_SB_Bias_AS_SAV_UserArgs_MT128x64x16_MI16x16x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 60000, 180000, {24, 32, 1}, {128, 1, 1}, 122, 16384, NULL},
    [K_FLASH_FWD] = {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 64, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
                     "attn_fwd", GPU_COMPUTE, false, 80000, 220000, {16, 16, 8}, {128, 1, 1}, 255, 24576, NULL},
    [K_GEMM_OUT] = {"ampere_sgemm_64x64_nn",
                    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x64x16_MI16x16x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 30000, 90000, {16, 32, 1}, {64, 1, 1}, 90, 8192, NULL},
    [K_ADD] = {ELEMENTWISE("at::native::CUDAFunctor_add<float>", 3),
               ELEMENTWISE("at::native::CUDAFunctor_add<float>", 3),
               GPU_COMPUTE, false, 3000, 9000, {1024, 1, 1}, {128, 1, 1}, 24, 0, NULL},
    [K_GEMM_FC1] = {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
                    "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT128x128x16_MI32x32x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 120000, 320000, {32, 16, 1}, {256, 1, 1}, 128, 32768, NULL},
    [K_GELU] = {ELEMENTWISE(GELU_FWD_FUNCTOR, 2), ELEMENTWISE(GELU_FWD_FUNCTOR, 2),
                GPU_COMPUTE, false, 8000, 20000, {4096, 1, 1}, {128, 1, 1}, 26, 0, NULL},
    [K_GEMM_FC2] = {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align4::Params)",
                    "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT128x128x32_MI32x32x1" ROCBLAS_TAIL,
                    GPU_COMPUTE, true, 110000, 300000, {16, 32, 1}, {128, 1, 1}, 230, 73728, NULL},
    [K_LOGSOFTMAX] = {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
                      GPU_COMPUTE, false, 20000, 50000, {512, 1, 1}, {1024, 1, 1}, 38, 64, NULL},
    [K_NLL] = {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
               "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
               GPU_COMPUTE, false, 4000, 9000, {1, 1, 1}, {32, 1, 1}, 30, 256, NULL},
    [K_NLL_BWD] = {"void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                   "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
                   GPU_COMPUTE, false, 3000, 7000, {1, 1, 1}, {32, 1, 1}, 28, 0, NULL},
    [K_LOGSOFTMAX_BWD] = {"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
                          "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
                          GPU_COMPUTE, false, 20000, 45000, {512, 1, 1}, {1024, 1, 1}, 40, 64, NULL},
    [K_GEMM_DGRAD] = {"ampere_sgemm_128x128_nt",
                      "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT128x128x16_MI16x16x1" ROCBLAS_TAIL,
                      GPU_COMPUTE, true, 90000, 260000, {16, 32, 1}, {256, 1, 1}, 127, 32768, NULL},
    [K_GEMM_WGRAD] = {"ampere_sgemm_64x64_tn",
                      "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1" ROCBLAS_TAIL,
                      GPU_COMPUTE, true, 90000, 260000, {32, 32, 1}, {64, 1, 1}, 90, 8192, NULL},
    [K_REDUCE_SUM] = {"void at::native::reduce_kernel<128, 4, " SUM_REDUCE_OP " >(" SUM_REDUCE_OP ")",
                      "void at::native::reduce_kernel<128, 4, " SUM_REDUCE_OP " >(" SUM_REDUCE_OP ")",
                      GPU_COMPUTE, false, 5000, 15000, {64, 1, 1}, {32, 16, 1}, 32, 16, NULL},
    [K_GELU_BWD] = {ELEMENTWISE(GELU_BWD_FUNCTOR, 3), ELEMENTWISE(GELU_BWD_FUNCTOR, 3),
                    GPU_COMPUTE, false, 10000, 26000, {4096, 1, 1}, {128, 1, 1}, 30, 0, NULL},
    [K_LN_BWD_INPUT] = {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
                        "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
                        GPU_COMPUTE, false, 8000, 18000, {2048, 1, 1}, {128, 1, 1}, 40, 1024, NULL},
    [K_LN_BWD_GAMMA] = {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
                        "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
                        GPU_COMPUTE, false, 6000, 16000, {24, 1, 1}, {32, 32, 1}, 48, 8448, NULL},
    [K_FLASH_BWD] = {"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, false, false>(pytorch_flash::Flash_bwd_params)",
                     "bwd_kernel_dk_dv", GPU_COMPUTE, false, 180000, 420000, {8, 16, 8}, {256, 1, 1}, 255, 49152, NULL},
    [K_FOREACH_ADD] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FOREACH_ADD_ARGS ">(" FOREACH_ADD_ARGS ")",
                       "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FOREACH_ADD_ARGS ">(" FOREACH_ADD_ARGS ")",
                       GPU_COMPUTE, false, 4000, 12000, {320, 1, 1}, {512, 1, 1}, 32, 0, NULL},
    [K_FUSED_ADAM] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FUSED_ADAM_ARGS ">(" FUSED_ADAM_ARGS ")",
                      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<" FUSED_ADAM_ARGS ">(" FUSED_ADAM_ARGS ")",
                      GPU_COMPUTE, false, 40000, 120000, {320, 1, 1}, {512, 1, 1}, 64, 0, NULL},
    [K_ALLREDUCE] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 200000, 1500000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [M_HTOD] = {"Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Host -> Device)",
                GPU_MEMCPY, false, 20000, 90000, {0, 0, 0}, {0, 0, 0}, 0, 0, "HtoD"},
    [M_DTOH] = {"Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Host)",
                GPU_MEMCPY, false, 2000, 4000, {0, 0, 0}, {0, 0, 0}, 0, 0, "DtoH"},
    [M_FILL] = {"Memset (Device)", "Memset (Device)",
                GPU_MEMSET, false, 2000, 6000, {0, 0, 0}, {0, 0, 0}, 0, 0, "Device"},
    [K_ALLGATHER] = {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 50000, 400000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [K_REDUCESCATTER] = {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                         "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                         GPU_COMM, false, 50000, 400000, {8, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
    [K_SENDRECV] = {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                    "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                    GPU_COMM, false, 20000, 200000, {4, 1, 1}, {256, 1, 1}, 96, 87568, NULL},
    [K_BROADCAST] = {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                     "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                     GPU_COMM, false, 10000, 60000, {2, 1, 1}, {544, 1, 1}, 96, 87568, NULL},
};

const char *gpu_op_name(Vendor v, int tpl)
{
    return v == VENDOR_ROCM ? GPU_OPS[tpl].rocm : GPU_OPS[tpl].cuda;
}

bool is_kernel(int tpl)
{
    return GPU_OPS[tpl].cls == GPU_COMPUTE || GPU_OPS[tpl].cls == GPU_COMM;
}

/* CUDA cbids are the ones in real CUPTI traces; ROCm cids for hipLaunchKernel,
 * hipExtModuleLaunchKernel and hipMemsetAsync are the ones seen in ROCm 6.2 traces, the
 * other ROCm cids are plausible stand-ins. */
const ApiName API_NAMES[2][NUM_APIS] = {
    [VENDOR_CUDA] = {{"cudaLaunchKernel", 211}, {"cudaLaunchKernelExC", 430},
                     {"cudaMemcpyAsync", 41}, {"cudaMemsetAsync", 51},
                     {"cudaGraphLaunch", 311}, {"cudaStreamSynchronize", 131},
                     {"cudaEventRecord", 135}, {"cudaStreamWaitEvent", 147}},
    [VENDOR_ROCM] = {{"hipLaunchKernel", 107}, {"hipExtModuleLaunchKernel", 65},
                     {"hipMemcpyAsync", 126}, {"hipMemsetAsync", 159},
                     {"hipGraphLaunch", 85}, {"hipStreamSynchronize", 296},
                     {"hipEventRecord", 56}, {"hipStreamWaitEvent", 301}},
};

/* Only calls that enqueue GPU work get an ac2g flow (and have GPU activities). */
bool api_has_flow(Api a)
{
    return a <= API_GRAPH;
}
