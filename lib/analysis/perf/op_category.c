/*
 * op_category.c — TraceLens's op category of a kernel launcher
 * (PerfModel/torch_op_mapping.categorize_torch_op at the snapshot our
 * oracle comes from): by op name for the families TraceLens models
 * (GEMM, convolution, normalization, attention, elementwise, reduce), by
 * name prefix for Triton and comms, else by the first kernel's name for
 * ATen's elementwise / reduce / multi_tensor_apply kernels, else "other".
 */
#include "analysis/perf/perf_rank.h"

#include <string.h>

static bool in_list(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list)) return true;
    return false;
}

static const char *const gemm_ops[] = { "aten::mm", "aten::addmm", "aten::_scaled_mm", "aten::bmm",
                                        "aten::baddbmm", "tex_ts::te_gemm_ts", NULL };
static const char *const conv_fwd_ops[] = { "aten::convolution", "aten::miopen_convolution",
                                            "aten::cudnn_convolution", "ConvBias_", "ConvBiasReLU_", NULL };
static const char *const conv_bwd_ops[] = { "aten::convolution_backward", "ConvBias_Backward",
                                            "ConvBiasReLU_Backward", NULL };
static const char *const sdpa_fwd_ops[] = { "aten::_scaled_dot_product_flash_attention",
                                            "aten::_scaled_dot_product_efficient_attention",
                                            "aten::_scaled_dot_product_cudnn_attention", "FlashAttnFunc",
                                            "flash_attn::_flash_attn_forward",
                                            "flash_attn::_flash_attn_varlen_forward", NULL };
static const char *const sdpa_bwd_ops[] = { "aten::_scaled_dot_product_flash_attention_backward",
                                            "aten::_scaled_dot_product_efficient_attention_backward",
                                            "aten::_scaled_dot_product_cudnn_attention_backward",
                                            "FlashAttnFuncBackward", "flash_attn::_flash_attn_backward",
                                            "flash_attn::_flash_attn_varlen_backward", NULL };

/* TraceLens's unary and binary elementwise and reduce models cover these
 * (any upsample too), so they take the models' categories whatever kernel
 * they ran (a copy_ that became a Memcpy is still "elementwise").         */
static const char *const elementwise_ops[] = {
    "aten::copy", "aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max", "aten::clamp_max_",
    "aten::sigmoid", "aten::rsqrt", "aten::silu", "aten::neg", "aten::pow", "aten::div", "aten::div_",
    "aten::mul", "aten::mul_", "aten::add", "aten::add_", "aten::sigmoid_backward", "aten::threshold_backward",
    NULL
};
static const char *const reduce_ops[] = { "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm",
                                          "aten::linalg_norm", "aten::std", "aten::var", "aten::logsumexp",
                                          "aten::cumsum", "aten::cumprod", "aten::amin", "aten::amax", NULL };

/* aten::[native_|miopen_|cudnn_]{batch,layer,group,instance}_norm[_backward]
 * and the RMS norms: 1 forward, 2 backward, 0 not a norm.                */
static int norm_kind(const char *name)
{
    static const char *const norms[] = { "batch_norm", "layer_norm", "group_norm", "instance_norm",
                                         "rms_norm", "_fused_rms_norm", NULL };
    static const char *const variants[] = { "native_", "miopen_", "cudnn_", NULL };
    if (strncmp(name, "aten::", 6)) return 0;
    const char *s = name + 6;
    for (const char *const *v = variants; *v; v++)
        if (!strncmp(s, *v, strlen(*v))) {
            s += strlen(*v);
            break;
        }
    for (const char *const *n = norms; *n; n++) {
        size_t len = strlen(*n);
        if (strncmp(s, *n, len)) continue;
        if (!s[len]) return !strcmp(*n, "rms_norm") ? 0 : 1; /* plain rms_norm decomposes */
        if (!strcmp(s + len, "_backward")) return 2;
    }
    return 0;
}

const char *kt_tl_op_category(const char *name, const char *first_kernel)
{
    if (in_list(name, gemm_ops)) return "GEMM";
    if (in_list(name, conv_fwd_ops)) return "CONV_fwd";
    if (in_list(name, conv_bwd_ops)) return "CONV_bwd";
    int norm = norm_kind(name);
    if (norm) return norm == 1 ? "NORM_fwd" : "NORM_bwd";
    if (in_list(name, sdpa_fwd_ops)) return "SDPA_fwd";
    if (in_list(name, sdpa_bwd_ops)) return "SDPA_bwd";
    if (in_list(name, elementwise_ops) || !strncmp(name, "aten::upsample_", 15)) return "elementwise";
    if (in_list(name, reduce_ops)) return "reduce";
    if (!strncmp(name, "triton", 6)) return "triton";
    if (!strncmp(name, "record_param_comms", 18)) return "record_param_comms";
    if (first_kernel && !strncmp(first_kernel, "void at::native", 15)) {
        if (strstr(first_kernel, "elementwise")) return "elementwise";
        if (strstr(first_kernel, "reduce")) return "reduce";
        if (strstr(first_kernel, "multi_tensor_apply")) return "multi_tensor_apply";
    }
    return "other";
}
