/*
 * xla_common.c — the naming rules JAX/XLA's .xplane.pb and trace.json
 * share (see xla_common.h).
 */
#include "xla_common.h"

#include <stdlib.h>

static bool starts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && !memcmp(s, lit, k);
}

/* The decimal number at s[from..n) (capped), or -1 when none is there. */
static int64_t number_at(const char *s, size_t n, size_t from, int64_t cap)
{
    if (from >= n || s[from] < '0' || s[from] > '9') return -1;
    int64_t v = 0;
    for (size_t i = from; i < n && s[i] >= '0' && s[i] <= '9' && v < cap; i++) v = v * 10 + (s[i] - '0');
    return v;
}

int64_t kt_xla_plane(const char *s, size_t n)
{
    if (n == 9 && starts(s, n, "/host:CPU")) return KT_XLA_HOST;
    return starts(s, n, "/device:GPU:") ? number_at(s, n, 12, 4096) : -1;
}

int64_t kt_xla_stream(const char *s, size_t n)
{
    return starts(s, n, "Stream #") ? number_at(s, n, 8, 1 << 30) : -1;
}

static bool has(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(s + i, lit, k)) return true;
    return false;
}

kt_kind kt_xla_gpu_kind(const char *line, size_t line_n, const char *name)
{
    if (kt_starts_with(name, "Memcpy") || kt_starts_with(name, "memcpy")) return KT_K_MEMCPY;
    if (kt_starts_with(name, "Memset") || kt_starts_with(name, "memset")) return KT_K_MEMSET;
    if (has(line, line_n, "Memcpy")) return KT_K_MEMCPY;
    if (has(line, line_n, "Memset")) return KT_K_MEMSET;
    return KT_K_KERNEL;
}

void kt_xla_host_event(kt_build *b, const kt_host_op *call, kt_xla_op op)
{
    kt_host_op h = *call;
    h.kind = call->corr >= 0 ? KT_K_RUNTIME : KT_K_USER_ANNOTATION;
    kt_host_op wrap = h;
    wrap.kind = KT_K_CPU_OP;
    wrap.corr = -1;
    if (h.kind == KT_K_RUNTIME && op.op != KT_NONE) {
        /* equal spans: the call tree makes the one written first the parent */
        if (op.module != KT_NONE) wrap.name = op.module, kt_build_host(b, &wrap);
        wrap.name = op.op;
        kt_build_host(b, &wrap);
    }
    kt_build_host(b, &h);
}

bool kt_xla_ops_add(kt_xla_ops *m, int64_t corr, kt_xla_op op)
{
    if (corr < 0 || op.op == KT_NONE) return true;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        kt_xla_corr_op *v = realloc(m->v, cap * sizeof *v);
        if (!v) return false;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = (kt_xla_corr_op){ corr, op };
    m->sorted = false;
    return true;
}

static int by_corr(const void *a, const void *b)
{
    int64_t x = ((const kt_xla_corr_op *)a)->corr, y = ((const kt_xla_corr_op *)b)->corr;
    return (x > y) - (x < y);
}

kt_xla_op kt_xla_ops_get(kt_xla_ops *m, int64_t corr)
{
    if (corr < 0) return (kt_xla_op){ KT_NONE, KT_NONE }; /* never added */
    if (!m->sorted && m->n) qsort(m->v, m->n, sizeof *m->v, by_corr);
    m->sorted = true;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->n && m->v[lo].corr == corr ? m->v[lo].op : (kt_xla_op){ KT_NONE, KT_NONE };
}

void kt_xla_ops_free(kt_xla_ops *m)
{
    free(m->v);
    *m = (kt_xla_ops){ 0 };
}
