/*
 * perf_models.c — the registry of modelled ops (perf_models.h) and the
 * matrix models: GEMM and scaled-dot-product attention forward, with
 * TraceLens's formulas (spec §1.6) in range-checked 128-bit integers.
 */
#include "analysis/common/dtypes.h"
#include "analysis/perf/perf_model_util.h"
#include "model/json_number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const kt_op_model kt_matrix_models[] = {
    { "aten::mm", KT_PF_GEMM, kt_pm_gemm, 0, 1, -1, false, 0, 0, false, NULL },
    { "aten::addmm", KT_PF_GEMM, kt_pm_gemm, 1, 2, 0, false, 0, 0, false, NULL },
    { "aten::_scaled_mm", KT_PF_GEMM, kt_pm_gemm, 0, 1, -1, false, 0, 0, false, NULL },
    { "aten::bmm", KT_PF_GEMM, kt_pm_gemm, 0, 1, -1, true, 0, 0, false, NULL },
    { "aten::baddbmm", KT_PF_GEMM, kt_pm_gemm, 1, 2, 0, true, 0, 0, false, NULL },
    { "aten::_scaled_dot_product_flash_attention", KT_PF_SDPA_FWD, kt_pm_sdpa, 0, 1, 2, false, 3, 4, true, NULL },
    { "aten::_scaled_dot_product_efficient_attention", KT_PF_SDPA_FWD, kt_pm_sdpa, 0, 1, 2, false, 5, 6, false, NULL },
    { "aten::_scaled_dot_product_cudnn_attention", KT_PF_SDPA_FWD, kt_pm_sdpa, 0, 1, 2, false, 5, 6, false, NULL },
    { NULL, 0, NULL, 0, 0, 0, false, 0, 0, false, NULL },
};

const kt_op_model *kt_perf_model_of(const char *name)
{
    const kt_op_model *const lists[] = { kt_matrix_models, kt_vector_models, kt_conv_models };
    for (size_t l = 0; name && l < sizeof lists / sizeof lists[0]; l++)
        for (const kt_op_model *m = lists[l]; m->name; m++)
            if (!strcmp(name, m->name)) return m;
    for (const kt_op_model *m = kt_triton_models; name && m->name; m++)
        if (!strncmp(name, m->name, strlen(m->name))) return m;
    return NULL;
}

int kt_perf_family_of(const char *op_name, bool with_triton)
{
    const kt_op_model *m = kt_perf_model_of(op_name);
    return m && (with_triton || m->family != KT_PF_TRITON) ? m->family : -1;
}

const char *kt_perf_family_sheet(int family)
{
    static const char *const sheets[KT_PF__COUNT] = { "GEMM", "SDPA_fwd", "CONV_fwd", "UnaryElementwise",
                                                      "BinaryElementwise", "Normalization", "Reduce_fwd",
                                                      "Triton" };
    return family >= 0 && family < KT_PF__COUNT ? sheets[family] : "";
}

void kt_perf_eval_reset(kt_perf_eval *e)
{
    e->flops = e->bytes = 0;
    e->compute_spec[0] = '\0';
    e->nparams = 0;
    e->why = NULL;
}

bool kt_perf_eval_model(const kt_op_model *m, int family, const char *op_name, const kt_op_args *a, kt_perf_eval *e)
{
    kt_perf_eval_reset(e);
    if (!m || m->family != family) {
        e->why = "no model for this op";
        return false;
    }
    if (!a->has_dims) {
        e->why = "no Input Dims (trace recorded without record_shapes=True)";
        return false;
    }
    return m->eval(m, op_name, a, e);
}

/* ---- GEMM: 2·B·M·N·K (+ B·M·N with a bias) FLOPs; each operand read or
 * written once.                                                            */
