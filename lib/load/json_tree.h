/*
 * json_tree.h — a small JSON document read whole into a tree: the
 * loader's entry point for JSON that is not a trace.
 *
 * Analyses read two such documents: a cpu_op's raw args object (nested
 * "Input Dims" lists, "Input type" strings, ...) and TraceLens's arch JSON
 * (--device-spec).  Both are small, so a tree of nodes in one array is
 * simplest: no streaming, a depth limit, integers kept exact when they fit
 * int64.  The tree is built by the trace scanner (its values, members,
 * strings and numbers), so a value reads the same here as in a trace,
 * whatever the process locale; only a document that is not one whole
 * value (a trailing comma, a cut literal, text after it) is refused.
 */
#ifndef KT_JSON_TREE_H
#define KT_JSON_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { KT_J_NULL, KT_J_BOOL, KT_J_NUM, KT_J_STR, KT_J_ARR, KT_J_OBJ } kt_jtype;

typedef struct kt_jnode {
    kt_jtype type;
    bool is_int;        /* KT_J_NUM written as an integer that fits int64 */
    bool b;
    int64_t i;
    double d;
    const char *s;      /* KT_J_STR (unescaped, NUL-terminated) and object keys */
    size_t slen;
    const char *key;    /* member name when the parent is an object, else NULL */
    uint32_t nkids;     /* arrays and objects: number of children            */
    uint32_t first;     /* index of the first child; children are consecutive
                           siblings linked by next                           */
    uint32_t next;      /* next sibling, UINT32_MAX for the last             */
    size_t off, len;    /* where the value is in the parsed text             */
} kt_jnode;

typedef struct kt_jtree {
    kt_jnode *n;        /* n[0] is the root */
    size_t count, cap;
    char *strs;         /* unescaped string storage */
    size_t slen, scap;
    char *src;          /* the text, padded for the scanner */
    size_t srccap;
} kt_jtree;

/* Parse text[0..len); false (tree emptied, *err set to a static reason) on
 * malformed JSON, nesting deeper than 64 or allocation failure.  A tree
 * parsed into again reuses its buffers (one allocation for many parses). */
bool kt_jtree_parse(kt_jtree *t, const char *text, size_t len, const char **err);
/* Past the blanks at p that kt_jtree_parse skips (as the scanner's
 * kt_skip_ws: any byte up to ' '), at most end; for unpadded text.      */
const char *kt_json_skip_ws(const char *p, const char *end);
void kt_jtree_free(kt_jtree *t);

/* Member of an object by key, or NULL. */
const kt_jnode *kt_jobj_get(const kt_jtree *t, const kt_jnode *obj, const char *key);
/* i-th child of an array or object, or NULL. */
const kt_jnode *kt_jchild(const kt_jtree *t, const kt_jnode *arr, size_t i);

#endif
