/*
 * device_spec.c — the built-in GPU table and TraceLens's arch JSON reader
 * (device_spec.h).
 *
 * Figures are the vendors' datasheet peaks for dense math (no structured
 * sparsity), TFLOP/s, and HBM bandwidth in GB/s.  NVIDIA datasheets give no
 * non-tensor FP16/BF16 rate; those rows use twice the FP32 rate (the
 * architecture whitepapers' figure).  NVIDIA's "matrix_fp32" is the FP32
 * rate: PyTorch runs FP32 matmuls without TF32 by default.  TraceLens's
 * bundled arch files hold *achievable* rates (e.g. MI300X bf16 708 against
 * the datasheet's 1307), so our Pct Roofline against a datasheet peak reads
 * lower than TraceLens's with its own file; pass that file with
 * --device-spec to compare like with like.
 */
#include "analysis/perf/device_spec.h"

#include "load/json_tree.h"

#include <stdio.h>
#include <string.h>

static const char *const key_names[KT_SPEC__COUNT] = {
    "matrix_fp8", "matrix_fp16", "matrix_bf16", "matrix_fp32", "matrix_fp64", "matrix_int8",
    "vector_fp16", "vector_bf16", "vector_fp32", "vector_fp64",
};

int kt_spec_key_of(const char *s)
{
    for (int k = 0; s && k < KT_SPEC__COUNT; k++)
        if (!strcmp(s, key_names[k])) return k;
    return -1;
}


/* tflops in key order: fp8, fp16, bf16, fp32, fp64, int8 (matrix), then
 * fp16, bf16, fp32, fp64 (vector).                                        */
static const kt_device_spec table[] = {
    { "A100 SXM4 80GB", 2039, { 0, 312, 312, 19.5, 19.5, 624, 39, 39, 19.5, 9.7 },
      "NVIDIA A100 Tensor Core GPU datasheet (2021), SXM 80GB column" },
    { "A100 SXM4 40GB", 1555, { 0, 312, 312, 19.5, 19.5, 624, 39, 39, 19.5, 9.7 },
      "NVIDIA A100 Tensor Core GPU datasheet (2021), 40GB column" },
    { "A100 PCIe 80GB", 1935, { 0, 312, 312, 19.5, 19.5, 624, 39, 39, 19.5, 9.7 },
      "NVIDIA A100 Tensor Core GPU datasheet (2021), PCIe 80GB column" },
    { "H100 SXM", 3350, { 1979, 989.5, 989.5, 67, 67, 1979, 134, 134, 67, 34 },
      "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column (sparse figures halved)" },
    { "H100 PCIe", 2000, { 1513, 756, 756, 51, 51, 1513, 102, 102, 51, 26 },
      "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column (sparse figures halved)" },
    { "H200 SXM", 4800, { 1979, 989.5, 989.5, 67, 67, 1979, 134, 134, 67, 34 },
      "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column (sparse figures halved)" },
    { "B200", 8000, { 4500, 2250, 2250, 75, 37, 4500, 150, 150, 75, 37 },
      "NVIDIA HGX B200 datasheet, per GPU (sparse figures halved)" },
    { "MI250X", 3276.8, { 0, 383, 383, 95.7, 95.7, 383, 383, 383, 47.9, 47.9 },
      "AMD Instinct MI250X data sheet" },
    { "MI300X", 5300, { 2614.9, 1307.4, 1307.4, 163.4, 163.4, 2614.9, 163.4, 163.4, 163.4, 81.7 },
      "AMD Instinct MI300X data sheet (dense figures)" },
    { "MI325X", 6000, { 2614.9, 1307.4, 1307.4, 163.4, 163.4, 2614.9, 163.4, 163.4, 163.4, 81.7 },
      "AMD Instinct MI325X data sheet (dense figures)" },
};

const kt_device_spec *kt_device_specs(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

/* Which table row a deviceProperties name means: the GPU model, then the
 * variant words that change the memory system.                            */
static const char *row_for(const char *n)
{
    if (strstr(n, "MI325X")) return "MI325X";
    if (strstr(n, "MI300X")) return "MI300X";
    if (strstr(n, "MI250")) return "MI250X";
    if (strstr(n, "B200")) return "B200";
    if (strstr(n, "H200")) return "H200 SXM";
    if (strstr(n, "H100")) return strstr(n, "PCIe") ? "H100 PCIe" : "H100 SXM";
    if (strstr(n, "A100")) {
        if (strstr(n, "PCIe") && strstr(n, "80GB")) return "A100 PCIe 80GB";
        return strstr(n, "80GB") ? "A100 SXM4 80GB" : "A100 SXM4 40GB";
    }
    return NULL;
}

bool kt_device_spec_for(const char *device_name, kt_device_spec *out)
{
    const char *row = device_name ? row_for(device_name) : NULL;
    for (size_t i = 0; row && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, row)) {
            *out = table[i];
            return true;
        }
    return false;
}

bool kt_device_spec_parse(const char *text, size_t len, kt_device_spec *out, char *err, size_t errlen)
{
    kt_jtree t = { 0 };
    const char *why;
    memset(out, 0, sizeof *out);
    if (!kt_jtree_parse(&t, text, len, &why)) {
        snprintf(err, errlen, "not JSON: %s", why);
        return false;
    }
    const kt_jnode *root = &t.n[0];
    const kt_jnode *name = kt_jobj_get(&t, root, "name");
    const kt_jnode *bw = kt_jobj_get(&t, root, "mem_bw_gbps");
    const kt_jnode *maf = kt_jobj_get(&t, root, "max_achievable_tflops");
    bool ok = false;
    if (!bw || bw->type != KT_J_NUM || !(bw->d > 0)) {
        snprintf(err, errlen, "\"mem_bw_gbps\" must be a positive number");
    } else if (!maf || maf->type != KT_J_OBJ) {
        snprintf(err, errlen, "\"max_achievable_tflops\" must be an object");
    } else {
        ok = true;
        snprintf(out->name, sizeof out->name, "%s", name && name->type == KT_J_STR ? name->s : "custom");
        out->mem_bw_gbps = bw->d;
        out->source = "--device-spec file";
        for (uint32_t k = maf->first; ok && k != UINT32_MAX; k = t.n[k].next) {
            const kt_jnode *v = &t.n[k];
            int key = kt_spec_key_of(v->key);
            if (v->type != KT_J_NUM || !(v->d >= 0)) {
                snprintf(err, errlen, "\"%s\" must be a non-negative number", v->key);
                ok = false;
            } else if (key >= 0) {
                out->tflops[key] = v->d; /* keys we do not use (int4, ...) are ignored */
            }
        }
    }
    kt_jtree_free(&t);
    return ok;
}
