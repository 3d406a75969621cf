/*
 * device_spec.h — peak throughput and memory bandwidth of a GPU, for the
 * roofline.
 *
 * A roofline needs the device's peak FLOP/s per precision and its memory
 * bandwidth.  The built-in table holds vendor datasheet figures for the GPUs
 * users run (source named beside each row in device_spec.c); a trace's
 * deviceProperties name picks one.  --device-spec FILE reads TraceLens's arch
 * JSON instead ({"name", "mem_bw_gbps", "max_achievable_tflops": {
 * "matrix_bf16": ..., ...}}).
 */
#ifndef KT_DEVICE_SPEC_H
#define KT_DEVICE_SPEC_H

#include <stdbool.h>
#include <stddef.h>

/* Compute Spec keys, TraceLens's names. */
typedef enum {
    KT_SPEC_MATRIX_FP8, KT_SPEC_MATRIX_FP16, KT_SPEC_MATRIX_BF16, KT_SPEC_MATRIX_FP32,
    KT_SPEC_MATRIX_FP64, KT_SPEC_MATRIX_INT8, KT_SPEC_VECTOR_FP16, KT_SPEC_VECTOR_BF16,
    KT_SPEC_VECTOR_FP32, KT_SPEC_VECTOR_FP64, KT_SPEC__COUNT
} kt_spec_key;

typedef struct kt_device_spec {
    char name[64];
    double mem_bw_gbps;              /* GB/s (1e9 bytes/s) */
    double tflops[KT_SPEC__COUNT];   /* 0 = unknown */
    const char *source;              /* where the figures come from */
} kt_device_spec;

/* Index of a Compute Spec string ("matrix_bf16"), or -1. */
int kt_spec_key_of(const char *compute_spec);

/* The built-in spec whose GPU a deviceProperties name describes ("NVIDIA
 * H100 80GB HBM3", "AMD Instinct MI300X"), or false.                      */
bool kt_device_spec_for(const char *device_name, kt_device_spec *out);
/* The built-in table, for documentation and tests. */
const kt_device_spec *kt_device_specs(size_t *n);

/* Parse TraceLens's arch JSON text; false with a reason in err. */
bool kt_device_spec_parse(const char *text, size_t len, kt_device_spec *out, char *err, size_t errlen);

#endif
