/*
 * perf_models_triton.c — an *estimate* for Triton kernels compiled by
 * TorchInductor (triton_poi_ / triton_red_ / triton_per_ cpu_ops), when no
 * inductor cache is at hand to read the kernel's code (TraceLens needs it).
 *
 * The kernel's name lists the ATen ops it fuses ("triton_red_fused_add_
 * mean_mul_pow_rsqrt_0" fuses add, mean, mul, pow, rsqrt), and its cpu_op
 * records the shapes of its tensor arguments (inputs and outputs alike).
 * We take the largest argument as the iteration space and charge one FLOP
 * per element for each fused op that computes (views, copies and layout
 * ops are free), and count every tensor argument as read or written once.
 * Both are lower bounds in spirit: recomputation and broadcasts re-reading
 * memory are not seen.  Never used under --tracelens.
 */
#include "analysis/common/dtypes.h"
#include "analysis/perf/perf_model_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static bool eval_triton(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);

const kt_op_model kt_triton_models[] = {
    { "triton_poi_", KT_PF_TRITON, eval_triton, 0, 0, 0, false, 0, 0, false, "pointwise" },
    { "triton_red_", KT_PF_TRITON, eval_triton, 0, 0, 0, false, 0, 0, false, "reduction" },
    { "triton_per_", KT_PF_TRITON, eval_triton, 0, 0, 0, false, 0, 0, false, "persistent reduction" },
    { NULL, 0, NULL, 0, 0, 0, false, 0, 0, false, NULL },
};

/* Name parts that move data without computing. */
static bool free_op(const char *tok, size_t n)
{
    static const char *const free_ops[] = { "view", "unsafe", "clone", "copy", "permute", "transpose", "t",
                                            "expand", "slice", "select", "cat", "squeeze", "unsqueeze",
                                            "reshape", "to", "lift", "fresh", "constant", "pad", "index",
                                            "embedding", "full", "zeros", "ones", "empty", "fill", "stack",
                                            "split", "as", "strided", "alias", "convert", "element", "type",
                                            NULL };
    for (const char *const *f = free_ops; *f; f++)
        if (strlen(*f) == n && !strncmp(tok, *f, n)) return true;
    return n == 0 || (tok[0] >= '0' && tok[0] <= '9');
}

/* Computing ops among the '_'-separated words after "fused_". */
static int fused_ops(const char *name)
{
    const char *s = strstr(name, "fused_");
    int n = 0;
    if (!s) return 1;
    for (s += 6; *s;) {
        size_t len = strcspn(s, "_");
        n += !free_op(s, len);
        s += len + (s[len] == '_');
    }
    return n ? n : 1;
}

static bool eval_triton(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    kt_u128 most = 0, bytes = 0;
    const char *type = NULL;
    bool bytes_known = true;
    for (size_t i = 0; i < a->n; i++) {
        const kt_op_input *in = kt_pm_input(a, (int)i, -1);
        kt_u128 n, b;
        if (!in || in->ndims <= 0) continue; /* scalars (sizes) */
        if (!kt_pm_numel(in, &n) || !kt_pm_mul(n, (kt_u128)kt_dtype_bytes(in->type), &b)) {
            e->why = "element count out of range";
            return false;
        }
        bytes_known &= kt_dtype_bytes(in->type) > 0;
        bytes += b;
        if (n > most) {
            most = n;
            type = in->type;
        }
    }
    if (!type) {
        e->why = "no tensor arguments recorded";
        return false;
    }
    if (most > (kt_u128)INT64_MAX) {
        e->why = "element count out of range";
        return false;
    }
    int ops = fused_ops(name);
    e->flops = (double)most * ops;
    e->bytes = bytes_known ? (double)bytes : NAN;
    kt_pm_spec(e, "vector", type);
    kt_pm_word(e, "kind", m->what);
    kt_pm_int(e, "fused_ops", ops);
    kt_pm_int(e, "elements", (int64_t)most);
    kt_pm_dtypes(e, "dtype", &type, 1);
    return true;
}
