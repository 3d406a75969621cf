/*
 * kernel_type.c — see kernel_type.h.  The HTA rules are regexes matched at
 * the start of the name (Python re.match); they are spelled out here as
 * prefix/substring tests, which is what they amount to.
 */
#include "analysis/common/kernel_type.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has(const char *s, const char *p) { return strstr(s, p) != NULL; }

/* (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) */
static bool hta_comm(const char *n)
{
    return kt_starts_with(n, "nccl") || kt_starts_with(n, "hip") || kt_starts_with(n, "hccl") ||
           has(n, "ncclKernel");
}

/* (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) */
static bool hta_memory(const char *n)
{
    return kt_starts_with(n, "Memcpy") || kt_starts_with(n, "hipMemcpy") ||
           kt_starts_with(n, "Memset") || kt_starts_with(n, "hipMemset") || kt_starts_with(n, "dma");
}

/* ROCm 7.1 runs copies and fills as kernels named after the rocclr blit
 * (7.2 emits gpu_memcpy/gpu_memset again).                                 */
static bool rocm_blit(const char *n)
{
    return kt_starts_with(n, "__amd_rocclr_copyBuffer") ||
           kt_starts_with(n, "__amd_rocclr_fillBuffer") || kt_starts_with(n, "MEMORY_COPY_");
}

/* The negated COMPUTATION pattern: names that are not computation. */
static bool hta_not_compute(const char *n)
{
    static const char *const prefixes[] = { "nccl", "Stream Wait Event", "runFunction", "hip",
                                            "job_exe", "packet", "pe_exe", "cpum_exe_subgraph",
                                            "hccl", "collective_subgraph_execution" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (kt_starts_with(n, prefixes[i])) return true;
    if (has(n, "Memcpy") || has(n, "Memset") || has(n, "dma") || has(n, "Sync")) return true;
    return kt_starts_with(n, "cuda") && has(n + 4, "LaunchKernel");
}

const char *kt_shorten_name(const char *name, char *buf, size_t n)
{
    if (hta_memory(name) || !strpbrk(name, "<(") || n == 0) {
        snprintf(buf, n, "%s", name);
        return buf;
    }
    size_t top = 0; /* buf is the stack */
    for (const char *p = name; *p; p++) {
        if (p[0] == '-' && p[1] == '>') { p++; continue; }
        char open = *p == '>' ? '<' : *p == ')' ? '(' : 0;
        if (open) {
            while (top && buf[top - 1] != open) top--;
            if (top) top--;
        } else if (top + 1 < n) {
            buf[top++] = *p;
        }
    }
    buf[top] = '\0';
    const char *last = strrchr(buf, ' ');
    return last ? last + 1 : buf;
}

bool kt_is_comm_kernel_name(const char *n)
{
    return kt_starts_with(n, "nccl") || kt_starts_with(n, "rccl") || kt_starts_with(n, "hccl") ||
           has(n, "ncclKernel") || has(n, "ncclDevKernel") || has(n, "rccl_") ||
           has(n, "rcclGenericKernel") || kt_starts_with(n, "msccl") ||
           has(n, "cross_device_reduce") || has(n, "multimem_all_reduce");
}

bool kt_is_hta_comm_name(const char *n)
{
    return hta_comm(n);
}

static bool contains_nocase(const char *s, const char *p)
{
    for (size_t n = strlen(p); *s; s++)
        if (strncasecmp(s, p, n) == 0) return true;
    return false;
}

bool kt_is_tracelens_comm_name(const char *n)
{
    return contains_nocase(n, "nccl") || contains_nocase(n, "rccl") || contains_nocase(n, "cross_device_reduce");
}

kt_kernel_type kt_kernel_type_of(const char *name, uint8_t kind, bool hta_compat)
{
    if (hta_compat) {
        if (hta_comm(name)) return KT_TYPE_COMMUNICATION;
        if (hta_memory(name)) return KT_TYPE_MEMORY;
        return hta_not_compute(name) ? KT_TYPE_OTHER : KT_TYPE_COMPUTATION;
    }
    if (kind == KT_K_MEMCPY || kind == KT_K_MEMSET) return KT_TYPE_MEMORY;
    if (kind != KT_K_KERNEL) return KT_TYPE_OTHER;
    if (kt_is_comm_kernel_name(name)) return KT_TYPE_COMMUNICATION;
    if (hta_memory(name) || rocm_blit(name)) return KT_TYPE_MEMORY;
    return hta_not_compute(name) ? KT_TYPE_OTHER : KT_TYPE_COMPUTATION;
}

const char *kt_kernel_type_name(kt_kernel_type t)
{
    static const char *const names[] = { "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" };
    return names[t];
}

const char *kt_memory_kernel_type(const char *name, char *buf, size_t n)
{
    if (kt_starts_with(name, "Memset")) return "Memset";
    if (!kt_starts_with(name, "Memcpy")) return "Memcpy Unknown";
    snprintf(buf, n, "%.11s", name);
    return buf;
}

#define TYPE_UNKNOWN 0xff

struct kt_type_cache {
    const kt_strtab *strs;
    bool hta_compat;
    size_t n;
    uint8_t *type; /* by name id; TYPE_UNKNOWN until first seen */
};

kt_type_cache *kt_type_cache_new(const kt_strtab *strs, bool hta_compat)
{
    kt_type_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->strs = strs;
    c->hta_compat = hta_compat;
    c->n = kt_strtab_count(strs);
    c->type = malloc(c->n ? c->n : 1);
    if (!c->type) { free(c); return NULL; }
    memset(c->type, TYPE_UNKNOWN, c->n);
    return c;
}

void kt_type_cache_free(kt_type_cache *c)
{
    if (!c) return;
    free(c->type);
    free(c);
}

kt_kernel_type kt_event_kernel_type(kt_type_cache *c, const kt_rank *r, uint32_t ev)
{
    uint8_t kind = r->ev.kind[ev];
    uint32_t name = r->ev.name[ev];
    /* By default the kind decides for everything but kernels, so only
     * kernel names are memoized; HTA looks at the name alone.             */
    bool by_name = c->hta_compat || kind == KT_K_KERNEL;
    if (!by_name || name >= c->n)
        return kt_kernel_type_of(name < c->n ? kt_strtab_get(c->strs, name) : "", kind, c->hta_compat);
    if (c->type[name] == TYPE_UNKNOWN)
        c->type[name] = (uint8_t)kt_kernel_type_of(kt_strtab_get(c->strs, name), kind, c->hta_compat);
    return (kt_kernel_type)c->type[name];
}
