/*
 * op_class.c — the memo of op classes (op_class.h): a slot per hash of the
 * key, a class taken over by the next key hashing there.
 */
#include "analysis/perf/op_class.h"

#include "analysis/kernels/kernel_stats.h"
#include "analysis/perf/perf_groups.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

static uint64_t class_hash(uint32_t name, bool modelled_role, const char *bytes, size_t n)
{
    return kt_pg_hash(bytes, n) ^ ((uint64_t)name * 0x9e3779b97f4a7c15ull) ^ modelled_role;
}

static bool same_key(const kt_op_class *cl, uint64_t h, uint32_t name, bool modelled_role, const char *bytes,
                     size_t n)
{
    return cl->hash == h && cl->name == name && cl->modelled_role == modelled_role && cl->nbytes == n &&
           (n == 0 || !memcmp(cl->bytes, bytes, n));
}

static void forget_groups(kt_op_class *cl)
{
    cl->unique = cl->unified = cl->model = KT_NONE;
    cl->launcher = cl->short_kernel = (kt_op_class_memo){ 0, KT_NONE };
}

uint32_t *kt_op_class_memo_for(kt_op_class_memo *m, uint64_t of)
{
    if (m->of != of) *m = (kt_op_class_memo){ of, KT_NONE };
    return &m->group;
}

/* cl made the class of the key, with nothing shared or found yet. */
static bool take_key(kt_op_class *cl, uint64_t h, uint32_t name, bool modelled_role, const char *bytes, size_t n)
{
    if (!kt_grow((void **)&cl->bytes, &cl->cap, n, 1)) return false;
    if (n) memcpy(cl->bytes, bytes, n);
    cl->nbytes = n;
    cl->hash = h;
    cl->name = name;
    cl->modelled_role = modelled_role;
    forget_groups(cl);
    return true;
}

kt_op_class *kt_op_classes_get(kt_op_classes *cs, uint32_t name, bool modelled_role, const char *bytes, size_t n,
                               bool *fresh)
{
    *fresh = true;
    if (!bytes) {
        forget_groups(&cs->scratch);
        return &cs->scratch;
    }
    uint64_t h = class_hash(name, modelled_role, bytes, n);
    kt_op_class **slot = &cs->slot[h % KT_OP_CLASS_SLOTS];
    if (*slot && same_key(*slot, h, name, modelled_role, bytes, n)) {
        *fresh = false;
        return *slot;
    }
    if (!*slot && !(*slot = calloc(1, sizeof **slot))) return NULL;
    return take_key(*slot, h, name, modelled_role, bytes, n) ? *slot : NULL;
}

bool kt_op_class_set_keys(kt_op_class *cl, const char *const key[4])
{
    size_t len[4], need = 0;
    for (int i = 0; i < 4; i++) need += (len[i] = key[i] ? strlen(key[i]) + 1 : 0);
    if (!kt_grow((void **)&cl->keys, &cl->keys_cap, need, 1)) return false;
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        cl->key[i] = key[i] ? memcpy(cl->keys + at, key[i], len[i]) : NULL;
        at += len[i];
    }
    return true;
}

static void class_free(kt_op_class *cl)
{
    free(cl->bytes);
    free(cl->keys);
}

void kt_op_classes_free(kt_op_classes *cs)
{
    for (size_t i = 0; i < KT_OP_CLASS_SLOTS; i++) {
        if (cs->slot[i]) class_free(cs->slot[i]);
        free(cs->slot[i]);
    }
    class_free(&cs->scratch);
    memset(cs, 0, sizeof *cs);
}
