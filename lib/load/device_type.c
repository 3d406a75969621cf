/*
 * device_type.c — which accelerator a rank's trace comes from.
 *
 * Some analyses differ per vendor (ROCm puts kernels on stream 0, MTIA has
 * its own runtime); the trace says so only indirectly, through runtime call
 * names, categories and the distributed backend.
 */
#include "load_internal.h"

#include <string.h>

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void kt_detect_device_type(kt_rank *r, const kt_strtab *strs)
{
    bool gpu = false, cuda = false, hip = false;
    bool mtia = r->backend != KT_NONE && strstr(kt_strtab_get(strs, r->backend), "mtia");
    uint32_t last_name = KT_NONE;
    for (size_t i = 0; i < r->ev.n; i++) {
        uint8_t k = r->ev.kind[i];
        gpu |= kt_kind_is_gpu(k);
        if ((k != KT_K_RUNTIME && k != KT_K_DRIVER) || r->ev.name[i] == last_name) continue;
        last_name = r->ev.name[i];
        const char *name = kt_strtab_get(strs, last_name);
        mtia |= starts_with(kt_strtab_get(strs, r->ev.cat[i]), "mtia");
        hip |= starts_with(name, "hip");
        cuda |= starts_with(name, "cu");
    }
    r->device_type = mtia   ? KT_DEV_MTIA
                     : !gpu ? KT_DEV_CPU_ONLY
                     : hip  ? KT_DEV_ROCM
                     : cuda ? KT_DEV_CUDA
                            : KT_DEV_UNKNOWN;
}
