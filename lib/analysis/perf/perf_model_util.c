/*
 * perf_model_util.c — checked shape arithmetic and parameter builders for
 * the perf models (perf_model_util.h).
 */
#include "analysis/common/dtypes.h"
#include "analysis/perf/perf_model_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dims above 2^40 elements along one axis are bad shapes; products above
 * 2^100 are refused, so sums of a few of them still fit 128 bits.        */
#define MAX_DIM ((int64_t)1 << 40)
#define MAX_PRODUCT ((kt_u128)1 << 100)

bool kt_pm_mul(kt_u128 a, kt_u128 b, kt_u128 *out)
{
    if (a > MAX_PRODUCT || b > MAX_PRODUCT || (b && a > MAX_PRODUCT / b)) return false;
    *out = a * b;
    return true;
}

bool kt_pm_numel(const kt_op_input *in, kt_u128 *out)
{
    kt_u128 n = 1;
    for (int d = 0; d < in->ndims; d++)
        if (!kt_pm_mul(n, (kt_u128)in->dims[d], &n)) return false;
    *out = n;
    return true;
}

const kt_op_input *kt_pm_input(const kt_op_args *a, int i, int ndims)
{
    if (i < 0 || (size_t)i >= a->n) return NULL;
    const kt_op_input *in = &a->in[i];
    if (in->ndims < 0 || (ndims >= 0 && in->ndims != ndims)) return NULL;
    for (int d = 0; d < in->ndims; d++)
        if (in->dims[d] > MAX_DIM) return NULL;
    return in;
}

int kt_pm_concrete_ints(const kt_op_args *a, int i, int64_t *v, int max)
{
    if (i < 0 || (size_t)i >= a->n) return -1;
    const char *s = a->in[i].concrete;
    int n = 0;
    while (*s == '[' || *s == ' ') s++;
    while (*s && *s != ']') {
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s || n == max) return -1;
        v[n++] = x;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    return n;
}

static kt_perf_param *next_param(kt_perf_eval *e, const char *name)
{
    kt_perf_param *p = &e->p[e->nparams < KT_PERF_MAX_PARAMS ? e->nparams++ : KT_PERF_MAX_PARAMS - 1];
    memset(p, 0, sizeof *p);
    p->name = name;
    return p;
}

void kt_pm_int(kt_perf_eval *e, const char *name, int64_t v)
{
    kt_perf_param *p = next_param(e, name);
    p->is_int = true;
    p->i = v;
}

void kt_pm_str(kt_perf_eval *e, const char *name, const char *s)
{
    char *d = next_param(e, name)->s;
    size_t n = strlen(s), cap = sizeof e->p[0].s - 1;
    memcpy(d, s, n < cap ? n : cap);
    d[n < cap ? n : cap] = '\0';
}

void kt_pm_word(kt_perf_eval *e, const char *name, const char *s)
{
    kt_pm_str(e, name, s);
    e->p[e->nparams - 1].word = true;
}

void kt_pm_bool(kt_perf_eval *e, const char *name, bool v) { kt_pm_str(e, name, v ? "True" : "False"); }

void kt_pm_tuple(kt_perf_eval *e, const char *name, const int64_t *v, int n)
{
    char buf[sizeof e->p[0].s];
    if (n < 0) snprintf(buf, sizeof buf, "None");
    else kt_py_int_tuple(v, n, buf, sizeof buf);
    kt_pm_str(e, name, buf);
}

void kt_pm_dims(kt_perf_eval *e, const char *name, const kt_op_input *in)
{
    kt_pm_tuple(e, name, in ? in->dims : NULL, in ? in->ndims : -1);
}

void kt_pm_strides(kt_perf_eval *e, const char *name, const kt_op_input *in)
{
    kt_pm_tuple(e, name, in ? in->strides : NULL, in ? in->nstrides : -1);
}

/* Append s to buf (holding *k bytes of cap) while it fits. */
static void cat(char *buf, size_t cap, size_t *k, const char *s)
{
    size_t n = strlen(s);
    if (*k + n + 1 > cap) n = cap - *k - 1;
    memcpy(buf + *k, s, n);
    *k += n;
    buf[*k] = '\0';
}

void kt_pm_dtypes(kt_perf_eval *e, const char *name, const char *const *types, int n)
{
    char buf[sizeof e->p[0].s];
    size_t k = 0;
    cat(buf, sizeof buf, &k, "(");
    for (int i = 0; i < n; i++) {
        if (i) cat(buf, sizeof buf, &k, ", ");
        if (types[i]) {
            cat(buf, sizeof buf, &k, "'");
            cat(buf, sizeof buf, &k, types[i]);
            cat(buf, sizeof buf, &k, "'");
        } else {
            cat(buf, sizeof buf, &k, "None");
        }
    }
    cat(buf, sizeof buf, &k, n == 1 ? ",)" : ")");
    kt_pm_str(e, name, buf);
}

void kt_pm_spec(kt_perf_eval *e, const char *kind, const char *type)
{
    const char *prec = kt_dtype_precision(type);
    size_t k = 0;
    e->compute_spec[0] = '\0';
    if (!prec) return;
    cat(e->compute_spec, sizeof e->compute_spec, &k, kind);
    cat(e->compute_spec, sizeof e->compute_spec, &k, "_");
    cat(e->compute_spec, sizeof e->compute_spec, &k, prec);
}
