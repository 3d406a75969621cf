/* load_stub.c — placeholder until the loader lands (delete when replaced). */
#include "model/model.h"
#include "model/index.h"
#include <stdlib.h>

kt_status kt_load(const char *const *paths, size_t npaths, const kt_load_options *opt,
                  kt_trace **out, kt_diags **failure)
{
    (void)paths; (void)npaths; (void)opt;
    *out = NULL;
    *failure = calloc(1, sizeof **failure);
    return KT_EINPUT;
}

void kt_trace_free(kt_trace *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nranks; i++) kt_rank_free(t->ranks[i]);
    free(t->ranks);
    kt_strtab_free(t->strs);
    kt_diags_clear(&t->diags);
    free(t);
}
