/*
 * op_args.h — a cpu_op's recorded shapes, read from its raw args.
 *
 * Traces taken with record_shapes=True carry "Input Dims", "Input type",
 * "Input Strides" and "Concrete Inputs" on cpu_op events.  The model keeps
 * none of them (most analyses never look), so the perf analysis re-reads an
 * op's args text and turns it into per-input dims, strides, dtype and
 * concrete value.  Anything odd (nested lists, more dims than we keep,
 * numbers that are not integers, negative sizes) leaves that input without
 * dims rather than failing: the perf models then say which op they could
 * not model and why.
 */
#ifndef KT_OP_ARGS_H
#define KT_OP_ARGS_H

#include "load/json_tree.h"

#define KT_OP_MAX_INPUTS 32
#define KT_OP_MAX_DIMS 8

typedef struct kt_op_input {
    int ndims;                    /* -1: no usable dims (absent, nested, too many, negative) */
    int64_t dims[KT_OP_MAX_DIMS];
    int nstrides;                 /* -1 as ndims */
    int64_t strides[KT_OP_MAX_DIMS];
    const char *type;             /* "" when absent */
    const char *concrete;         /* "" when absent */
} kt_op_input;

typedef struct kt_op_args {
    kt_jtree tree;
    bool has_dims;                /* the args had an "Input Dims" list   */
    size_t n;                     /* inputs described (<= KT_OP_MAX_INPUTS) */
    kt_op_input in[KT_OP_MAX_INPUTS];
    /* the four lists as written (NULL when absent), for the Python reprs */
    const kt_jnode *dims, *types, *strides, *concrete;
} kt_op_args;

/* Parse an args object's text (a's buffers are reused).  False only when
 * the text is not JSON; a then describes no inputs.                      */
bool kt_op_args_parse(kt_op_args *a, const char *text, size_t len);
/* Forget the inputs, keep the buffers for the next parse. */
void kt_op_args_clear(kt_op_args *a);
/* The JSON text of v with the whitespace outside strings removed: equal
 * values written alike compare equal.  Writes at most cap-1 bytes; false
 * when it did not fit.                                                    */
bool kt_json_compact(const char *text, const kt_jnode *v, char *out, size_t cap);
void kt_op_args_free(kt_op_args *a);

/* The bytes of an args object's text that decide what kt_op_args_parse
 * makes of it: every member, length-prefixed, but those whose value is a
 * plain integer and whose key is none of the four lists (External id, Ev
 * Idx, Sequence number: they differ from call to call).  Two texts with
 * the same bytes parse to the same lists, or both fail.  out needs room
 * for 3 * len + 16 bytes; false (out unusable) when the text is not plain
 * enough to be sure: escapes, or not an object of members as written.    */
bool kt_op_args_shape_bytes(const char *text, size_t len, char *out, size_t *outlen);

/* Python's repr() of a JSON value as TraceLens prints it: lists as lists
 * ("[[512], [141, 512]]") or, with tuples, as tuples ("((512,), (141,
 * 512))"); strings single-quoted; null as None.  NULL node → "None".
 * Returns a malloc'd string (NULL on allocation failure).                */
char *kt_py_repr(const kt_jtree *t, const kt_jnode *v, bool tuples);
/* Python's repr of a float (shortest round-trip, "0.0", "0.1", "1e-05"). */
void kt_py_float(double d, char *out, size_t outlen);
/* Decimal digits of v into out (21 bytes suffice); returns the length. */
size_t kt_fmt_i64(int64_t v, char *out);
/* Python's repr of the string s[0..n) ('abc', "it's"); malloc'd or NULL. */
char *kt_py_str_repr(const char *s, size_t n);
/* repr of a tuple of int64s: "(512, 1)", "(5,)", "()". */
void kt_py_int_tuple(const int64_t *v, int n, char *out, size_t outlen);

#endif
