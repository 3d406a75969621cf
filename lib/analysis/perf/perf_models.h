/*
 * perf_models.h — FLOPs and bytes of an op from its recorded shapes.
 *
 * Which ops are modelled, with TraceLens's formulas and parameter columns
 * (spec: ../shared/spec/tracelens-and-peers.md §1.6): GEMM (mm, addmm, bmm,
 * baddbmm, _scaled_mm), scaled-dot-product attention forward, convolution
 * forward, unary and binary elementwise, layer norm and reductions.
 * Each model turns one op's shapes into parameters (the "param: *" columns
 * rows are grouped by), FLOPs, bytes and the peak it is measured against
 * ("Compute Spec").  Products are taken in 128-bit integers with every
 * factor range-checked, so hostile shapes give a reason, never an overflow.
 */
#ifndef KT_PERF_MODELS_H
#define KT_PERF_MODELS_H

#include "analysis/perf/op_args.h"

typedef enum kt_perf_family {
    KT_PF_GEMM = 0,
    KT_PF_SDPA_FWD,
    KT_PF_CONV_FWD,
    KT_PF_UNARY,
    KT_PF_BINARY,
    KT_PF_NORM,
    KT_PF_REDUCE,
    KT_PF_TRITON,         /* our estimate, not TraceLens's (perf_models_triton.c) */
    KT_PF__COUNT
} kt_perf_family;

#define KT_PERF_MAX_PARAMS 16

typedef struct kt_perf_param {
    const char *name;        /* TraceLens's parameter name (static) */
    bool is_int;
    bool word;               /* s is a Python string ('conv2d'), not a repr */
    int64_t i;
    char s[160];
} kt_perf_param;

typedef struct kt_perf_eval {
    double flops;            /* exact below 2^53 */
    double bytes;            /* NaN when a dtype is unknown */
    char compute_spec[24];   /* "matrix_bf16", "" when the dtype is unknown */
    size_t nparams;
    kt_perf_param p[KT_PERF_MAX_PARAMS];
    const char *why;         /* why the op could not be modelled (false return) */
} kt_perf_eval;

/* Nothing evaluated yet.  Only the scalars: p[] is read up to nparams, and
 * clearing its 3 KB per op call was most of a perf run's memset time.   */
void kt_perf_eval_reset(kt_perf_eval *e);

/* Family of an op name, or -1 when no model covers it; with_triton: Triton
 * kernels' cpu_ops get the (estimated) Triton family.                     */
int kt_perf_family_of(const char *op_name, bool with_triton);
/* TraceLens's sheet name of a family ("GEMM", "SDPA_fwd", "Normalization", ...). */
const char *kt_perf_family_sheet(int family);
typedef struct kt_op_model kt_op_model; /* perf_model_util.h */
/* The model covering op_name, NULL when none: a search through every model
 * name, so callers evaluating many ops look it up once per name.          */
const kt_op_model *kt_perf_model_of(const char *op_name);
/* Evaluate m (kt_perf_model_of(op_name)) on op_name's args; false (and
 * e->why) when there is no model of that family or the shapes do not fit. */
bool kt_perf_eval_model(const kt_op_model *m, int family, const char *op_name, const kt_op_args *a, kt_perf_eval *e);

#endif
