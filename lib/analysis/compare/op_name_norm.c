/*
 * op_name_norm.c — see op_name_norm.h.
 */
#include "op_name_norm.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *skip_vendor(const char *name)
{
    static const char *const prefixes[] = { "cuda", "hip", "cu" };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(prefixes[i]);
        if (!strncmp(name, prefixes[i], n) && isupper((unsigned char)name[n])) return name + n;
    }
    return name;
}

/* Length without a trailing "_v<digits>" (cuMemcpyHtoDAsync_v2). */
static size_t without_version(const char *s)
{
    size_t n = strlen(s), d = n;
    while (d > 0 && isdigit((unsigned char)s[d - 1])) d--;
    return d < n && d >= 2 && s[d - 1] == 'v' && s[d - 2] == '_' ? d - 2 : n;
}

/* Appends s[0..n) to buf at *len with "cudnn"/"miopen" → "dnn". */
static void append_dnn(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    for (size_t i = 0; i < n && *len + 1 < cap;) {
        size_t skip = !strncmp(s + i, "cudnn", 5) ? 5 : !strncmp(s + i, "miopen", 6) ? 6 : 0;
        if (skip && i + skip <= n) {
            for (const char *d = "dnn"; *d && *len + 1 < cap; d++) buf[(*len)++] = *d;
            i += skip;
        } else {
            buf[(*len)++] = s[i++];
        }
    }
    buf[*len] = '\0';
}

const char *kt_norm_op_name(const char *name, bool runtime_call, char *buf, size_t cap)
{
    if (!cap) return buf;
    buf[0] = '\0';
    if (!strncmp(name, "ProfilerStep#", 13)) {
        snprintf(buf, cap, "ProfilerStep#");
        return buf;
    }
    size_t len = 0;
    if (runtime_call) {
        const char *s = skip_vendor(name);
        size_t n = without_version(s);
        if (memmem(s, n, "LaunchKernel", 12)) { /* LaunchKernelExC, ExtModuleLaunchKernel, ... */
            snprintf(buf, cap, "LaunchKernel");
            return buf;
        }
        append_dnn(buf, cap, &len, s, n);
    } else {
        append_dnn(buf, cap, &len, name, strlen(name));
    }
    return buf;
}
