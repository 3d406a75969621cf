/*
 * copy_names.c — see copy_names.h.
 */
#include "analysis/common/copy_names.h"

#include <stdio.h>
#include <string.h>

const char *kt_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool kt_file_name_shared(const kt_trace *t, const kt_rank_sel *sel, const kt_rank *r)
{
    for (size_t i = 0; i < t->nranks; i++) {
        const kt_rank *o = t->ranks[i];
        if (o != r && kt_rank_selected(sel, o->rank) && !strcmp(kt_base_name(o->file), kt_base_name(r->file)))
            return true;
    }
    return false;
}

bool kt_copy_path(const char *dir, const char *in, const char *suffix, int tag, char *out, size_t cap)
{
    const char *base = kt_base_name(in), *cut = NULL;
    for (const char *p = strstr(base, ".json"); p; p = strstr(p + 1, ".json")) cut = p;
    size_t len = strlen(base);
    if (!cut) cut = len > 3 && !strcmp(base + len - 3, ".gz") ? base + len - 3 : base + len;
    char rank[32] = "";
    if (tag >= 0) snprintf(rank, sizeof rank, "_rank%d", tag);
    int n = snprintf(out, cap, "%s/%.*s%s%s%s%s", dir, (int)(cut - base), base, rank, suffix, cut, *cut ? "" : ".json");
    return n > 0 && (size_t)n < cap;
}
