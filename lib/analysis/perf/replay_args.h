/*
 * replay_args.h — one op call's recorded ATen arguments as replay_args
 * rows (kt_replay_ir, kineta.h): what each input is (tensor, scalar, list,
 * None, or something a replay cannot rebuild) with its dims, strides,
 * type and concrete value as the trace wrote them.
 */
#ifndef KT_REPLAY_ARGS_H
#define KT_REPLAY_ARGS_H

#include "load/json_tree.h"
#include "table/table.h"

#include <stdint.h>

/* Columns of "replay_args", in order. */
void kt_replay_args_cols(kt_table *t);
/* Rows for the op id from its args text (NULL: none); *reason is set
 * (static text, or into why[0..whylen)) when a replay cannot rebuild the
 * call, else "".  tree is reused between calls.                          */
void kt_replay_args_rows(kt_table *t, int64_t id, const char *text, size_t len, kt_jtree *tree, const char **reason,
                         char *why, size_t whylen);

#endif
