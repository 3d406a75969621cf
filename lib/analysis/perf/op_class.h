/*
 * op_class.h — the perf map's memo of op classes: the calls of one op name
 * whose args decide the same shapes (kt_op_args_shape_bytes) are parsed,
 * keyed and evaluated once, and find their groups without a key lookup.
 *
 * A trace repeats a few hundred (name, shapes) pairs over tens of
 * thousands of calls; parsing each call's args into a JSON tree, writing
 * its grouping keys and evaluating its model were most of kineta perf on
 * traces with shapes.  The memo is a direct-mapped cache of a fixed number
 * of classes, so its memory stays bounded however many shapes there are:
 * a class pushed out is made again by the next call that needs it.
 */
#ifndef KT_OP_CLASS_H
#define KT_OP_CLASS_H

#include "analysis/perf/perf_models.h"

/* A group whose key also depends on one more thing than the class. */
typedef struct kt_op_class_memo {
    uint64_t of;              /* what the group is for                   */
    uint32_t group;           /* its index, KT_NONE until found          */
} kt_op_class_memo;

typedef struct kt_op_class {
    /* the key: name, whether the op is modelled, its shape bytes */
    uint32_t name;
    bool modelled_role;
    uint64_t hash;
    char *bytes;
    size_t nbytes, cap;
    /* what the calls share, filled by the caller when *fresh */
    bool has_dims;            /* the args had an "Input Dims" list        */
    bool modelled;            /* the model evaluated                      */
    kt_perf_eval eval;
    const char *key[4];       /* compact JSON of the lists, NULL = absent */
    char *keys;               /* their storage (kt_op_class_set_keys)     */
    size_t keys_cap;
    /* the class's groups in the rank's tables, KT_NONE until found */
    uint32_t unique, unified, model;
    kt_op_class_memo launcher;   /* of a category (its text's address)   */
    kt_op_class_memo short_kernel; /* of a kernel name id                */
} kt_op_class;

#define KT_OP_CLASS_SLOTS 4096

typedef struct kt_op_classes {
    kt_op_class *slot[KT_OP_CLASS_SLOTS];
    kt_op_class scratch;      /* the class of calls that cannot share one */
} kt_op_classes;

/* The class of (name, modelled_role, bytes[0..n)); bytes NULL: a call of
 * its own (the scratch class).  *fresh: the class is new (its shared part
 * and groups unset) and the caller fills it.  NULL on OOM.               */
kt_op_class *kt_op_classes_get(kt_op_classes *cs, uint32_t name, bool modelled_role, const char *bytes, size_t n,
                               bool *fresh);
/* Copies of the four keys (NULL stays NULL) into cl; false on OOM. */
bool kt_op_class_set_keys(kt_op_class *cl, const char *const key[4]);
/* Where m keeps its group for of (forgetting the one it kept for another). */
uint32_t *kt_op_class_memo_for(kt_op_class_memo *m, uint64_t of);
void kt_op_classes_free(kt_op_classes *cs);

#endif
