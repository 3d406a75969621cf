/*
 * perf_model_util.h — what the perf model files share: the op registry
 * entry, range-checked 128-bit arithmetic on shapes, and builders for the
 * "param: " values in TraceLens's Python spelling.
 */
#ifndef KT_PERF_MODEL_UTIL_H
#define KT_PERF_MODEL_UTIL_H

#include "analysis/perf/perf_models.h"

typedef unsigned __int128 kt_u128;

typedef struct kt_op_model kt_op_model;
struct kt_op_model {
    const char *name;
    int family;
    bool (*eval)(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
    int a, b, c;        /* GEMM: A, B, bias input (-1 none); SDPA: q, k, v   */
    bool batched;       /* GEMM: 3-D operands with a batch dimension        */
    int dropout, causal;/* SDPA: Concrete Inputs index of dropout_p, is_causal */
    bool flash;         /* SDPA: the flash implementation                  */
    const char *what;   /* reduce: TraceLens's reduce_type; Triton: the kind  */
};

/* The model files' registries (perf_models_*.c), terminated by name NULL. */
extern const kt_op_model kt_matrix_models[], kt_vector_models[], kt_conv_models[];
/* Matched by name prefix, not whole name (triton_poi_..., see the file). */
extern const kt_op_model kt_triton_models[];

/* Models (each a kt_op_model eval function). */
bool kt_pm_gemm(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);
bool kt_pm_sdpa(const kt_op_model *m, const char *name, const kt_op_args *a, kt_perf_eval *e);

/* a * b within 2^100 (false otherwise: hostile shapes, never an overflow). */
bool kt_pm_mul(kt_u128 a, kt_u128 b, kt_u128 *out);
/* Product of an input's dims (1 for a scalar's empty list). */
bool kt_pm_numel(const kt_op_input *in, kt_u128 *out);
/* Input i when it has exactly ndims sane dims (ndims < 0: any count). */
const kt_op_input *kt_pm_input(const kt_op_args *a, int i, int ndims);
/* Concrete Inputs[i] as an int list ("[16, 16]" or "16"); count or -1. */
int kt_pm_concrete_ints(const kt_op_args *a, int i, int64_t *v, int max);

void kt_pm_int(kt_perf_eval *e, const char *name, int64_t v);
void kt_pm_str(kt_perf_eval *e, const char *name, const char *s);
/* a Python string value: quoted in perf_params */
void kt_pm_word(kt_perf_eval *e, const char *name, const char *s);
void kt_pm_bool(kt_perf_eval *e, const char *name, bool v);
/* "(1, 2)" of v; or None */
void kt_pm_tuple(kt_perf_eval *e, const char *name, const int64_t *v, int n);
void kt_pm_dims(kt_perf_eval *e, const char *name, const kt_op_input *in);
void kt_pm_strides(kt_perf_eval *e, const char *name, const kt_op_input *in);
/* "('c10::BFloat16', None)": n dtype names, NULL for None. */
void kt_pm_dtypes(kt_perf_eval *e, const char *name, const char *const *types, int n);
/* Compute Spec "<kind>_<precision of type>", "" when unknown. */
void kt_pm_spec(kt_perf_eval *e, const char *kind, const char *type);

#endif
