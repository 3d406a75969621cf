/* test_kernel_category.c — kernel categories: the reviewed table of real
 * names, the misfires of earlier categorizers, and user rule files. */
#include "fixture.h"
#include "test.h"
#include "analysis/common/kernel_category.h"
#include "kineta.h"
#include "model/model.h"

#include <stdlib.h>

static kt_categorizer *builtin(void)
{
    kt_categorizer *c = NULL;
    CHECK_INT(kt_categorizer_new(&c), KT_OK);
    return c;
}

TEST(categories_reviewed_real_names)
{
    FILE *f = fopen("tests/data/kernel_categories.tsv", "r");
    CHECK(f != NULL);
    if (!f) return;
    kt_categorizer *c = builtin();
    static char line[1 << 16];
    int rows = 0, nv = 0, amd = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || !line[0]) continue;
        char *vendor = strchr(line, '\t'), *name = vendor ? strchr(vendor + 1, '\t') : NULL;
        CHECK(name != NULL);
        if (!name) break;
        *vendor++ = '\0';
        *name++ = '\0';
        const char *got = kt_categorize(c, name);
        if (strcmp(got, line)) kt_test_fail(__FILE__, __LINE__, "%s → %s, expected %s", name, got, line);
        rows++;
        nv += !strcmp(vendor, "NV");
        amd += !strcmp(vendor, "AMD");
    }
    fclose(f);
    kt_categorizer_free(c);
    CHECK(rows >= 150);
    CHECK(nv >= 50);
    CHECK(amd >= 50);
}

/* Names that substring categorizers got wrong (TraceLens notes §1.1), and
 * families from other stacks (B200, MI300, vLLM, CK, inductor templates). */
TEST(categories_known_misfires)
{
    static const char *const cases[][2] = {
        { "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "Communication" },
        { "void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)", "Communication" },
        { "void vllm::cross_device_reduce_1stage<c10::BFloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, c10::BFloat16*, int, int)", "Communication" },
        { "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::convert_kernel<float>, std::array<char*, 2ul> >", "Elementwise" },
        { "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, normal_and_transform<float>>", "Elementwise" },
        { "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, float, int, int)", "Normalization" },
        { "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)", "Normalization" },
        { "igemm_fwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x256x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x4x1_1x4x1x64", "Convolution" },
        { "_ZN2ck16tensor_operation6device45kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffle", "Convolution" },
        { "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<>>", "GEMM" },
        { "nvjet_tst_256x256_64x4_2x1_2cta_v_bz_TNT", "GEMM" },
        { "triton_poi_fused_addmm_gelu_view_26", "Elementwise" },
        { "triton_tem_fused_mm_0", "GEMM" },
        { "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>>(Flash_bwd_params)", "Attention bwd" },
        { "fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKvCausalP64VarSeqQ128Kv128PersistentContext", "Attention fwd" },
        { "void aiter::fmha_bwd_hd128_bf16_causal_a32_pssk", "Attention bwd" },
        { "void vllm::paged_attention_v2_kernel<c10::BFloat16, 128, 16>", "Attention fwd" },
        { "fused_moe_kernel", "GEMM" },
        { "void moe::dev::routing::routingIndicesClusterKernel<KernelParams>(KernelParams)", "MoE" },
        { "void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, int>(float const*, bool const*, float*, int, int*, int*, int, int, int)", "MoE" },
        { "_per_token_group_quant_8bit", "Quantization" },
        { "void tensorrt_llm::kernels::quantize_with_block_size<true, 16, 8>", "Quantization" },
        { "__amd_rocclr_copyBuffer.kd", "Memcpy" },
        { "__amd_rocclr_fillBufferAligned.kd", "Memset" },
        { "void cunn_SoftMaxForward<4, float, float, float, cunn_SoftMaxForwardEpilogue>(float*, float const*, int)", "Softmax" },
        { "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4> >", "Reduction" },
        { "some_unknown_kernel", "Other" },
    };
    kt_categorizer *c = builtin();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = kt_categorize(c, cases[i][0]);
        if (strcmp(got, cases[i][1])) kt_test_fail(__FILE__, __LINE__, "%s → %s, expected %s", cases[i][0], got, cases[i][1]);
    }
    CHECK_STR(kt_category_name(c, kt_category_of(c, "Memcpy HtoD (Pageable -> Device)", KT_K_MEMCPY)), "Memcpy");
    CHECK_STR(kt_category_name(c, kt_category_of(c, "Memset (Device)", KT_K_MEMSET)), "Memset");
    kt_categorizer_free(c);
}

TEST(categories_user_rules_add_and_override)
{
    kt_categorizer *c = builtin();
    /* new category; an override of a built-in pattern; a tie won by the later rule */
    const char *rules = "# my rules\n"
                        "\n"
                        "200 prefix myop        Custom ops\n"
                        "20  prefix elementwise Pointwise\n"
                        "58  token  softmax_warp  Attention fwd\n";
    CHECK_INT(kt_categorizer_add_rules(c, rules, NULL), KT_OK);
    CHECK_STR(kt_categorize(c, "void myops::myop_fused<float>(float*)"), "Custom ops");
    CHECK_STR(kt_categorize(c, "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>"), "Pointwise");
    CHECK_STR(kt_categorize(c, "void (anonymous namespace)::softmax_warp_forward<float>"), "Attention fwd");
    CHECK_STR(kt_categorize(c, "ncclDevKernel_SendRecv"), "Communication");
    /* reset drops everything defined so far */
    CHECK_INT(kt_categorizer_add_rules(c, "reset\n1 regex ^vol GEMM-ish\n", NULL), KT_OK);
    CHECK_STR(kt_categorize(c, "volta_sgemm_128x64_nn"), "GEMM-ish");
    CHECK_STR(kt_categorize(c, "ncclDevKernel_SendRecv"), "Other");
    kt_categorizer_free(c);
}