bool kt_pm_gemm(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)name;
    int nd = m->batched ? 3 : 2;
    const kt_op_input *A = kt_pm_input(a, m->a, nd), *B = kt_pm_input(a, m->b, nd);
    if (!A || !B) {
        e->why = "operand shapes are not matrices of sane size";
        return false;
    }
    int64_t batch = m->batched ? A->dims[0] : 1;
    int64_t M = A->dims[nd - 2], K = A->dims[nd - 1], N = B->dims[nd - 1];
    if (B->dims[nd - 2] != K || (m->batched && B->dims[0] != batch)) {
        e->why = "operand shapes do not match (inner or batch dimensions differ)";
        return false;
    }
    bool bias = m->c >= 0;
    kt_u128 bm, mn, mnk, mk, kn;
    if (!kt_pm_mul(batch, M, &bm) || !kt_pm_mul(bm, N, &mn) || !kt_pm_mul(mn, 2 * (kt_u128)K, &mnk) ||
        !kt_pm_mul(bm, K, &mk) || !kt_pm_mul((kt_u128)batch * K, N, &kn)) {
        e->why = "FLOPs out of range";
        return false;
    }
    e->flops = (double)(mnk + (bias ? mn : 0));
    int ba = kt_dtype_bytes(A->type), bb = kt_dtype_bytes(B->type);
    int bbias = bias && (size_t)m->c < a->n ? kt_dtype_bytes(a->in[m->c].type) : 0;
    /* bias: N elements for mm (a row broadcast), batch·M·N for baddbmm */
    kt_u128 bias_elems = !bias ? 0 : m->batched ? mn : (kt_u128)N;
    if (!ba || !bb || (bias && !bbias)) e->bytes = NAN;
    else e->bytes = (double)(mk * (kt_u128)ba + kn * (kt_u128)bb + mn * (kt_u128)ba + bias_elems * (kt_u128)bbias);
    kt_pm_spec(e, "matrix", A->type);
    if (m->batched) kt_pm_int(e, "B", batch); /* TraceLens's bmm lists B first */
    kt_pm_int(e, "M", M);
    kt_pm_int(e, "N", N);
    kt_pm_int(e, "K", K);
    kt_pm_bool(e, "bias", bias);
    kt_pm_strides(e, "stride_A", A);
    kt_pm_strides(e, "stride_B", B);
    kt_pm_dtypes(e, "dtype_A_B", (const char *[]){ A->type, B->type }, 2);
    if (!m->batched) kt_pm_int(e, "B", batch);
    return true;
}

/* ---- SDPA forward: B·H_Q·(2·N_Q·N_KV·d_qk + 2·N_Q·N_KV·d_v) FLOPs, halved
 * when causal with N_Q = N_KV; bytes are Q, K, V read and O written.      */
static bool concrete_true(const kt_op_args *a, int i)
{
    return i >= 0 && (size_t)i < a->n && !strcmp(a->in[i].concrete, "True");
}

/* A concrete input's number ("0.1"), 0 when it is none. */
static double concrete_number(const char *s)
{
    kt_num v;
    return kt_parse_number(s, s + strlen(s), &v) ? v.f : 0;
}

bool kt_pm_sdpa(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)name;
    const kt_op_input *Q = kt_pm_input(a, m->a, 4), *K = kt_pm_input(a, m->b, 4), *V = kt_pm_input(a, m->c, 4);
    if (!Q || !K || !V) {
        e->why = "query/key/value are not 4-D tensors of sane size";
        return false;
    }
    int64_t B = Q->dims[0], HQ = Q->dims[1], NQ = Q->dims[2], dqk = Q->dims[3];
    int64_t HKV = K->dims[1], NKV = K->dims[2], dv = V->dims[3];
    if (K->dims[0] != B || V->dims[0] != B || K->dims[3] != dqk || V->dims[2] != NKV || V->dims[1] != HKV) {
        e->why = "query/key/value shapes do not match";
        return false;
    }
    bool causal = concrete_true(a, m->causal);
    kt_u128 bh, qk, pv, fl, q, k, v, o;
    if (!kt_pm_mul(B, HQ, &bh) || !kt_pm_mul((kt_u128)NQ * 2, NKV, &qk) || !kt_pm_mul(qk, dv, &pv) ||
        !kt_pm_mul(qk, dqk, &qk) || !kt_pm_mul(bh, qk + pv, &fl) || !kt_pm_numel(Q, &q) || !kt_pm_numel(K, &k) ||
        !kt_pm_numel(V, &v) || !kt_pm_mul(bh * (kt_u128)NQ, dv, &o)) {
        e->why = "FLOPs out of range";
        return false;
    }
    e->flops = (double)fl;
    if (causal && NQ == NKV) e->flops /= 2;
    int bpe = kt_dtype_bytes(Q->type);
    e->bytes = bpe ? (double)((q + k + v + o) * (kt_u128)bpe) : NAN;
    kt_pm_spec(e, "matrix", Q->type);
    double dropout = m->dropout >= 0 && (size_t)m->dropout < a->n ? concrete_number(a->in[m->dropout].concrete) : 0;
    char drop[40];
    kt_py_float(dropout, drop, sizeof drop);
    kt_pm_int(e, "B", B);
    kt_pm_int(e, "N_Q", NQ);
    kt_pm_int(e, "H_Q", HQ);
    kt_pm_int(e, "N_KV", NKV);
    kt_pm_int(e, "H_KV", HKV);
    kt_pm_int(e, "d_h_qk", dqk);
    kt_pm_int(e, "d_h_v", dv);
    kt_pm_str(e, "dropout", drop);
    kt_pm_bool(e, "causal", causal);
    kt_pm_bool(e, "flash_impl", m->flash);
    kt_pm_dtypes(e, "dtype_A_B", (const char *[]){ Q->type, K->type }, 2);
    return true;
}
