/*
 * perf_models.c — TraceLens's FLOPs/bytes formulas for the op families we
 * model (perf_models.h), with range-checked 128-bit products.
 */
#include "analysis/perf/perf_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dims above this (2^40 elements along one axis) are treated as bad shapes. */
#define MAX_DIM ((int64_t)1 << 40)
/* Products above 2^100 are refused: far past any real tensor, and every sum
 * of a few such terms still fits 128 bits.                                */
#define MAX_PRODUCT ((unsigned __int128)1 << 100)

typedef struct op_model {
    const char *name;
    int family;
    int a, b, bias;     /* GEMM: input index of A, B and bias (-1 none)     */
    bool batched;       /* GEMM: 3-D operands with a batch dimension        */
    int dropout, causal;/* SDPA: index of dropout_p / is_causal in Concrete Inputs */
    bool flash;         /* SDPA: the flash implementation                  */
} op_model;

static const op_model models[] = {
    { "aten::mm", KT_PF_GEMM, 0, 1, -1, false, 0, 0, false },
    { "aten::addmm", KT_PF_GEMM, 1, 2, 0, false, 0, 0, false },
    { "aten::_scaled_mm", KT_PF_GEMM, 0, 1, -1, false, 0, 0, false },
    { "aten::bmm", KT_PF_GEMM, 0, 1, -1, true, 0, 0, false },
    { "aten::baddbmm", KT_PF_GEMM, 1, 2, 0, true, 0, 0, false },
    { "aten::_scaled_dot_product_flash_attention", KT_PF_SDPA_FWD, 0, 1, 2, false, 3, 4, true },
    { "aten::_scaled_dot_product_efficient_attention", KT_PF_SDPA_FWD, 0, 1, 2, false, 5, 6, false },
    { "aten::_scaled_dot_product_cudnn_attention", KT_PF_SDPA_FWD, 0, 1, 2, false, 5, 6, false },
};

static const op_model *model_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof models / sizeof models[0]; i++)
        if (!strcmp(name, models[i].name)) return &models[i];
    return NULL;
}

int kt_perf_family_of(const char *op_name)
{
    const op_model *m = model_of(op_name);
    return m ? m->family : -1;
}

const char *kt_perf_family_sheet(int family)
{
    return family == KT_PF_GEMM ? "GEMM" : "SDPA_fwd";
}

/* ---- checked arithmetic ------------------------------------------------------ */

typedef unsigned __int128 u128;

/* a * b, or false when either factor or the product is out of range. */
static bool mul(u128 a, u128 b, u128 *out)
{
    if (a > MAX_PRODUCT || b > MAX_PRODUCT || (b && a > MAX_PRODUCT / b)) return false;
    *out = a * b;
    return true;
}

static bool mul4(u128 a, u128 b, u128 c, u128 d, u128 *out)
{
    u128 x, y;
    return mul(a, b, &x) && mul(x, c, &y) && mul(y, d, out);
}

static bool dim_ok(int64_t d) { return d >= 0 && d <= MAX_DIM; }

/* ---- params ------------------------------------------------------------------ */

static void param_int(kt_perf_eval *e, const char *name, int64_t v)
{
    e->p[e->nparams++] = (kt_perf_param){ .name = name, .is_int = true, .i = v };
}

static void param_str(kt_perf_eval *e, const char *name, const char *s)
{
    kt_perf_param *p = &e->p[e->nparams++];
    p->name = name;
    p->is_int = false;
    snprintf(p->s, sizeof p->s, "%s", s);
}

static void param_bool(kt_perf_eval *e, const char *name, bool v) { param_str(e, name, v ? "True" : "False"); }

/* "('c10::BFloat16', 'float')" */
static void param_dtypes(kt_perf_eval *e, const char *a, const char *b)
{
    char buf[160];
    snprintf(buf, sizeof buf, "('%s', '%s')", a, b);
    param_str(e, "dtype_A_B", buf);
}

static void param_strides(kt_perf_eval *e, const char *name, const kt_op_input *in)
{
    char buf[160];
    if (in->nstrides < 0) snprintf(buf, sizeof buf, "None");
    else kt_py_int_tuple(in->strides, in->nstrides, buf, sizeof buf);
    param_str(e, name, buf);
}

static void set_spec(kt_perf_eval *e, const char *kind, const char *type)
{
    const char *prec = kt_dtype_precision(type);
    if (prec) snprintf(e->compute_spec, sizeof e->compute_spec, "%s_%s", kind, prec);
    else e->compute_spec[0] = '\0';
}

