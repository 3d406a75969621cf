/*
 * rocprof_common.c — domains, copy names and agents shared by the
 * rocprofv3 JSON and CSV readers.
 */
#include "rocprof_common.h"

static bool starts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(s, lit, k) == 0;
}

kt_kind kt_rocprof_domain_kind(const char *d, size_t n)
{
    if (starts(d, n, "HIP_RUNTIME_API") || starts(d, n, "HIP_COMPILER_API")) return KT_K_RUNTIME;
    if (starts(d, n, "HSA_")) return KT_K_DRIVER;
    if (starts(d, n, "MARKER_CORE")) return KT_K_USER_ANNOTATION;
    if (starts(d, n, "RCCL_API")) return KT_K_CPU_OP;
    return KT_K_OTHER;
}

const char *kt_rocprof_copy_name(const char *dir, size_t n)
{
    static const struct { const char *dir, *name; } names[] = {
        { "HOST_TO_DEVICE", "Memcpy HtoD (Host -> Device)" },
        { "DEVICE_TO_HOST", "Memcpy DtoH (Device -> Host)" },
        { "DEVICE_TO_DEVICE", "Memcpy DtoD (Device -> Device)" },
        { "HOST_TO_HOST", "Memcpy HtoH (Host -> Host)" },
        { "PEER_TO_PEER", "Memcpy PtoP (Device -> Device)" },
    };
    if (starts(dir, n, "MEMORY_COPY_")) dir += 12, n -= 12;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].dir) == n && !memcmp(names[i].dir, dir, n)) return names[i].name;
    return "Memcpy";
}

void kt_agent_add(kt_agent_map *m, int64_t handle, int64_t device, bool gpu)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->handle[i] == handle) return;
    if (m->n == sizeof m->handle / sizeof m->handle[0]) return;
    m->handle[m->n] = handle;
    m->device[m->n] = device;
    m->gpu[m->n++] = gpu;
}

int64_t kt_agent_device(const kt_agent_map *m, int64_t handle)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->handle[i] == handle) return m->gpu[i] ? m->device[i] : -1;
    return -1;
}

int64_t kt_agent_gpu(kt_agent_map *m, int64_t handle)
{
    int64_t d = kt_agent_device(m, handle);
    if (d >= 0) return d;
    int64_t next = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->gpu[i] && m->device[i] >= next) next = m->device[i] + 1;
    kt_agent_add(m, handle, next, true);
    return kt_agent_device(m, handle);
}
