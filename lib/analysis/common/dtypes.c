/*
 * dtypes.c — see dtypes.h.
 */
#include "analysis/common/dtypes.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct dtype_info {
    const char *scalar; /* ScalarType name (NCCL metadata)       */
    const char *cpp;    /* C++ type name (op input types), or NULL */
    int bytes;
    const char *precision;
} dtype_info;

static const dtype_info dtypes[] = {
    { "Float", "float", 4, "fp32" },
    { "Double", "double", 8, "fp64" },
    { "Half", "c10::Half", 2, "fp16" },
    { "BFloat16", "c10::BFloat16", 2, "bf16" },
    { "Float8_e4m3fn", "c10::Float8_e4m3fn", 1, "fp8" },
    { "Float8_e5m2", "c10::Float8_e5m2", 1, "fp8" },
    { "Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", 1, "fp8" },
    { "Float8_e5m2fnuz", "c10::Float8_e5m2fnuz", 1, "fp8" },
    { "ComplexFloat", "c10::complex<float>", 8, NULL },
    { "ComplexDouble", "c10::complex<double>", 16, NULL },
    { "Long", "long int", 8, NULL },
    { "Int", "int", 4, NULL },
    { "Short", "short int", 2, NULL },
    { "Char", "signed char", 1, "int8" },
    { "Byte", "unsigned char", 1, NULL },
    /* no C++ "bool": TraceLens moves no bytes it can count for bool
     * tensors (Data Moved empty), and perf prints its numbers            */
    { "Bool", NULL, 1, NULL },
};

static const dtype_info *find(const char *name, bool cpp)
{
    for (size_t i = 0; name && i < sizeof dtypes / sizeof *dtypes; i++) {
        const char *n = cpp ? dtypes[i].cpp : dtypes[i].scalar;
        if (n && !strcmp(name, n)) return &dtypes[i];
    }
    return NULL;
}

int kt_scalar_type_bytes(const char *name)
{
    const dtype_info *d = find(name, false);
    return d ? d->bytes : 0;
}

int kt_dtype_bytes(const char *type)
{
    const dtype_info *d = find(type, true);
    return d ? d->bytes : 0;
}

const char *kt_dtype_precision(const char *type)
{
    const dtype_info *d = find(type, true);
    return d ? d->precision : NULL;
}
