/* test_kernel_names.c — short kernel names stay distinct; grouping and
 * per-group duration statistics. */
#include "test.h"
#include "analysis/common/kernel_names.h"
#include "analysis/kernels/kernel_stats.h"

#include <stdlib.h>

static void check_short(const char *full, const char *want)
{
    char *s = kt_kernel_short_name(full);
    CHECK_STR(s, want);
    free(s);
}

TEST(kernel_short_names)
{
    check_short("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>"
                "(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, int)",
                "CatArrayBatchedCopy");
    check_short("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
                "vectorized_elementwise_kernel");
    check_short("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>"
                "(cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1::Params)",
                "cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1");
    check_short("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, "
                "false, true, true, false, 7, cublasGemvParams<float> >(cublasGemvParams<float>)",
                "gemvx::kernel");
    check_short("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_SendRecv");
    check_short("at::cuda::(anonymous namespace)::spin_kernel(long)", "spin_kernel");
    check_short("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)");
    check_short("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn");
}

TEST(kernel_display_names_stay_distinct)
{
    const char *full[] = {
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>(float*, int)",
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy<c10::BFloat16, unsigned int, 2, 64, 64>(c10::BFloat16*, int)",
        "void at::native::reduce_kernel<128, 4>(int)",
        "void at::native::reduce_kernel<128, 4>(long)",
        "ampere_sgemm_128x64_nn",
        "void my::kernel_x(int)",
        "void other::kernel_x(int)",
    };
    size_t n = sizeof full / sizeof full[0];
    char *out[7];
    CHECK(kt_kernel_display_names(full, n, out));
    CHECK_STR(out[0], "CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>");
    CHECK_STR(out[1], "CatArrayBatchedCopy<BFloat16, unsigned int, 2, 64, 64>");
    CHECK_STR(out[2], "reduce_kernel<128, 4> #1"); /* same template arguments: numbered in row order */
    CHECK_STR(out[3], "reduce_kernel<128, 4> #2");
    CHECK_STR(out[4], "ampere_sgemm_128x64_nn");
    CHECK_STR(out[5], "kernel_x(int) #1");
    CHECK_STR(out[6], "kernel_x(int) #2");
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) CHECK(strcmp(out[i], out[j]) != 0);
    for (size_t i = 0; i < n; i++) free(out[i]);
}

TEST(kernel_group_stats)
{
    kt_group_map m = { 0 };
    kt_samples s = { 0 };
    uint64_t keys[] = { 7, 9, 7, 7, 1ull << 40 };
    int64_t durs[] = { 10, 5, 30, 20, 8 };
    for (int i = 0; i < 5; i++) CHECK(kt_samples_push(&s, kt_group_id(&m, keys[i]), durs[i]));
    CHECK_INT(m.n, 3);
    CHECK_INT(kt_group_find(&m, 9), 1);
    CHECK_INT(kt_group_find(&m, 8), UINT32_MAX);
    for (uint64_t k = 100; k < 1100; k++) CHECK(kt_group_id(&m, k) == (uint32_t)(k - 100 + 3)); /* rehashes */
    CHECK_INT(kt_group_find(&m, 1ull << 40), 2);
    kt_dur_stats *st = kt_group_stats(&s, m.n);
    CHECK(st != NULL);
    CHECK_INT(st[0].count, 3);
    CHECK_INT(st[0].sum, 60);
    CHECK_INT(st[0].min, 10);
    CHECK_INT(st[0].max, 30);
    CHECK_NEAR(st[0].mean, 20, 1e-12);
    CHECK_NEAR(st[0].median, 20, 1e-12);
    CHECK_NEAR(st[0].std, 10, 1e-12); /* sample std of 10, 20, 30 */
    CHECK_INT(st[1].count, 1);
    CHECK_NEAR(st[1].std, 0, 0);
    CHECK_INT(st[3].count, 0);     /* groups without samples */
    free(st);
    kt_samples_push(&s, 1, 7);     /* even count: median is the mean of the middle two */
    st = kt_group_stats(&s, 3);
    CHECK_NEAR(st[1].median, 6, 1e-12);
    free(st);
    kt_samples_free(&s);
    kt_group_map_free(&m);
}
