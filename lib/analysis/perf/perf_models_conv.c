/*
 * perf_models_conv.c — TraceLens's convolution forward model:
 * 2·N·C_out·prod(out spatial)·C_in/groups·prod(kernel) FLOPs, input and
 * weight read and output written once.  As in TraceLens, the bias is
 * neither counted nor reported (its "bias" parameter reads False).
 */
#include "analysis/common/dtypes.h"
#include "analysis/perf/perf_model_util.h"

#include <math.h>
#include <stdio.h>

static bool eval_conv(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);

const kt_op_model kt_conv_models[] = {
    { "aten::convolution", KT_PF_CONV_FWD, eval_conv, 0, 1, 2, false, 0, 0, false, NULL },
    { NULL, 0, NULL, 0, 0, 0, false, 0, 0, false, NULL },
};

/* Concrete list i as exactly n ints (one value stands for all), or false. */
static bool conv_list(const kt_op_args *a, int i, int n, int64_t *v)
{
    int k = kt_pm_concrete_ints(a, i, v, KT_OP_MAX_DIMS);
    if (k == 1)
        for (int j = 1; j < n; j++) v[j] = v[0];
    return k == 1 || k == n;
}

static bool eval_conv(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)name;
    const kt_op_input *x = kt_pm_input(a, m->a, -1), *w = kt_pm_input(a, m->b, -1);
    int64_t stride[KT_OP_MAX_DIMS], pad[KT_OP_MAX_DIMS], dil[KT_OP_MAX_DIMS], outpad[KT_OP_MAX_DIMS], groups = 1;
    int sp = x ? x->ndims - 2 : 0;
    if (!x || !w || sp < 1 || sp > 3 || w->ndims != x->ndims || !conv_list(a, 3, sp, stride) ||
        !conv_list(a, 4, sp, pad) || !conv_list(a, 5, sp, dil) || !conv_list(a, 7, sp, outpad) ||
        kt_pm_concrete_ints(a, 8, &groups, 1) != 1 || groups < 1 || x->dims[1] != w->dims[1] * groups) {
        e->why = "input, weight or convolution arguments do not fit a convolution";
        return false;
    }
    bool transposed = (size_t)6 < a->n && a->in[6].concrete[0] == 'T';
    int64_t out[KT_OP_MAX_DIMS] = { x->dims[0], w->dims[0] };
    kt_u128 flops = 2, nx, nw, no;
    for (int i = 0; i < sp; i++) {
        int64_t k = w->dims[2 + i];
        if (stride[i] < 1 || dil[i] < 0 || pad[i] < 0 || transposed) {
            e->why = transposed ? "transposed convolution is not modelled" : "bad stride, padding or dilation";
            return false;
        }
        int64_t span = dil[i] * (k - 1) + 1, in = x->dims[2 + i] + 2 * pad[i];
        out[2 + i] = in >= span ? (in - span) / stride[i] + 1 : 0;
    }
    kt_op_input o = { .ndims = x->ndims };
    for (int i = 0; i < x->ndims; i++) o.dims[i] = out[i];
    if (!kt_pm_numel(x, &nx) || !kt_pm_numel(w, &nw) || !kt_pm_numel(&o, &no) || !kt_pm_mul(flops, no, &flops) ||
        !kt_pm_mul(flops, nw / (kt_u128)(w->dims[0] ? w->dims[0] : 1), &flops)) {
        e->why = "FLOPs out of range";
        return false;
    }
    e->flops = (double)flops; /* 2 · out elements · C_in/groups · kernel size */
    int bx = kt_dtype_bytes(x->type), bw = kt_dtype_bytes(w->type);
    e->bytes = bx && bw ? (double)(nx * (kt_u128)bx + nw * (kt_u128)bw + no * (kt_u128)bx) : NAN;
    kt_pm_spec(e, "matrix", x->type);
    char nd[8];
    snprintf(nd, sizeof nd, "conv%dd", sp);
    kt_pm_word(e, "convNd", nd);
    kt_pm_dims(e, "input_shape", x);
    kt_pm_dims(e, "filter_shape", w);
    kt_pm_dtypes(e, "dtype_input_weight", (const char *[]){ x->type, w->type }, 2);
    kt_pm_strides(e, "input_stride", x);
    kt_pm_strides(e, "weight_stride", w);
    kt_pm_bool(e, "bias", false);
    kt_pm_tuple(e, "stride", stride, sp);
    kt_pm_tuple(e, "padding", pad, sp);
    kt_pm_tuple(e, "dilation", dil, sp);
    kt_pm_bool(e, "transposed_conv", transposed);
    kt_pm_tuple(e, "output_padding", outpad, sp);
    kt_pm_int(e, "groups", groups);
    return true;
}