static const kt_op_input *input(const kt_op_args *a, int i, int ndims)
{
    if (i < 0 || (size_t)i >= a->n) return NULL;
    const kt_op_input *in = &a->in[i];
    if (in->ndims != ndims) return NULL;
    for (int d = 0; d < ndims; d++)
        if (!dim_ok(in->dims[d])) return NULL;
    return in;
}

/* ---- GEMM -------------------------------------------------------------------- */

static bool eval_gemm(const op_model *m, const kt_op_args *a, kt_perf_eval *e)
{
    int nd = m->batched ? 3 : 2;
    const kt_op_input *A = input(a, m->a, nd), *B = input(a, m->b, nd);
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
    bool bias = m->bias >= 0;
    u128 mnk, mn, mk, kn;
    if (!mul4(2, batch, M, N, &mn) || !mul(mn, (u128)K, &mnk) || !mul4(1, batch, M, K, &mk) ||
        !mul4(1, batch, K, N, &kn)) {
        e->why = "FLOPs out of range";
        return false;
    }
    mn /= 2; /* batch*M*N */
    e->flops = (double)(mnk + (bias ? mn : 0));
    int ba = kt_dtype_bytes(A->type), bb = kt_dtype_bytes(B->type);
    int bbias = bias && (size_t)m->bias < a->n ? kt_dtype_bytes(a->in[m->bias].type) : 0;
    /* bias: N elements for mm (a row broadcast), batch*M*N for baddbmm */
    u128 bias_elems = !bias ? 0 : m->batched ? mn : (u128)N;
    if (!ba || !bb || (bias && !bbias)) e->bytes = NAN;
    else e->bytes = (double)(mk * (u128)ba + kn * (u128)bb + mn * (u128)ba + bias_elems * (u128)bbias);
    set_spec(e, "matrix", A->type);
    if (m->batched) param_int(e, "B", batch); /* TraceLens's bmm lists B first */
    param_int(e, "M", M);
    param_int(e, "N", N);
    param_int(e, "K", K);
    param_bool(e, "bias", bias);
    param_strides(e, "stride_A", A);
    param_strides(e, "stride_B", B);
    param_dtypes(e, A->type, B->type);
    if (!m->batched) param_int(e, "B", batch);
    return true;
}

/* ---- SDPA forward -------------------------------------------------------------- */

static bool concrete_true(const kt_op_args *a, int i)
{
    return i >= 0 && (size_t)i < a->n && !strcmp(a->in[i].concrete, "True");
}

static bool eval_sdpa(const op_model *m, const kt_op_args *a, kt_perf_eval *e)
{
    const kt_op_input *Q = input(a, m->a, 4), *K = input(a, m->b, 4), *V = input(a, m->bias, 4);
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
    u128 bh, qk, pv, q, k, v, o;
    if (!mul(B, HQ, &bh) || !mul4(2, NQ, NKV, dqk, &qk) || !mul4(2, NQ, NKV, dv, &pv) ||
        !mul(bh, qk + pv, &qk) || !mul4(B, HQ, NQ, dqk, &q) || !mul4(B, HKV, NKV, dqk, &k) ||
        !mul4(B, HKV, NKV, dv, &v) || !mul4(B, HQ, NQ, dv, &o)) {
        e->why = "FLOPs out of range";
        return false;
    }
    e->flops = (double)qk;
    if (causal && NQ == NKV) e->flops /= 2;
    int bpe = kt_dtype_bytes(Q->type);
    e->bytes = bpe ? (double)((q + k + v + o) * (u128)bpe) : NAN;
    set_spec(e, "matrix", Q->type);
    double dropout = 0;
    if (m->dropout >= 0 && (size_t)m->dropout < a->n) dropout = strtod(a->in[m->dropout].concrete, NULL);
    char drop[40];
    kt_py_float(dropout, drop, sizeof drop);
    param_int(e, "B", B);
    param_int(e, "N_Q", NQ);
    param_int(e, "H_Q", HQ);
    param_int(e, "N_KV", NKV);
    param_int(e, "H_KV", HKV);
    param_int(e, "d_h_qk", dqk);
    param_int(e, "d_h_v", dv);
    param_str(e, "dropout", drop);
    param_bool(e, "causal", causal);
    param_bool(e, "flash_impl", m->flash);
    param_dtypes(e, Q->type, K->type);
    return true;
}

bool kt_perf_eval_op(int family, const char *op_name, const kt_op_args *a, kt_perf_eval *e)
{
    memset(e, 0, sizeof *e);
    const op_model *m = model_of(op_name);
    if (!m || m->family != family) {
        e->why = "no model for this op";
        return false;
    }
    if (!a->has_dims) {
        e->why = "no Input Dims (trace recorded without record_shapes=True)";
        return false;
    }
    return family == KT_PF_GEMM ? eval_gemm(m, a, e) : eval_sdpa(m, a, e);
}
