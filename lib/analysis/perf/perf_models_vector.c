/*
 * perf_models_vector.c — TraceLens's models of the memory-bound ops:
 * unary and binary elementwise (one FLOP per output element; inputs read
 * and output written once, broadcasting honoured), upsampling (as unary,
 * on the output), layer norm and reductions.
 *
 * Two of TraceLens's formulas are taken as it has them although they are
 * rough: layer norm costs 5 FLOPs per element plus 6 per channel and moves
 * 2·bpe + 8 bytes per channel besides input and output; a reduction writes
 * one element whatever its dims and keepdim.
 */
#include "analysis/common/dtypes.h"
#include "analysis/perf/perf_model_util.h"

#include <math.h>
#include <string.h>

static bool eval_unary(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
static bool eval_binary(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
static bool eval_upsample(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
static bool eval_layer_norm(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
static bool eval_reduce(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);

#define UNARY(n) { n, KT_PF_UNARY, eval_unary, 0, 0, 0, false, 0, 0, false, NULL }
#define BINARY(n) { n, KT_PF_BINARY, eval_binary, 0, 0, 0, false, 0, 0, false, NULL }
#define REDUCE(n, w) { n, KT_PF_REDUCE, eval_reduce, 0, 0, 0, false, 0, 0, false, w }

const kt_op_model kt_vector_models[] = {
    UNARY("aten::copy"), UNARY("aten::copy_"), UNARY("aten::clamp_min"), UNARY("aten::clamp_min_"),
    UNARY("aten::clamp_max"), UNARY("aten::clamp_max_"), UNARY("aten::sigmoid"), UNARY("aten::rsqrt"),
    UNARY("aten::silu"), UNARY("aten::neg"), UNARY("aten::pow"),
    { "aten::upsample_nearest1d", KT_PF_UNARY, eval_upsample, 0, 0, 0, false, 0, 0, false, NULL },
    { "aten::upsample_nearest2d", KT_PF_UNARY, eval_upsample, 0, 0, 0, false, 0, 0, false, NULL },
    BINARY("aten::div"), BINARY("aten::div_"), BINARY("aten::mul"), BINARY("aten::mul_"), BINARY("aten::add"),
    BINARY("aten::add_"), BINARY("aten::sigmoid_backward"), BINARY("aten::threshold_backward"),
    { "aten::layer_norm", KT_PF_NORM, eval_layer_norm, 0, 0, 0, false, 0, 0, false, NULL },
    { "aten::native_layer_norm", KT_PF_NORM, eval_layer_norm, 0, 0, 0, false, 0, 0, false, NULL },
    REDUCE("aten::sum", "sum"), REDUCE("aten::mean", "mean"), REDUCE("aten::max", "max"),
    REDUCE("aten::min", "min"), REDUCE("aten::norm", "norm"), REDUCE("aten::linalg_norm", "norm"),
    REDUCE("aten::amax", "amax"), REDUCE("aten::amin", "amin"),
    { NULL, 0, NULL, 0, 0, 0, false, 0, 0, false, NULL },
};

/* Input i's dims when the op recorded a tensor there (a non-empty list). */
static const kt_op_input *tensor_at(const kt_op_args *a, int i)
{
    const kt_op_input *in = kt_pm_input(a, i, -1);
    return in && in->ndims > 0 ? in : NULL;
}

static bool bytes_of(kt_perf_eval *e, kt_u128 n1, int b1, kt_u128 n2, int b2, kt_u128 n3, int b3)
{
    kt_u128 x, y, z;
    if (!kt_pm_mul(n1, b1, &x) || !kt_pm_mul(n2, b2, &y) || !kt_pm_mul(n3, b3, &z)) return false;
    e->bytes = b1 && (n2 == 0 || b2) && (n3 == 0 || b3) ? (double)(x + y + z) : NAN;
    return true;
}

static bool out_of_range(kt_perf_eval *e)
{
    e->why = "element count out of range";
    return false;
}

static bool eval_unary(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)m;
    (void)name;
    const kt_op_input *in = kt_pm_input(a, 0, -1), *out = tensor_at(a, 1);
    kt_u128 n;
    if (!in) {
        e->why = "no input shape";
        return false;
    }
    if (!kt_pm_numel(in, &n)) return out_of_range(e);
    int bin = kt_dtype_bytes(in->type), bout = out ? kt_dtype_bytes(out->type) : bin;
    e->flops = (double)n;
    if (!bytes_of(e, n, bin, n, bout, 0, 0)) return out_of_range(e);
    kt_pm_spec(e, "vector", in->type);
    kt_pm_dims(e, "op_shape", in);
    kt_pm_dtypes(e, "dtype_in_out", (const char *[]){ in->type, out ? out->type : NULL }, 2);
    kt_pm_strides(e, "stride_input", in);
    kt_pm_strides(e, "stride_output", out);
    if (!out) e->p[e->nparams - 1].s[0] = '\0'; /* None, written empty */
    return true;
}

/* Upsampling: the output (N, C, *output_size) is the op's shape. */
static bool eval_upsample(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)m;
    (void)name;
    const kt_op_input *in = kt_pm_input(a, 0, -1);
    int64_t size[KT_OP_MAX_DIMS], out[KT_OP_MAX_DIMS];
    int ns = kt_pm_concrete_ints(a, 1, size, KT_OP_MAX_DIMS - 2);
    if (!in || in->ndims < 3 || ns != in->ndims - 2) {
        e->why = "no input shape or output_size";
        return false;
    }
    out[0] = in->dims[0];
    out[1] = in->dims[1];
    for (int i = 0; i < ns; i++) out[i + 2] = size[i];
    kt_op_input o = { .ndims = in->ndims };
    memcpy(o.dims, out, sizeof out);
    kt_u128 nin, nout;
    for (int i = 0; i < ns; i++)
        if (size[i] < 0) return out_of_range(e);
    if (!kt_pm_numel(in, &nin) || !kt_pm_numel(&o, &nout)) return out_of_range(e);
    int b = kt_dtype_bytes(in->type);
    e->flops = (double)nout;
    if (!bytes_of(e, nin, b, nout, b, 0, 0)) return out_of_range(e);
    kt_pm_spec(e, "vector", in->type);
    kt_pm_dims(e, "input_shape", in); /* TraceLens's order */
    kt_pm_tuple(e, "output_shape", out, in->ndims);
    kt_pm_tuple(e, "op_shape", out, in->ndims);
    kt_pm_dtypes(e, "dtype_in_out", (const char *[]){ in->type, in->type }, 2);
    kt_pm_strides(e, "stride_input", in);
    kt_pm_str(e, "stride_output", "None");
    return true;
}

/* Broadcast shape of x and y (right-aligned); false when incompatible. */
static bool broadcast(const kt_op_input *x, const kt_op_input *y, kt_op_input *out)
{
    int n = x->ndims > y->ndims ? x->ndims : y->ndims;
    out->ndims = n;
    for (int i = 0; i < n; i++) {
        int xi = i - (n - x->ndims), yi = i - (n - y->ndims);
        int64_t dx = xi >= 0 ? x->dims[xi] : 1, dy = yi >= 0 ? y->dims[yi] : 1;
        if (dx != dy && dx != 1 && dy != 1) return false;
        out->dims[i] = dx > dy ? dx : dy;
    }
    return true;
}

static bool eval_binary(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)m;
    (void)name;
    const kt_op_input *x = kt_pm_input(a, 0, -1), *y = kt_pm_input(a, 1, -1), *out = tensor_at(a, 2);
    kt_op_input o = { 0 };
    kt_u128 nx, ny, no;
    if (!x || !y || !broadcast(x, y, &o)) {
        e->why = "input shapes missing or not broadcastable";
        return false;
    }
    if (!kt_pm_numel(x, &nx) || !kt_pm_numel(y, &ny) || !kt_pm_numel(&o, &no)) return out_of_range(e);
    int bx = kt_dtype_bytes(x->type), by = kt_dtype_bytes(y->type), bo;
    if (out) bo = kt_dtype_bytes(out->type);
    else if (x->ndims > 0 && y->ndims > 0) bo = bx > by ? bx : by; /* both tensors: the wider type */
    else bo = bx;
    e->flops = (double)no;
    if (!bytes_of(e, nx, bx, ny, by, no, bo)) return out_of_range(e);
    kt_pm_spec(e, "vector", x->type);
    kt_pm_dims(e, "shape_in1", x);
    kt_pm_dims(e, "shape_in2", y);
    kt_pm_dtypes(e, "dtype_in1_in2_out", (const char *[]){ x->type, y->type, out ? out->type : NULL }, 3);
    kt_pm_strides(e, "stride_input1", x);
    kt_pm_strides(e, "stride_input2", y);
    kt_pm_strides(e, "stride_output", out);
    if (!out) e->p[e->nparams - 1].s[0] = '\0';
    return true;
}

static bool eval_layer_norm(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)m;
    (void)name;
    const kt_op_input *in = tensor_at(a, 0), *w = tensor_at(a, 2), *b = tensor_at(a, 3);
    kt_u128 n, c;
    if (!in) {
        e->why = "no input shape";
        return false;
    }
    int64_t ch = w ? w->dims[w->ndims - 1] : in->dims[in->ndims - 1];
    if (!kt_pm_numel(in, &n) || !kt_pm_numel(w ? w : &(kt_op_input){ .ndims = 1, .dims = { ch } }, &c))
        return out_of_range(e);
    int bpe = kt_dtype_bytes(in->type);
    e->flops = (double)(5 * n + 6 * c);
    kt_u128 per_channel = (kt_u128)(w ? bpe : 0) + (kt_u128)(b ? bpe : 0) + 8;
    e->bytes = bpe ? (double)(2 * n * (kt_u128)bpe + c * per_channel) : NAN;
    kt_pm_spec(e, "vector", in->type);
    kt_pm_dims(e, "op_shape", in);
    kt_pm_dtypes(e, "dtype_in_out", (const char *[]){ in->type, NULL }, 2);
    kt_pm_strides(e, "stride_input", in);
    kt_pm_str(e, "stride_output", "");
    kt_pm_int(e, "num_channels", ch);
    kt_pm_bool(e, "has_bias", b != NULL);
    kt_pm_bool(e, "is_affine", w != NULL);
    kt_pm_bool(e, "is_training", true);
    return true;
}

static bool eval_reduce(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e)
{
    (void)name;
    const kt_op_input *in = kt_pm_input(a, 0, -1);
    kt_u128 n;
    if (!in) {
        e->why = "no input shape";
        return false;
    }
    if (!kt_pm_numel(in, &n)) return out_of_range(e);
    int bpe = kt_dtype_bytes(in->type);
    e->flops = (double)n;
    if (!bytes_of(e, n, bpe, 1, bpe, 0, 0)) return out_of_range(e);
    kt_pm_spec(e, "vector", in->type);
    kt_pm_int(e, "num_input_elems", (int64_t)n);
    kt_pm_int(e, "num_output_elems", 1);
    kt_pm_dtypes(e, "dtype_in_out", (const char *[]){ in->type, NULL }, 2);
    kt_pm_word(e, "reduce_type", m->what);
    return true;
}