TEST(categories_rule_errors_name_the_line)
{
    kt_categorizer *c = builtin();
    kt_diags *why;
    CHECK_INT(kt_categorizer_add_rules(c, "10 token foo Foo\nten token bar Bar\n", &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "line 2") != NULL);
    CHECK_INT(kt_categorizer_add_rules(c, "10 glob foo Foo\n", &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "kind") != NULL);
    CHECK_INT(kt_categorizer_add_rules(c, "10 prefix foo_bar Foo\n", NULL), KT_EUSAGE);
    CHECK_INT(kt_categorizer_add_rules(c, "10 regex ([ Foo\n", &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "bad regex") != NULL);
    CHECK_INT(kt_categorizer_add_rules(c, "10 token foo\n", &why), KT_EUSAGE);
    CHECK(strstr(fx_why(why), "category") != NULL);
    CHECK_INT(kt_categorizer_load_rules(c, "/nonexistent/rules.txt", &why), KT_EINPUT);
    CHECK(strstr(fx_why(why), "cannot read /nonexistent/rules.txt") != NULL);
    /* the rule before the error on line 2 stays in effect */
    CHECK_STR(kt_categorize(c, "foo_kernel"), "Foo");
    kt_categorizer_free(c);
}

TEST(categories_builtin_rules_reparse)
{
    /* --print-rules output must be a valid rule file that changes nothing */
    kt_categorizer *c = builtin();
    CHECK_INT(kt_categorizer_add_rules(c, kt_categorizer_builtin_rules(), NULL), KT_OK);
    CHECK_STR(kt_categorize(c, "ampere_sgemm_128x64_nn"), "GEMM");
    CHECK_STR(kt_categorize(c, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), "Communication");
    kt_categorizer_free(c);
}

static void check_names(const char *const cases[][2], size_t n)
{
    kt_categorizer *c = builtin();
    for (size_t i = 0; i < n; i++) {
        const char *got = kt_categorize(c, cases[i][0]);
        if (strcmp(got, cases[i][1])) kt_test_fail(__FILE__, __LINE__, "%s → %s, expected %s", cases[i][0], got, cases[i][1]);
    }
    kt_categorizer_free(c);
}

/* TorchInductor's fused kernels by the ops their names list: what the
 * kernel does, not "Triton"; a pointwise kernel stays elementwise even when
 * an op it fuses is named addmm, convolution or attention.               */
TEST(categories_triton_fused_by_ops)
{
    static const char *const cases[][2] = {
        { "triton_red_fused__softmax_0", "Softmax" },
        { "triton_per_fused__log_softmax__log_softmax_backward_data_3", "Softmax" },
        { "triton_red_fused_amax_div_exp_sub_sum_4", "Softmax" },
        { "triton_per_fused_native_layer_norm_7", "Normalization" },
        { "triton_red_fused_native_group_norm_2", "Normalization" },
        { "triton_per_fused__native_batch_norm_legit_functional_1", "Normalization" },
        { "triton_red_fused_add_mean_mul_pow_rsqrt_0", "Normalization" },
        { "triton_red_fused_sum_5", "Reduction" },
        { "triton_per_fused_amax_1", "Reduction" },
        { "triton_poi_fused_addmm_gelu_4", "Elementwise" },
        { "triton_poi_fused_convolution_relu_3", "Elementwise" },
        { "triton_poi_fused__scaled_dot_product_efficient_attention_5", "Elementwise" },
        { "triton_poi_fused__unsafe_view_mul_silu_2", "Elementwise" },
        { "triton_for_fused_0", "Elementwise" },
        { "triton_tem_fused_mm_0", "GEMM" },
        { "triton__0d1d2d", "Triton (fused)" },
    };
    check_names(cases, sizeof cases / sizeof cases[0]);
}

/* Mixture of experts: expert GEMMs are GEMM, routing and combine are MoE. */
TEST(categories_moe_gemms_and_routing)
{
    static const char *const cases[][2] = {
        { "fused_moe_kernel", "GEMM" },
        { "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x256x128x1_swiglu", "GEMM" },
        { "void cutlass::Kernel<cutlass::gemm::kernel::MoeFCGemm<cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 128, 64> > > >(cutlass::gemm::kernel::MoeFCGemm<>::Params)", "GEMM" },
        { "void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, int, unsigned long, int*)", "MoE" },
        { "void vllm::moe::topkGatingSoftmax<4, 64, 4, 16, int>(float const*, bool const*, float*, int, int*, int*, int, int, int)", "MoE" },
        { "void vllm::moe::moe_sum_kernel<c10::BFloat16, 2>(c10::BFloat16*, c10::BFloat16 const*, int)", "MoE" },
        { "void tensorrt_llm::kernels::finalizeMoeRoutingKernel<float, float, float, false>(float const*, float*, float const*, float const*, int const*, int const*, long, long, int, int)", "MoE" },
        { "void tensorrt_llm::kernels::expandInputRowsKernel<__nv_bfloat16>(__nv_bfloat16 const*, __nv_bfloat16*, int const*, int*, long, long, int)", "MoE" },
        { "_routing_compute_indx", "MoE" },
        { "void unpermute_kernel<__nv_bfloat16>(__nv_bfloat16 const*, __nv_bfloat16*, int const*, float const*, int, int, int)", "MoE" },
    };
    check_names(cases, sizeof cases / sizeof cases[0]);
}
