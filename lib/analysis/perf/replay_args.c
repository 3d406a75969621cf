/*
 * replay_args.c — an op call's "Input Dims", "Input Strides", "Input type"
 * and "Concrete Inputs" read back into one row per argument (replay_args.h).
 * The perf models keep only the inputs they need (op_args.h caps them);
 * a replay needs every argument, in schema order, as written.
 */
#include "analysis/perf/replay_args.h"
#include "analysis/perf/op_args.h"

#include <stdio.h>
#include <string.h>

enum { C_ID, C_INDEX, C_KIND, C_TYPE, C_DIMS, C_STRIDES, C_VALUE };

void kt_replay_args_cols(kt_table *t)
{
    static const char *const cols[] = { "id", "index", "kind", "type", "dims", "strides", "value" };
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        kt_table_add_col(t, cols[i], i < 2 ? KT_COL_INT : KT_COL_STR, 0);
}

/* A flat list of non-negative integers as JSON ("[141,512]") into out;
 * its length, or -1 when l is anything else (or too long for out).       */
static int int_list_json(const kt_jtree *t, const kt_jnode *l, char *out, size_t cap)
{
    if (!l || l->type != KT_J_ARR) return -1;
    size_t k = 0;
    int n = 0;
    out[k++] = '[';
    for (uint32_t c = l->first; c != UINT32_MAX; c = t->n[c].next, n++) {
        const kt_jnode *x = &t->n[c];
        if (x->type != KT_J_NUM || !x->is_int || x->i < 0 || k + 24 >= cap) return -1;
        if (n) out[k++] = ',';
        k += kt_fmt_i64(x->i, out + k);
    }
    out[k++] = ']';
    out[k] = '\0';
    return n;
}

/* Row-major strides of dims written in out (JSON), for traces without
 * "Input Strides": what torch.empty would make.                          */
static void contiguous_json(const kt_jtree *t, const kt_jnode *dims, int n, char *out, size_t cap)
{
    int64_t d[64], s = 1;
    if (n > 64) n = 64; /* int_list_json's cap keeps real shapes far below */
    for (int i = 0; i < n; i++) d[i] = kt_jchild(t, dims, (size_t)i)->i;
    char tmp[64][24];
    for (int i = n - 1; i >= 0; i--) {
        kt_fmt_i64(s, tmp[i]);
        s *= d[i] > 1 ? d[i] : 1;
    }
    size_t k = 0;
    out[k++] = '[';
    for (int i = 0; i < n && k + 26 < cap; i++) k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "," : "", tmp[i]);
    snprintf(out + k, cap - k, "]");
}

static const char *str_at(const kt_jtree *t, const kt_jnode *l, size_t i)
{
    const kt_jnode *x = kt_jchild(t, l, i);
    return x && x->type == KT_J_STR ? x->s : "";
}

/* The kind of argument i and, for those a replay cannot rebuild, why. */
static const char *arg_kind(const char *type, int ndims, const char **why)
{
    *why = NULL;
    if (!strcmp(type, "Scalar")) return "scalar";
    if (!strcmp(type, "ScalarList")) return "scalar_list";
    if (!type[0]) return "none";
    if (!strcmp(type, "TensorList")) {
        *why = "is a list of tensors whose shapes the trace does not record";
        return "tensor_list";
    }
    if (!strcmp(type, "GenericList")) {
        *why = "is a list of objects the trace does not describe";
        return "opaque";
    }
    if (ndims < 0) {
        *why = "has no flat list of dims";
        return "opaque";
    }
    return "tensor";
}

void kt_replay_args_rows(kt_table *t, int64_t id, const char *text, size_t len, kt_jtree *tree, const char **reason,
                         char *why, size_t whylen)
{
    const char *err;
    *reason = "";
    if (!text || !kt_jtree_parse(tree, text, len, &err)) {
        *reason = "the op's args could not be read";
        return;
    }
    const kt_jnode *root = &tree->n[0];
    const kt_jnode *dims = kt_jobj_get(tree, root, "Input Dims"), *types = kt_jobj_get(tree, root, "Input type");
    const kt_jnode *strides = kt_jobj_get(tree, root, "Input Strides");
    const kt_jnode *concrete = kt_jobj_get(tree, root, "Concrete Inputs");
    if (!types || types->type != KT_J_ARR) {
        *reason = "no recorded shapes: profile with record_shapes=True";
        return;
    }
    char d[1024], s[1024];
    for (size_t i = 0; i < types->nkids; i++) {
        const char *type = str_at(tree, types, i), *bad;
        int nd = int_list_json(tree, kt_jchild(tree, dims, i), d, sizeof d);
        const char *kind = arg_kind(type, nd, &bad);
        bool tensor = !strcmp(kind, "tensor");
        if (tensor && int_list_json(tree, kt_jchild(tree, strides, i), s, sizeof s) != nd)
            contiguous_json(tree, kt_jchild(tree, dims, i), nd, s, sizeof s);
        if (bad && !(*reason)[0]) {
            snprintf(why, whylen, "argument %zu (%s) %s", i, type, bad);
            *reason = why;
        }
        kt_table_add_row(t);
        kt_table_set_int(t, C_ID, id);
        kt_table_set_int(t, C_INDEX, (int64_t)i);
        kt_table_set_str(t, C_KIND, kind);
        kt_table_set_str(t, C_TYPE, type);
        kt_table_set_str(t, C_DIMS, tensor ? d : "");
        kt_table_set_str(t, C_STRIDES, tensor ? s : "");
        kt_table_set_str(t, C_VALUE, str_at(tree, concrete, i));
    }
}
