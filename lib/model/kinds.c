/*
 * kinds.c — event kind from ph and category, with legacy names normalized.
 *
 * Analyses must recognize GPU work by what it is, not by stream or pid
 * (ROCm runs kernels on stream 0; python_function uses pid/tid 0), and must
 * treat 2021-era traces (Operator, Runtime, Kernel, ...) like current ones.
 */
#include "model.h"

#include <string.h>

typedef struct {
    const char *cat;
    const char *normalized; /* NULL = keep as written */
    kt_kind kind;
} cat_rule;

static const cat_rule complete_rules[] = {
    { "cpu_op", NULL, KT_K_CPU_OP },
    { "Operator", "cpu_op", KT_K_CPU_OP },
    { "user_annotation", NULL, KT_K_USER_ANNOTATION },
    { "python_function", NULL, KT_K_PYTHON_FUNCTION },
    { "cuda_runtime", NULL, KT_K_RUNTIME },
    { "Runtime", "cuda_runtime", KT_K_RUNTIME },
    { "cuda_driver", NULL, KT_K_DRIVER },
    { "kernel", NULL, KT_K_KERNEL },
    { "Kernel", "kernel", KT_K_KERNEL },
    { "mtia_ccp_events", NULL, KT_K_KERNEL },
    { "gpu_memcpy", NULL, KT_K_MEMCPY },
    { "Memcpy", "gpu_memcpy", KT_K_MEMCPY },
    { "gpu_memset", NULL, KT_K_MEMSET },
    { "Memset", "gpu_memset", KT_K_MEMSET },
    { "cuda_sync", NULL, KT_K_CUDA_SYNC },
    { "gpu_user_annotation", NULL, KT_K_GPU_ANNOTATION },
    { "cuda_profiler_range", NULL, KT_K_PROFILER_RANGE },
    { "Trace", NULL, KT_K_TRACE_SPAN },
};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

kt_kind kt_kind_of(char ph, const char *cat, size_t len, const char **normalized)
{
    *normalized = NULL;
    switch (ph) {
    case 's': case 'b':
        if (len == 5 && !memcmp(cat, "async", 5)) *normalized = "ac2g";
        return KT_K_FLOW_START;
    case 'f': case 't': case 'e':
        if (len == 5 && !memcmp(cat, "async", 5)) *normalized = "ac2g";
        return KT_K_FLOW_END;
    case 'i': case 'I': return KT_K_INSTANT;
    case 'C': return KT_K_COUNTER;
    case 'M': return KT_K_METADATA;
    case 'X': break;
    default: return KT_K_OTHER;
    }
    for (size_t i = 0; i < sizeof complete_rules / sizeof complete_rules[0]; i++) {
        const cat_rule *r = &complete_rules[i];
        if (strlen(r->cat) == len && !memcmp(r->cat, cat, len)) {
            *normalized = r->normalized;
            return r->kind;
        }
    }
    if (ends_with(cat, len, "_runtime")) return KT_K_RUNTIME; /* mtia_runtime, privateuse1_runtime */
    return KT_K_OTHER;
}
