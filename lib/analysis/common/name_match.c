/*
 * name_match.c — see name_match.h.
 */
#include "analysis/common/name_match.h"

#include <stdlib.h>
#include <string.h>

bool kt_name_match_init(kt_name_match *m, const kt_strtab *strs, const char *sub)
{
    size_t n = kt_strtab_count(strs);
    *m = (kt_name_match){ .strs = strs, .sub = sub, .memo = calloc(n ? n : 1, 1) };
    m->n = m->memo ? n : 0;
    return m->memo != NULL;
}

bool kt_name_contains_slow(kt_name_match *m, uint32_t name)
{
    if (name == KT_NONE) return false;
    bool yes = strstr(kt_strtab_get(m->strs, name), m->sub) != NULL;
    if (name < m->n) m->memo[name] = yes ? 1 : 2;
    return yes;
}

void kt_name_match_free(kt_name_match *m)
{
    free(m->memo);
    *m = (kt_name_match){ 0 };
}

bool kt_name_test_init(kt_name_test *m, const kt_strtab *strs, bool (*test)(const char *name))
{
    *m = (kt_name_test){ .strs = strs, .test = test, .memo = calloc(kt_strtab_count(strs) + 1, 1) };
    return m->memo != NULL;
}

void kt_name_test_free(kt_name_test *m)
{
    free(m->memo);
    *m = (kt_name_test){ 0 };
}
